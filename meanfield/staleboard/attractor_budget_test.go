package staleboard_test

import (
	"testing"

	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
)

// TestAttractorHonoursMaxIter: MaxIter bounds every period iterated, the
// warm-up that sizes the support included (it once added 8 periods, so
// --iterations 3000 ended "after 3008 periods").
func TestAttractorHonoursMaxIter(t *testing.T) {
	// k = 5, λ = 0.9, T = 400 from the empty board takes more than 20
	// periods to settle (about a hundred: fluid map's default run).
	m := &staleboard.Model{System: staleboard.System{K: 5, Load: 0.9}, Period: 400}
	for _, max := range []int{1, 5, 20} {
		att, err := staleboard.Attractor(m, &staleboard.AttractorSettings{MaxIter: max})
		if err != nil {
			t.Fatal(err)
		}
		if att.Iterations > max || att.Status == outcome.Converged {
			t.Errorf("MaxIter %d: %d periods iterated, status %v", max, att.Iterations, att.Status)
		}
	}
}
