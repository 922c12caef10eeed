package validate_test

import (
	"fmt"

	"github.com/fluidlb/fluid/sim"
	"github.com/fluidlb/fluid/validate"
)

// The verdict rule: a simulated mean of 0.4006 with a 95% half-width of
// 0.0018 over 8 replications against the exact product-form blocking
// 0.40003 (no allowance: both are exact at finite N).
func ExampleVerdict() {
	est := sim.Estimate{Mean: 0.4006, CI95: 0.0018, Samples: 8}
	half, pass := validate.Verdict(est, 0.40003, 0)
	fmt.Printf("99.9%% half-width %.4f, pass %v\n", half, pass)
	_, pass = validate.Verdict(est, 0.41, 0)
	fmt.Println("against 0.41:", pass)
	// Output:
	// 99.9% half-width 0.0041, pass true
	// against 0.41: false
}
