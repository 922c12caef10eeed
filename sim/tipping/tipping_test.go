package tipping

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
)

// The logistic fit of a tipping curve: on counts drawn from a known
// logistic (here the exact expected counts, 100 runs per point), the fit
// recovers its crossing x½ = 3.2; its interval shrinks like 1/√runs.
func TestTipCurveFit(t *testing.T) {
	c := &Curve{}
	for _, x := range []float64{2.8, 2.9, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5} {
		p := 1 / (1 + math.Exp(-(-8 * (x - 3.2))))
		c.Points = append(c.Points, Point{Scaled: x, Reps: 1000, Tipped: int(math.Round(1000 * p))})
	}
	c.fit()
	if c.Status != outcome.Converged || math.Abs(c.Edge-3.2) > 0.005 || !(c.EdgeLo < 3.2 && c.EdgeHi > 3.2) || c.EdgeHi-c.EdgeLo > 0.05 {
		t.Errorf("fit: %v edge %v [%v, %v], A %v B %v", c.Status, c.Edge, c.EdgeLo, c.EdgeHi, c.A, c.B)
	}
	// A curve simulated at N = 100 (12 runs per period): 12 12 12 10 2 1 0.
	c = &Curve{}
	for i, k := range []int{12, 12, 12, 10, 2, 1, 0} {
		c.Points = append(c.Points, Point{Scaled: 2.82 + 0.0941*float64(i), Reps: 12, Tipped: k})
	}
	c.fit()
	if c.Status != outcome.Converged || c.Edge < 3.13 || c.Edge > 3.23 {
		t.Errorf("simulated curve: %v edge %v [%v, %v]", c.Status, c.Edge, c.EdgeLo, c.EdgeHi)
	}
	// No crossing: every run tipped.
	c = &Curve{Points: []Point{{Scaled: 1, Reps: 5, Tipped: 5}, {Scaled: 2, Reps: 5, Tipped: 5}}}
	if c.fit(); c.Status == outcome.Converged {
		t.Error("a curve that never falls below ½ has no edge")
	}
	if lo, hi := wilson(0, 10, 1.96); lo != 0 || math.Abs(hi-0.2775) > 1e-3 {
		t.Errorf("Wilson interval of 0/10: [%v, %v]", lo, hi)
	}
}

// A steep curve (large N) whose runs all tip up to one period and none
// after: the logistic likelihood has no maximum (the slope runs off to
// −∞ and a delta-method interval with it); the edge is the bracket's
// midpoint and the profile interval the bracket. An intermediate point
// removes the separation, and the interval stays within the bracket.
// halfBracket finds where to refine.
func TestTipCurveSeparated(t *testing.T) {
	c := &Curve{}
	for i, k := range []int{12, 12, 12, 0, 0, 0, 0} {
		c.Points = append(c.Points, Point{Scaled: 2.7 + 0.09*float64(i), Reps: 12, Tipped: k, Fraction: float64(k) / 12})
	}
	if lo, hi, ok := c.halfBracket(); !ok || math.Abs(lo-2.88) > 1e-12 || math.Abs(hi-2.97) > 1e-12 {
		t.Errorf("half bracket [%v, %v] %v, want [2.88, 2.97]", lo, hi, ok)
	}
	c.fit()
	// The profile interval is the bracket: a crossing below 2.88 would
	// make 12 tips of 12 there a 2⁻¹² event (a loss of 8.3 > 1.92).
	if !c.Separated || c.Status != outcome.Converged || math.Abs(c.Edge-2.925) > 1e-12 || math.Abs(c.EdgeLo-2.88) > 1e-4 || math.Abs(c.EdgeHi-2.97) > 1e-4 {
		t.Errorf("separated curve: separated %v, %v, edge %v [%v, %v]", c.Separated, c.Status, c.Edge, c.EdgeLo, c.EdgeHi)
	}
	c.Points = append(c.Points[:3], append([]Point{{Scaled: 2.925, Reps: 12, Tipped: 7, Fraction: 7.0 / 12}}, c.Points[3:]...)...)
	c.Separated = false
	c.fit()
	if c.Separated || c.Status != outcome.Converged || c.Edge < 2.88 || c.Edge > 2.97 || c.EdgeLo < 2.87 || c.EdgeHi > 2.98 {
		t.Errorf("with a point between: separated %v, %v, edge %v [%v, %v]", c.Separated, c.Status, c.Edge, c.EdgeLo, c.EdgeHi)
	}
}

// A shallow curve simulated at N = 25 (16 runs per period, two of the
// periods added by refinement): Newton's line search stalls at the
// function's rounding before the tight gradient threshold, and the fit
// must still be accepted (it once reported no crossing here).
func TestTipCurveShallow(t *testing.T) {
	c := &Curve{}
	xs := []float64{3.2425, 3.3145, 3.3506, 3.3866, 3.4947, 3.6028, 3.7108, 3.8189, 3.9630}
	for i, k := range []int{14, 14, 13, 7, 8, 5, 6, 2, 1} {
		c.Points = append(c.Points, Point{Scaled: xs[i], Reps: 16, Tipped: k, Fraction: float64(k) / 16})
	}
	c.fit()
	if c.Status != outcome.Converged || c.Edge < 3.45 || c.Edge > 3.58 || !(c.EdgeLo < c.Edge && c.Edge < c.EdgeHi) || c.EdgeHi-c.EdgeLo > 0.3 {
		t.Errorf("shallow curve: %v edge %v [%v, %v]", c.Status, c.Edge, c.EdgeLo, c.EdgeHi)
	}
}

// SimulatePush: the tipped fraction rises with the push, and the fit of
// the mirrored curve crosses ½ inside the sizes simulated. k = 5,
// λ = 0.9, T = 1,000, 30 servers: a backlog of 0.02·T on half the
// servers recovers and 0.2·T tips (the map's b* is 0.066·T; a small farm
// blurs it), so the crossing lies between.
func TestSimulatePush(t *testing.T) {
	c, err := SimulatePush(&PushModel{Model: Model{Dispatchers: 5, Load: 0.9, Servers: 30}, Period: 1000, Push: farm.Push{Kind: farm.Backlog, Fraction: 0.5}},
		&PushSettings{Sizes: []float64{0.2, 0.02, 0.066}, Reps: 6, Horizon: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 3 || c.Points[0].Scaled != 0.02 || c.Points[0].Tipped != 0 || c.Points[2].Tipped != 6 {
		t.Fatalf("points %+v", c.Points)
	}
	if c.Status != outcome.Converged || !(c.Edge > 0.02 && c.Edge < 0.2) || !(c.EdgeLo <= c.Edge && c.Edge <= c.EdgeHi) || !(c.B > 0) {
		t.Errorf("%v: edge %v in [%v, %v], slope %v", c.Status, c.Edge, c.EdgeLo, c.EdgeHi, c.B)
	}
	if _, err := SimulatePush(&PushModel{Model: Model{Dispatchers: 5, Load: 0.9, Servers: 30}, Period: 1000}, &PushSettings{Sizes: []float64{0.1}}); err == nil {
		t.Error("no push: no error")
	}
}
