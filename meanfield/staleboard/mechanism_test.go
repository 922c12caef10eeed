package staleboard

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
)

// expectedRange against closed forms: two draws from a fair coin on
// {0, 1} differ with probability ½; n draws uniform on {0, …, m} have
// E[max − min] = Σ_q 1 − F^n − (1 − F)^n, computed here by brute force
// over every outcome for n = 3, m = 3.
func TestExpectedRange(t *testing.T) {
	approx.Check(t, "coin, n = 2", expectedRange([]float64{0.5, 0.5}, 2), 0.5, 1e-15, 0)
	p := []float64{0.25, 0.25, 0.25, 0.25}
	var want float64
	for a := range 4 {
		for b := range 4 {
			for c := range 4 {
				want += float64(max(a, b, c)-min(a, b, c)) / 64
			}
		}
	}
	approx.Check(t, "uniform, n = 3", expectedRange(p, 3), want, 1e-14, 0)
	if q := quantiles(p); q != [5]int{0, 0, 1, 2, 3} {
		t.Errorf("quantiles of uniform 0..3: %v", q)
	}
}

// The response at the balanced fixed point, k = 5, λ = 0.9. Far above
// the edge (T = 1,000) the drain clears the overshoot before the next
// refresh (the factor is within 0.05 of 0); just above it (T = 340) a
// difference comes back inverted at two thirds of its size, against the
// −(k − 1) = −4 of the top-up alone. The class laws behind it are checked
// against the map's own next board: the two groups' mean queues average
// to the next board's mean (window evolution against full passes; 1e-9,
// the map's truncations).
func TestMechanismResponse(t *testing.T) {
	for _, c := range []struct {
		T          float64
		factor     float64
		tol        float64
		provenance string
	}{
		{1000, 0, 0.05, "drained"},
		{340, -0.66, 0.03, "measured by simulation at N = 100: −0.61 ± 0.07 (validate's mechanism case)"},
	} {
		m := &Model{System: System{K: 5, Load: 0.9}, Period: c.T}
		fp, err := FixedPoint(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		mech, err := MechanismAt(m, fp.Board, 100, 10)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(mech.Factor-c.factor) > c.tol || mech.TopUp != -4 {
			t.Errorf("T = %v: factor %.3f (top-up %v), want %v ± %v (%s)", c.T, mech.Factor, mech.TopUp, c.factor, c.tol, c.provenance)
		}
		// The groups' means against the map's next board.
		mp, _ := NewMap(m)
		r, err := mp.Apply(disturb(fp.Board, half, 10, 0))
		if err != nil {
			t.Fatal(err)
		}
		approx.Check(t, "½(low + high) against the next board's mean", 0.5*(mech.NextLow+mech.NextHigh), r.BoardMean, 1e-9, 0)
		if mech.ScaledRange < 2 || mech.ScaledRange > 4 {
			t.Errorf("T = %v: (max − min)·(1 − λ) = %.2f at N = 100", c.T, mech.ScaledRange)
		}
	}
}
