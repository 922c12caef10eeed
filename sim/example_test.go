package sim_test

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/sim"
)

// Best of two at N = 100, λ = 0.9 with exponential sizes, on the default
// settings: a sequential run to 2% at 95% ("Sharing Servers Don't Mind
// the Giant" measured 2.64; the N → ∞ mean field gives 2.61). The interval
// is [Lower, Upper], corrected for the skewness of the batch means.
func ExampleRun() {
	farm100 := &sim.Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}}
	res, err := sim.Run(farm100, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Sojourn
	fmt.Printf("mean time in system %.3f in [%.3f, %.3f]\n", s.Mean, s.Lower, s.Upper)
	fmt.Printf("%s: %s, %d batches of %.3g jobs after %d warm-up jobs\n", res.Status.Name(), s.Method, s.Samples, s.BatchSize, s.Warmup)
	fmt.Println(s.Covers(2.64))
	// Output:
	// mean time in system 2.630 in [2.601, 2.665]
	// precision_reached: replicated_batch_means, 32 batches of 2.79e+04 jobs after 9320 warm-up jobs
	// true
}
