package queues

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"gonum.org/v1/gonum/mat"
)

// anderson finds the fixed point of the map g on probability vectors by
// Anderson acceleration (type II, Walker and Ni, "Anderson acceleration
// for fixed-point iterations", SIAM J. Numer. Anal. 49(4), 2011): with
// f_k = g(x_k) − x_k, the next iterate is g(x_k) − ΔG·γ, γ minimising
// ‖f_k − ΔF·γ‖₂ over the last mem differences of f and g. An
// extrapolated point has its negative entries set to zero and is
// rescaled to total 1; the history is dropped whenever the residual
// exceeds ten times the best so far. It stops once ‖f_k‖₁ ≤ tol
// (Converged), after maxIter maps (IterationLimit), on a non-finite value
// (NonFinite) or when run is stopped (Interrupted); it returns the last
// image g(x_k), the maps evaluated and the last residual.
func anderson(g func(dst, x []float64), x0 []float64, mem int, tol float64, maxIter int, run outcome.Run) ([]float64, int, float64, outcome.Status) {
	n := len(x0)
	x := append([]float64(nil), x0...)
	gx := make([]float64, n)
	f := make([]float64, n)
	var dF, dG [][]float64
	var fPrev, gPrev []float64
	best := math.Inf(1)
	for it := 1; it <= maxIter; it++ {
		if run.Stopped() {
			return gx, it - 1, best, outcome.Interrupted
		}
		g(gx, x)
		var r float64
		for i := range f {
			f[i] = gx[i] - x[i]
			r += math.Abs(f[i])
		}
		if !param.Finite(r) {
			return gx, it, r, outcome.NonFinite
		}
		run.Report(int64(it), int64(maxIter), "")
		if r <= tol {
			return gx, it, r, outcome.Converged
		}
		if r > 10*best {
			dF, dG, fPrev = nil, nil, nil
		}
		best = math.Min(best, r)
		if fPrev != nil {
			df, dg := make([]float64, n), make([]float64, n)
			for i := range df {
				df[i] = f[i] - fPrev[i]
				dg[i] = gx[i] - gPrev[i]
			}
			dF, dG = append(dF, df), append(dG, dg)
			if len(dF) > mem {
				dF, dG = dF[1:], dG[1:]
			}
		} else {
			fPrev, gPrev = make([]float64, n), make([]float64, n)
		}
		copy(fPrev, f)
		copy(gPrev, gx)
		copy(x, gx)
		if len(dF) == 0 {
			continue
		}
		gamma, ok := leastSquares(dF, f)
		if !ok {
			dF, dG = nil, nil
			continue
		}
		var sum float64
		for i := range x {
			v := gx[i]
			for k, c := range gamma {
				v -= c * dG[k][i]
			}
			x[i] = max(v, 0)
			sum += x[i]
		}
		if !(sum > 0) || !param.Finite(sum) {
			copy(x, gx)
			dF, dG = nil, nil
			continue
		}
		for i := range x {
			x[i] /= sum
		}
	}
	return gx, maxIter, best, outcome.IterationLimit
}

// leastSquares returns γ minimising ‖f − Σ_k γ_k·cols[k]‖₂, by gonum's QR
// solve; ok is false if the columns are rank deficient.
func leastSquares(cols [][]float64, f []float64) ([]float64, bool) {
	n, m := len(f), len(cols)
	a := mat.NewDense(n, m, nil)
	for k, c := range cols {
		a.SetCol(k, c)
	}
	var qr mat.QR
	qr.Factorize(a)
	var g mat.Dense
	if err := qr.SolveTo(&g, false, mat.NewDense(n, 1, f)); err != nil {
		return nil, false
	}
	out := make([]float64, m)
	for k := range out {
		out[k] = g.At(k, 0)
		if !param.Finite(out[k]) {
			return nil, false
		}
	}
	return out, true
}
