package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/sim/steadystate"
)

// The Markovian fast path simulates the same chain as the general engine
// (in law, not draw for draw): over 20 + 20 replications of random
// dispatch (FCFS and PS), best of two (with and without replacement, FCFS
// and PS), best of three, round robin and JSQ — each of the fast path's
// routes —, their mean time in system, mean
// delay, probability of a busy server and P(T > 10·S) agree within 4
// standard errors of the difference (the replications' own spread; a
// real difference of a few tenths of a percent fails), and the fast
// path's steady-state intervals cover the exact M/M/1 values: E[T] =
// 1/(1 − λ), E[T − S] = λ/(1 − λ) and P(busy) = λ under both disciplines
// (PS is insensitive), and under FCFS P(T > 10·S) = P(W > 9·S) =
// λ/(1 + 9(1 − λ)) (W is 0 with probability 1 − λ, else exponential of
// rate 1 − λ, independent of S).
func TestMarkovAgainstEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("40 replications of 200,000 jobs for each of 7 models")
	}
	const n, load, reps, jobs = 10, 0.7, 20, 200_000
	for _, m := range []Model{
		{Servers: n, Load: load},
		{Servers: n, Load: load, Discipline: farm.PS},
		{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.JSQd, D: 2}},
		{Servers: n, Load: load, Discipline: farm.PS, Policy: farm.Policy{Kind: farm.JSQd, D: 2, Replacement: true}},
		{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.JSQd, D: 3}},
		{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.RoundRobin}},
		{Servers: n, Load: load, Discipline: farm.PS, Policy: farm.Policy{Kind: farm.JSQ}},
	} {
		c, err := config{Model: m, Settings: Settings{Jobs: jobs, Warmup: 20_000, Seed: 5, Transient: true}}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		if !c.markovian() {
			t.Fatalf("%s: not on the fast path", m.Describe())
		}
		var fast, general [4][]float64
		for i := range reps {
			add := func(x *[4][]float64, r Rep) {
				for k, v := range []float64{r.Sojourn, r.Delay, r.BusyAtArrival, r.SlowdownTail} {
					x[k] = append(x[k], v)
				}
			}
			add(&fast, runRep(c, i, nil))
			disableMarkov = true
			add(&general, runRep(c, reps+i, nil))
			disableMarkov = false
		}
		for k, name := range []string{"sojourn", "delay", "busy at arrival", "P(T > 10 S)"} {
			ma, va := meanVar(fast[k])
			mb, vb := meanVar(general[k])
			se := math.Sqrt(va/reps + vb/reps)
			if math.Abs(ma-mb) > 4*se {
				t.Errorf("%s %s: fast path %.5f, general engine %.5f: %.1f standard errors apart", m.Describe(), name, ma, mb, math.Abs(ma-mb)/se)
			}
		}
		if m.Policy.Kind != farm.Random {
			continue
		}
		r, err := Run(&c.Model, &Settings{Jobs: jobs, Seed: 6})
		if err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			name  string
			e     Estimate
			exact float64
		}{{"sojourn", r.Sojourn, 1 / (1 - load)}, {"delay", r.Delay, load / (1 - load)}, {"busy", r.BusyAtArrival, load}}
		if m.Discipline == farm.FCFS {
			checks = append(checks, struct {
				name  string
				e     Estimate
				exact float64
			}{"P(T > 10 S)", r.SlowdownTail, load / (1 + 9*(1-load))})
		}
		for _, x := range checks {
			// 1.5 half-widths, as agrees: a 95% interval misses 5% of
			// the time, 1.5 of them about 0.3%.
			if !(math.Abs(x.e.Mean-x.exact) <= 1.5*x.e.CI95) || !x.e.Steady {
				t.Errorf("%s %s: %+v, exact %.5f", m.Describe(), x.name, x.e, x.exact)
			}
		}
	}
}

// The fast path's pieces draw what rng does: pcgStep is pcg.Uint64, and
// zigFast completed by zigFinish is rng.exp, value for value and draw for
// draw (10⁶ draws, through the ziggurat's tail, rejections included).
func TestMarkovDraws(t *testing.T) {
	a, b := &rng{src: pcg{1, 2}}, &rng{src: pcg{1, 2}}
	hi, lo := uint64(1), uint64(2)
	for k := range 1_000_000 {
		var u uint64
		hi, lo, u = pcgStep(hi, lo)
		if w := a.src.Uint64(); u != w || (pcg{hi, lo}) != a.src {
			t.Fatalf("draw %d: pcgStep %#x, Uint64 %#x", k, u, w)
		}
	}
	a.src, b.src = pcg{3, 4}, pcg{3, 4}
	slow := 0
	for k := range 1_000_000 {
		u := a.src.Uint64()
		x, ok := zigFast(u)
		if !ok {
			x = a.zigFinish(u)
			slow++
		}
		if y := b.exp(); x != y || a.src != b.src {
			t.Fatalf("draw %d: %v, exp %v", k, x, y)
		}
	}
	if slow < 1000 { // about 1.2% of the draws leave the fast region
		t.Fatalf("only %d draws past the fast region", slow)
	}
}

// A fast-path replication paused and resumed (as a sequential run does,
// here at awkward points: inside fine batches, before and after merges)
// ends in the state of one run to the same pause, bit for bit: the same
// clock, totals and job series.
func TestMarkovPauseResume(t *testing.T) {
	for _, m := range []Model{
		{Servers: 20, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}},
		{Servers: 20, Load: 0.9, Discipline: farm.PS},
	} {
		c, err := config{Model: m, Settings: Settings{Jobs: 100_000, Seed: 3}}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		if !c.markovian() {
			t.Fatalf("%s: not on the fast path", m.Describe())
		}
		const end = 60_000
		whole, parts := newEngine(c, 0), newEngine(c, 0)
		whole.start()
		whole.measure.pauseAt = end
		whole.loop()
		parts.start()
		for _, p := range []int64{1, 2, 777, 10_240, 10_241, 33_333, end} {
			parts.measure.pauseAt = p
			parts.loop()
		}
		a, b := whole.rep(), parts.rep()
		if a.Jobs != end || a.Jobs != b.Jobs || a.Events != b.Events || a.Time != b.Time || a.tot != b.tot {
			t.Fatalf("%s: whole %+v\nparts %+v", m.Describe(), a, b)
		}
		if !slices.Equal(seriesState(a.jobs), seriesState(b.jobs)) {
			t.Fatalf("%s: the job series differ", m.Describe())
		}
	}
}

// seriesState is everything a series holds: its count, fine batch size,
// the sums of each complete fine batch and those of the batch in progress.
func seriesState(s *steadystate.Series) []float64 {
	full, size := s.FineBatches()
	x := []float64{float64(s.Count()), float64(size)}
	for i := range full {
		for ch := range s.Channels() {
			x = append(x, s.Sum(ch, i, i+1))
		}
	}
	sums, room := s.Pending()
	return append(append(x, sums...), float64(room))
}
