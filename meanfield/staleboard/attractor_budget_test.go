package staleboard

import (
	"fmt"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// TestAttractorIterationBudget: MaxIter bounds every period iterated,
// the first ones on the free support included (fluid map --iterations
// 3000 once ended "after 3008 periods", and --iterations 1 panicked), and
// a run that does not settle says how many periods its mean averages.
func TestAttractorIterationBudget(t *testing.T) {
	m := &Model{System: System{K: 5, Load: 0.9}, Period: 400}
	for _, maxIter := range []int{1, 2, 9, 20, 3000} {
		t.Run(fmt.Sprintf("MaxIter=%d", maxIter), func(t *testing.T) {
			r, err := Attractor(m, &AttractorSettings{MaxIter: maxIter})
			if err != nil {
				t.Fatal(err)
			}
			if r.Iterations < 1 || r.Iterations > maxIter {
				t.Errorf("%d periods iterated, want 1..%d", r.Iterations, maxIter)
			}
			switch r.Status {
			case outcome.NotSettled:
				if r.Averaged < 1 || r.Averaged > min(r.Iterations, 100) {
					t.Errorf("not settled: the mean averages %d periods of %d", r.Averaged, r.Iterations)
				}
			default:
				if r.Averaged != 0 {
					t.Errorf("%v: Averaged = %d, want 0", r.Status, r.Averaged)
				}
			}
		})
	}
}
