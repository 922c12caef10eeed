package queues

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// The QR least squares recovers an exact combination (to rounding, 1e-13)
// and refuses dependent columns.
func TestLeastSquares(t *testing.T) {
	c0 := []float64{1, 0, 1, 2}
	c1 := []float64{0, 1, 1, -1}
	f := make([]float64, 4)
	for i := range f {
		f[i] = 2*c0[i] - 3*c1[i]
	}
	g, ok := leastSquares(make([]float64, 8), [][]float64{c0, c1}, f)
	if !ok {
		t.Fatal("refused")
	}
	near(t, "γ₀", g[0], 2, 1e-13, 0)
	near(t, "γ₁", g[1], -3, 1e-13, 0)
	if _, ok := leastSquares(make([]float64, 8), [][]float64{c0, c0}, f); ok {
		t.Error("dependent columns accepted")
	}
}

// Anderson on a slowly mixing two-state chain (x ↦ x·P with switching
// probabilities 10⁻⁴ and 3·10⁻⁴: plain iteration contracts by 1 − 4·10⁻⁴)
// reaches the stationary law (¾, ¼) in a handful of maps; to Tol 1e-13.
func TestAnderson(t *testing.T) {
	g := func(dst, x []float64) {
		dst[0] = x[0]*(1-1e-4) + x[1]*3e-4
		dst[1] = x[0]*1e-4 + x[1]*(1-3e-4)
	}
	x, it, _, st := anderson(g, []float64{1, 0}, 5, 1e-13, 100, outcome.Run{})
	if st != outcome.Converged || it > 10 {
		t.Fatalf("status %v after %d maps", st, it)
	}
	near(t, "π₀", x[0], 0.75, 1e-12, 0)
	if math.Abs(x[0]+x[1]-1) > 1e-14 {
		t.Errorf("mass %v", x[0]+x[1])
	}
}
