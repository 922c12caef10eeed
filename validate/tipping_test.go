package validate

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/solver"
)

// The logistic fit of a tipping curve: on counts drawn from a known
// logistic (here the exact expected counts, 100 runs per point), the fit
// recovers its crossing x½ = 3.2; its interval shrinks like 1/√runs.
func TestTipCurveFit(t *testing.T) {
	c := &TipCurve{}
	for _, x := range []float64{2.8, 2.9, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5} {
		p := 1 / (1 + math.Exp(-(-8 * (x - 3.2))))
		c.Points = append(c.Points, TipPoint{Scaled: x, Reps: 1000, Tipped: int(math.Round(1000 * p))})
	}
	c.fit()
	if c.Status != solver.Converged || math.Abs(c.Edge-3.2) > 0.005 || !(c.EdgeLo < 3.2 && c.EdgeHi > 3.2) || c.EdgeHi-c.EdgeLo > 0.05 {
		t.Errorf("fit: %v edge %v [%v, %v], A %v B %v", c.Status, c.Edge, c.EdgeLo, c.EdgeHi, c.A, c.B)
	}
	// A curve simulated at N = 100 (12 runs per period): 12 12 12 10 2 1 0.
	c = &TipCurve{}
	for i, k := range []int{12, 12, 12, 10, 2, 1, 0} {
		c.Points = append(c.Points, TipPoint{Scaled: 2.82 + 0.0941*float64(i), Reps: 12, Tipped: k})
	}
	c.fit()
	if c.Status != solver.Converged || c.Edge < 3.13 || c.Edge > 3.23 {
		t.Errorf("simulated curve: %v edge %v [%v, %v]", c.Status, c.Edge, c.EdgeLo, c.EdgeHi)
	}
	// No crossing: every run tipped.
	c = &TipCurve{Points: []TipPoint{{Scaled: 1, Reps: 5, Tipped: 5}, {Scaled: 2, Reps: 5, Tipped: 5}}}
	if c.fit(); c.Status == solver.Converged {
		t.Error("a curve that never falls below ½ has no edge")
	}
	if lo, hi := wilson(0, 10, 1.96); lo != 0 || math.Abs(hi-0.2775) > 1e-3 {
		t.Errorf("Wilson interval of 0/10: [%v, %v]", lo, hi)
	}
}
