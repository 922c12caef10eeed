package sim_test

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/sim"
)

// Best of two at N = 100, λ = 0.9 with exponential sizes: the mean time in
// system with its 95% interval over 4 replications ("Sharing Servers Don't
// Mind the Giant" measured 2.64; the N → ∞ mean field gives 2.61).
func ExampleRun() {
	farm100 := &sim.Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}}
	res, err := sim.Run(farm100, &sim.Settings{Jobs: 200_000, Reps: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean time in system %.2f ± %.2f over %d replications\n", res.Sojourn.Mean, res.Sojourn.CI95, res.Sojourn.Samples)
	fmt.Println(res.Status, res.Sojourn.Contains(2.64, 0))
	// Output:
	// mean time in system 2.64 ± 0.09 over 4 replications
	// completed true
}
