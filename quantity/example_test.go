package quantity_test

import (
	"fmt"

	"github.com/fluidlb/fluid/quantity"
)

// A result is held to its quantities' domains and to the relations
// between them before it is shown.
func ExampleCheck() {
	type limit struct {
		Scenario string    `json:"scenario"`
		Load     float64   `json:"load"`
		Blocking float64   `json:"blocking"`
		Busy     float64   `json:"busy"`
		Tokens   []float64 `json:"tokens"`
	}
	fmt.Println(quantity.Check(limit{"blocking", 0.9, 0.4, 0.54, []float64{0, 0.46}}))
	fmt.Println(quantity.Check(limit{"blocking", 0.9, 1, 3e-61, []float64{0, 0}}))
	fmt.Println(quantity.Axis("sojourn"))
	// Output:
	// <nil>
	// the result failed its invariants, so it is not shown as an answer: busy + Σ tokens = 1 does not hold (busy = 3e-61, Σ tokens = 0)
	// mean time in system (mean service times)
}
