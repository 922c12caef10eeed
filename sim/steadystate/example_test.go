package steadystate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/fluidlb/fluid/sim/steadystate"
)

// The M/M/1 queue at ρ = 0.8 from empty, by Lindley's recursion: the mean
// time in system (exactly 1/(1 − ρ) = 5) to 2% at 95%, the run length
// chosen by the controller. Each job adds one observation of two channels:
// its time in system and whether it waited (P(wait) = ρ).
func Example() {
	ctl, err := steadystate.NewController(&steadystate.Settings{
		Targets: []steadystate.Quantity{steadystate.MeanOf("sojourn", 0), steadystate.MeanOf("waited", 1)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := steadystate.NewSeries(2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(rand.NewPCG(1, 2))
	const lambda = 0.8
	w := 0.0 // the next job's wait
	for {
		d := ctl.Check(s)
		if d.Stop() {
			fmt.Println(d.Status.Name(), "after", d.Checks, "checks")
			for _, e := range d.Estimates {
				fmt.Printf("%s %.4g in [%.4g, %.4g] (%s, %d batches, warm-up %.2g%% of %d)\n",
					e.Name, e.Mean, e.Lower, e.Upper, e.Method, e.Batches, 100*float64(e.Warmup)/float64(e.Observations), e.Observations)
			}
			return
		}
		for s.Count() < d.Next {
			waited := 0.0
			if w > 0 {
				waited = 1
			}
			t := w + r.ExpFloat64()
			s.Add(t, waited)
			w = max(0, t-r.ExpFloat64()/lambda)
		}
	}
	// Output:
	// precision_reached after 6 checks
	// sojourn 4.979 in [4.891, 5.076] (batch_means, 64 batches, warm-up 0% of 1084410)
	// waited 0.7993 in [0.797, 0.8016] (batch_means, 64 batches, warm-up 0.12% of 1084410)
}

// Before any work: the relaxation time of a server's queue and the run
// that 2% at 95% needs, for random dispatch to 100 FCFS servers at
// λ = 0.9 with H2 sizes of SCV 10, and the judgement of the simulator's
// old default (8 replications of 100,000 jobs).
func ExampleNewPlan() {
	p, err := steadystate.NewPlan(steadystate.Model{Servers: 100, Load: 0.9, ArrivalSCV: 1, SizeSCV: 10, SizeMoment3: 330}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("relaxation time %.4g, mean sojourn %.4g, jobs for 2%%: %.3g, recommended %.3g\n",
		p.RelaxationTime, p.MeanSojourn, float64(p.ForPrecision), float64(p.Recommended))
	a := p.Assess(100_000, 8)
	fmt.Println(a.Verdict, a.Reason)
	_, err = steadystate.NewPlan(steadystate.Model{Servers: 100, Load: 1 - 1e-12, ArrivalSCV: 1, SizeSCV: 1}, nil)
	fmt.Println(err)
	// Output:
	// relaxation time 2089, mean sojourn 50.5, jobs for 2%: 2.54e+07, recommended 6.58e+07
	// hopeless each replication covers 0.532 relaxation times of a server's queue (τ ≈ 2.09e+03 mean service times), fewer than 20: no steady state can be found; run at least 3759393 jobs per replication (65789377 recommended)
	// Load: 0.999999999999: a server's queue relaxes in about 4e+24 mean service times, so even the minimal run (20 relaxation times on each of 100 servers) is 8e+27 jobs, beyond any run (1e+12): no run reaches steady state
}
