package sim

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// The Markovian fast path simulates the same chain as the general engine
// (in law, not draw for draw): over 20 + 20 replications of random
// dispatch (FCFS and PS) and best of two, their mean time in system, mean
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
		t.Skip("40 replications of 200,000 jobs per model")
	}
	const n, load, reps, jobs = 10, 0.7, 20, 200_000
	for _, m := range []Model{
		{Servers: n, Load: load},
		{Servers: n, Load: load, Discipline: farm.PS},
		{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.JSQd, D: 2}},
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
