package sim

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/jackson"
)

// agrees reports whether the simulated estimate agrees with a theory value:
// |mean − x| ≤ 1.5·CI95 + rel·|x|. The factor 1.5 on a Student-t 95%
// half-width with 7 degrees of freedom covers about 99% (t₇ = 3.55), so a
// correct simulator fails such a check about once in a hundred seeds; rel
// is a stated finite-N or published-rounding allowance.
func agrees(e Estimate, x, rel float64) bool {
	return math.Abs(e.Mean-x) <= 1.5*e.CI95+rel*math.Abs(x)
}

func mustRun(t *testing.T, c config) *Result {
	t.Helper()
	r, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Exact anchors: random dispatch makes every server an M/G/1
// queue, with mean time in system 1 + λ(1+c²)/(2(1−λ)) under FCFS
// (Pollaczek–Khinchine) and 1/(1−λ) under PS for any size law.
func TestRandomDispatchAnchors(t *testing.T) {
	const load = 0.9
	for _, c := range []struct {
		sizes string
		jobs  int
	}{
		{"exp", 400_000}, {"det", 400_000}, {"h2:30", 2_000_000}, {"pareto:3.5", 800_000}, {"pareto:2.5", 800_000},
	} {
		z, err := farm.ParseSizes(c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
			want := 1 / (1 - load)
			if d == farm.FCFS {
				if z.Kind == farm.Pareto && z.Shape <= 3 {
					continue // E[S³] = ∞: the FCFS sample mean converges too slowly to test
				}
				want = 1 + load*(1+z.SquaredCV())/(2*(1-load))
			}
			// Ten servers: each is an M/G/1 queue whatever N is.
			r := mustRun(t, config{Model: Model{Servers: 10, Load: load, Discipline: d, Sizes: z}, Settings: Settings{Jobs: c.jobs, Seed: 11}})
			if !agrees(r.Sojourn, want, 0) {
				t.Errorf("random %v %s: sojourn %.4f ± %.4f, theory %.4f", d, c.sizes, r.Sojourn.Mean, r.Sojourn.CI95, want)
			}
			if d == farm.PS {
				// M/G/1-PS: E[T | size x] = x/(1−λ), so time/size averages 1/(1−λ).
				if r.Slowdown == nil {
					t.Errorf("random PS %s: no slowdown (%s)", c.sizes, r.SlowdownNote)
				} else if !agrees(*r.Slowdown, want, 0) {
					t.Errorf("random PS %s: slowdown %.4f ± %.4f, theory %.4f", c.sizes, r.Slowdown.Mean, r.Slowdown.CI95, want)
				}
			}
		}
	}
}

// Round robin with exponential FCFS servers: each server sees Erlang-N
// interarrival times, an E_N/M/1 queue with mean time 1/(1−σ), σ the root
// of σ = (λN/(λN + 1 − σ))^N. At N = 100, λ = 0.9: 5.2268.
func TestRoundRobinErlang(t *testing.T) {
	const n, load = 100, 0.9
	sigma := 0.5
	for range 200 {
		sigma = math.Pow(load*n/(load*n+1-sigma), n)
	}
	want := 1 / (1 - sigma)
	if math.Abs(want-5.2268) > 1e-4 {
		t.Fatalf("E_N/M/1 reference %.5f, the issue quotes 5.2268", want)
	}
	r := mustRun(t, config{Model: Model{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.RoundRobin}}, Settings: Settings{Jobs: 500_000, Seed: 3}})
	if !agrees(r.Sojourn, want, 0) {
		t.Errorf("round robin: %.4f ± %.4f, E_N/M/1 %.4f", r.Sojourn.Mean, r.Sojourn.CI95, want)
	}
}

// With exponential sizes a count-based policy sees the same count dynamics
// under FCFS and PS, so the mean time in system is the same.
func TestCountPoliciesInsensitiveToDiscipline(t *testing.T) {
	for _, p := range []string{"jsqd:2", "jsq", "tally"} {
		pol, _ := farm.ParsePolicy(p)
		c := config{Model: Model{Servers: 100, Load: 0.9, Policy: pol}, Settings: Settings{Jobs: 400_000, Seed: 5}}
		if pol.Kind == farm.Tally {
			c.Dispatchers, c.Period = 5, 200
		}
		f := mustRun(t, c)
		c.Discipline = farm.PS
		c.Seed = 6
		s := mustRun(t, c)
		diff := math.Abs(f.Sojourn.Mean - s.Sojourn.Mean)
		if diff > 1.5*math.Hypot(f.Sojourn.CI95, s.Sojourn.CI95) {
			t.Errorf("%s: FCFS %.4f ± %.4f, PS %.4f ± %.4f", p, f.Sojourn.Mean, f.Sojourn.CI95, s.Sojourn.Mean, s.Sojourn.CI95)
		}
	}
}

