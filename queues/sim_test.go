package queues

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/sim"
)

// simCase is one claim of the simulation study "Sharing Servers Don't
// Mind the Giant" on processor-sharing servers
// (N = 100, λ = 0.9) with fluid's theory value, checked against the
// embedded simulator: |theory − simulated mean| must be within the
// simulation's 99.9% interval (Student t on 8 replications) plus an
// allowance, zero where the theory is exact and the run resolves the
// mean, and argued in each case otherwise.
type simCase struct {
	name    string
	theory  func(t *testing.T) float64
	model   sim.Model
	set     sim.Settings
	measure func(*sim.Result) *sim.Estimate
	allow   float64
}

func sojourn(r *sim.Result) *sim.Estimate { return &r.Sojourn }

func rrTheory(d farm.Discipline, c2 float64) func(t *testing.T) float64 {
	return func(t *testing.T) float64 {
		r, err := SolveRoundRobin(&RoundRobin{Servers: rrServers, Load: 0.9, Discipline: d, Sizes: h2(c2)}, nil)
		if err != nil || !r.Status.OK() {
			t.Fatalf("%v, %v", r, err)
		}
		return r.Sojourn
	}
}

// rrServers is N for round robin and random dispatch, where each server
// is its own queue (E_N/H2/1, M/G/1-PS): 10 rather than 100, so that runs
// of a million jobs cover the 20 relaxation times of a server's queue
// that the simulator's planner requires of a steady-state run (at N = 100
// a replication would need 10⁷ jobs at SCV 30).
const rrServers = 10

func simFarm(p farm.PolicyKind, d farm.Discipline, c2 float64) sim.Model {
	if p == farm.RoundRobin || p == farm.Random {
		return sim.Model{Servers: rrServers, Load: 0.9, Discipline: d, Sizes: h2(c2), Policy: farm.Policy{Kind: p}}
	}
	return sim.Model{Servers: 100, Load: 0.9, Discipline: d, Sizes: h2(c2), Policy: farm.Policy{Kind: p}}
}

func simRun(jobs int) sim.Settings { return sim.Settings{Jobs: jobs, Reps: 8, Level: 0.999, Seed: 28} }

func TestAgainstSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of simulation")
	}
	var cases []simCase
	// Round robin, exact (E_N/H2/1). Heavy sizes make short runs read low
	// (at SCV 30, 8 × 10⁶ jobs gave PS 8.66 ± 0.36 and FCFS 125.5 ± 5.8,
	// 8 × 10⁷ jobs 9.39 ± 0.15 and 136.9 ± 2.2 against 9.307 and 135.69):
	// SCV 30 runs 4·10⁶ jobs, and the 99.9% interval covers the rest.
	for _, c2 := range []float64{1, 4, 10, 30} {
		jobs := 1_000_000
		if c2 == 30 {
			jobs = 4_000_000
		}
		for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
			cases = append(cases, simCase{name: "round robin " + d.String() + " " + h2(c2).String(), theory: rrTheory(d, c2), model: simFarm(farm.RoundRobin, d, c2), set: simRun(jobs), measure: sojourn})
		}
	}
	lwTheory := func(d farm.Discipline, c2 float64) func(t *testing.T) float64 {
		return func(t *testing.T) float64 {
			r, err := SolveLeastWork(&LeastWork{Servers: 100, Load: 0.9, Discipline: d, Sizes: h2(c2)}, nil)
			if err != nil || !r.Status.OK() {
				t.Fatalf("%v, %v", r, err)
			}
			return r.Sojourn
		}
	}
	jsqTheory := func(d farm.Discipline, c2 float64) func(t *testing.T) float64 {
		return func(t *testing.T) float64 {
			r, err := SolveJSQ(&JSQ{Servers: 100, Load: 0.9, Discipline: d, Sizes: h2(c2)}, nil)
			if err != nil || !r.Status.OK() {
				t.Fatalf("%v, %v", r, err)
			}
			return r.Sojourn
		}
	}
	cases = append(cases,
		// M/H2/100: exact.
		simCase{name: "least work FCFS h2:30", theory: lwTheory(farm.FCFS, 30), model: simFarm(farm.LeastWork, farm.FCFS, 30), set: simRun(500_000), measure: sojourn},
		// The one-partner approximation under PS: measured within the
		// interval at SCV 1 and 4 and 6% low at SCV 30 (1.108 against
		// 1.174 ± 0.038 with 8 × 10⁶ jobs): 1% and 8% of E[T].
		simCase{name: "least work PS exp", theory: lwTheory(farm.PS, 1), model: simFarm(farm.LeastWork, farm.PS, 1), set: simRun(500_000), measure: sojourn, allow: 0.01},
		simCase{name: "least work PS h2:30", theory: lwTheory(farm.PS, 30), model: simFarm(farm.LeastWork, farm.PS, 30), set: simRun(500_000), measure: sojourn, allow: 0.09},
		// The occupancy chain: exact for exponential sizes (to the 2·10⁻⁶
		// turned away); under PS with H2 sizes, near-insensitivity, seen
		// within 0.5% (1.0701 ± 0.0055 at SCV 4, 1.0715 ± 0.0126 at SCV 30
		// against 1.0666): 1% of E[T].
		simCase{name: "least loaded exp", theory: jsqTheory(farm.FCFS, 1), model: simFarm(farm.JSQ, farm.FCFS, 1), set: simRun(1_000_000), measure: sojourn},
		simCase{name: "least loaded PS h2:4", theory: jsqTheory(farm.PS, 4), model: simFarm(farm.JSQ, farm.PS, 4), set: simRun(1_000_000), measure: sojourn, allow: 0.011},
		simCase{name: "least loaded PS h2:30", theory: jsqTheory(farm.PS, 30), model: simFarm(farm.JSQ, farm.PS, 30), set: simRun(1_000_000), measure: sojourn, allow: 0.011},
		// The time-scale approximation for FCFS with heavy sizes: 5% low
		// at SCV 30 (1.434 against 1.498 ± 0.065 and 1.529 ± 0.072 in two
		// runs of 8 × 10⁶ jobs) and 10% high at SCV 10 (1.399 against
		// 1.271 ± 0.017): 7% and 11% of E[T].
		simCase{name: "least loaded FCFS h2:30", theory: jsqTheory(farm.FCFS, 30), model: simFarm(farm.JSQ, farm.FCFS, 30), set: simRun(1_000_000), measure: sojourn, allow: 0.10},
		simCase{name: "least loaded FCFS h2:10", theory: jsqTheory(farm.FCFS, 10), model: simFarm(farm.JSQ, farm.FCFS, 10), set: simRun(1_000_000), measure: sojourn, allow: 0.14},
	)
	// Random dispatch under PS: E[T] and E[T/S] are 1/(1 − λ) = 10 for
	// every size law (exact).
	for _, c2 := range []float64{1, 30} {
		rnd := func(t *testing.T) float64 {
			r, err := SolveRandom(&Random{Servers: rrServers, Load: 0.9, Discipline: farm.PS, Sizes: h2(c2)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return r.Slowdown
		}
		cases = append(cases, simCase{name: "random PS slowdown " + h2(c2).String(), theory: rnd, model: simFarm(farm.Random, farm.PS, c2), set: simRun(2_000_000),
			measure: func(r *sim.Result) *sim.Estimate { return r.Slowdown }})
	}
	// The correlation across servers of the counts on a board 500 old and
	// now, random dispatch, PS. The simulator's estimate is the mean over
	// snapshot pairs of a Pearson correlation across N servers, which
	// reads low at N = 100 (0.077 ± 0.014 and 0.699 ± 0.018 against theory
	// 0.089 and 0.724) and agrees at N = 1,000 (0.090 ± 0.008,
	// 0.722 ± 0.013): allowance 0.03 for that estimator at N = 100.
	for _, c2 := range []float64{1, 30} {
		corr := func(t *testing.T) float64 {
			r, err := SolveCorrelation(&Correlation{Load: 0.9, Discipline: farm.PS, Sizes: h2(c2), Lags: []float64{500}}, nil)
			if err != nil || !r.Status.OK() {
				t.Fatalf("%v, %v", r, err)
			}
			return r.Correlations[0]
		}
		set := simRun(2_000_000)
		set.CorrelationAge, set.Warmup, set.Transient = 500, 500_000, true // a mean over snapshot pairs, across replications
		m := simFarm(farm.Random, farm.PS, c2)
		m.Servers = 100
		cases = append(cases, simCase{name: "board-age correlation " + h2(c2).String(), theory: corr, model: m, set: set,
			measure: func(r *sim.Result) *sim.Estimate { return r.Correlation }, allow: 0.03})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.theory(t)
			res, err := sim.Run(&c.model, &c.set)
			if err != nil {
				t.Fatal(err)
			}
			e := c.measure(res)
			if e == nil {
				t.Fatal("not measured")
			}
			t.Logf("theory %.5g, simulation %.5g ± %.2g (95%%), ± %.2g (99.9%%), allowance %g", want, e.Mean, e.CI95, e.HalfWidth, c.allow)
			if !(math.Abs(e.Mean-want) <= e.HalfWidth+c.allow) {
				t.Errorf("theory %.5g outside %.5g ± %.2g + %g", want, e.Mean, e.HalfWidth, c.allow)
			}
		})
	}
}
