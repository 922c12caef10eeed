package outcome_test

import (
	"fmt"

	"github.com/fluidlb/fluid/outcome"
)

// A result embeds an Outcome; its Status reads the same in Go and in JSON.
func Example() {
	type Result struct {
		outcome.Outcome
		Value float64
	}
	r := Result{Outcome: outcome.Outcome{Status: outcome.NotSettled, Evaluations: 3000}, Value: 929.7}
	fmt.Println(r.Status, r.Status.Name(), r.Status.OK(), r.Err())
	// Output: not settled not_settled false computation ended: not settled
}