// JIQ blocking at N = 100 against the exact product form (closed Jackson network): both
// are exact at finite N, so no allowance.
func TestJIQBlockingProductForm(t *testing.T) {
	for _, c := range []struct {
		load        float64
		alpha, beta []float64
	}{
		{0.9, []float64{0.7, 0.3}, nil},
		{1.2, []float64{0.5, 0.3, 0.2}, nil},
		{0.9, []float64{0.7, 0.3}, []float64{0.7, 0.3}},
	} {
		exact, err := jackson.Solve(&jackson.JIQ{Servers: 100, Load: c.load, Alpha: c.alpha, Beta: c.beta})
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, config{Model: Model{Servers: 100, Load: c.load, Alpha: c.alpha, Beta: c.beta, Policy: farm.Policy{Kind: farm.JIQBlocking}}, Settings: Settings{Jobs: 400_000, Seed: 9}})
		if !agrees(r.Blocking, exact.Blocking, 0) {
			t.Errorf("λ=%v α=%v β=%v: blocking %.5f ± %.5f, product form %.5f", c.load, c.alpha, c.beta, r.Blocking.Mean, r.Blocking.CI95, exact.Blocking)
		}
		if r.Sojourn.Mean < 0.97 || r.Sojourn.Mean > 1.03 || r.WaitProb.Mean != 0 {
			t.Errorf("blocking JIQ jobs never wait: sojourn %v, P(wait>0) %v", r.Sojourn.Mean, r.WaitProb.Mean)
		}
	}
}

// JIQ queueing, R = 2 basic: the fraction sent at random tends to λ₂*/λ
// with λ₂* = λ(α₁ − ½)/(1 − λα₁)·(1 − λ₂*)… (queueing fixed point: E[W] →
// λ(α₁ − ½)/(1 − λα₁)); at N = 2,000 the finite-N bias is a few per cent.
func TestJIQQueueingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 2,000 JIQ run")
	}
	const load, a1 = 0.5, 0.7
	ew := load * (a1 - 0.5) / (1 - load*a1) // E[W] → λ₂/(1−λ₂)
	l2 := ew / (1 + ew)
	r := mustRun(t, config{Model: Model{Servers: 2000, Load: load, Alpha: []float64{a1, 1 - a1}, Policy: farm.Policy{Kind: farm.JIQQueueing}}, Settings: Settings{Jobs: 1_000_000, Reps: 4, Seed: 13}})
	t.Logf("E[W] %.4f ± %.4f (limit %.4f); sent at random %.4f ± %.4f (limit %.4f)", r.Wait.Mean, r.Wait.CI95, ew, r.RandomFraction.Mean, r.RandomFraction.CI95, l2/load)
	if !agrees(*r.Wait, ew, 0.05) || !agrees(r.RandomFraction, l2/load, 0.05) {
		t.Errorf("E[W] %.4f ± %.4f (limit %.4f), sent at random %.4f ± %.4f (limit %.4f)", r.Wait.Mean, r.Wait.CI95, ew, r.RandomFraction.Mean, r.RandomFraction.CI95, l2/load)
	}
	// Token exchange above ν* = (Rα₁ − 1)λ/(1 − λ) = 0.4 gives zero wait
	// in the limit; at N = 2,000 the wait is small.
	r = mustRun(t, config{Model: Model{Servers: 2000, Load: load, Alpha: []float64{a1, 1 - a1}, Policy: farm.Policy{Kind: farm.JIQQueueing}, Exchange: 2}, Settings: Settings{Jobs: 400_000, Reps: 4, Seed: 14}})
	if r.Wait.Mean > 0.02 {
		t.Errorf("with ν = 2 > ν* = 0.4: E[W] = %.4f, want ≈ 0", r.Wait.Mean)
	}
}

// SampleTimes: with one dispatcher and λ = 0.5, blocking JIQ from the
// empty system is (almost never blocking) an M/M/∞ system: the busy
// fraction is λ(1 − e^{−t}); allowance 2/N for the finite-N bias.
func TestSampleTimes(t *testing.T) {
	times := []float64{0, 1, 3}
	r := mustRun(t, config{Model: Model{Servers: 1000, Load: 0.5, Policy: farm.Policy{Kind: farm.JIQBlocking}}, Settings: Settings{Jobs: 1, Warmup: -1, Reps: 16, SampleTimes: times, Seed: 4}})
	if len(r.Trajectory) != len(times) {
		t.Fatalf("%d trajectory points", len(r.Trajectory))
	}
	for i, p := range r.Trajectory {
		want := 0.5 * (1 - math.Exp(-times[i]))
		if p.T != times[i] || !agrees(p.Busy, want, 2.0/1000) || math.Abs(p.Busy.Mean+p.Tokens[0].Mean-1) > 1e-12 {
			t.Errorf("t=%v: busy %+v (want %.4f), tokens %+v", p.T, p.Busy, want, p.Tokens[0])
		}
		if math.Abs(p.Occupancy[0].Mean+p.Occupancy[1].Mean-1) > 1e-12 {
			t.Errorf("t=%v: blocking JIQ servers hold more than one job: %+v", p.T, p.Occupancy)
		}
	}
	if _, err := run(config{Model: Model{Servers: 10, Load: 0.5}, Settings: Settings{SampleTimes: []float64{2, 1}}}); err == nil {
		t.Error("decreasing sample times accepted")
	}
}
