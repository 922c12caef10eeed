package queues

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
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
	fPrev, gPrev := make([]float64, n), make([]float64, n)
	// The last mem differences of f and of g, in a ring (cols[k] for the
	// k-th oldest), and the least-squares matrix's storage.
	ringF, ringG := make([][]float64, mem), make([][]float64, mem)
	for k := range ringF {
		ringF[k], ringG[k] = make([]float64, n), make([]float64, n)
	}
	head, count := 0, 0
	havePrev := false
	colsF, colsG := make([][]float64, 0, mem), make([][]float64, 0, mem)
	lsq := make([]float64, n*mem)
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
			count, havePrev = 0, false
		}
		best = math.Min(best, r)
		if havePrev {
			df, dg := ringF[head], ringG[head]
			for i := range df {
				df[i] = f[i] - fPrev[i]
				dg[i] = gx[i] - gPrev[i]
			}
			head = (head + 1) % mem
			count = min(count+1, mem)
		}
		havePrev = true
		copy(fPrev, f)
		copy(gPrev, gx)
		copy(x, gx)
		if count == 0 {
			continue
		}
		colsF, colsG = colsF[:0], colsG[:0]
		for k := range count {
			j := (head - count + k + mem) % mem
			colsF, colsG = append(colsF, ringF[j]), append(colsG, ringG[j])
		}
		gamma, ok := leastSquares(lsq, colsF, f)
		if !ok {
			count = 0
			continue
		}
		var sum float64
		for i := range x {
			v := gx[i]
			for k, c := range gamma {
				v -= c * colsG[k][i]
			}
			x[i] = max(v, 0)
			sum += x[i]
		}
		if !(sum > 0) || !param.Finite(sum) {
			copy(x, gx)
			count = 0
			continue
		}
		for i := range x {
			x[i] /= sum
		}
	}
	return gx, maxIter, best, outcome.IterationLimit
}

// leastSquares returns γ minimising ‖f − Σ_k γ_k·cols[k]‖₂ by a thin QR
// factorisation of the columns, modified Gram–Schmidt with one
// reorthogonalisation ("twice is enough": Giraud, Langou and Rozložník,
// Computers & Mathematics with Applications 50, 2005), in buf (at least
// len(f)·len(cols) long) so that an iteration allocates only m² numbers;
// ok is false if a column is, to 10⁻¹², in the span of the others.
func leastSquares(buf []float64, cols [][]float64, f []float64) ([]float64, bool) {
	n, m := len(f), len(cols)
	q := buf[:n*m]
	r := make([]float64, m*m)
	for k, c := range cols {
		qk := q[k*n : (k+1)*n]
		copy(qk, c)
		c0 := math.Sqrt(dot(qk, qk))
		for range 2 {
			for j := range k {
				qj := q[j*n : (j+1)*n]
				d := dot(qj, qk)
				r[j*m+k] += d
				for i := range qk {
					qk[i] -= d * qj[i]
				}
			}
		}
		nk := math.Sqrt(dot(qk, qk))
		if !(nk > 1e-12*c0) {
			return nil, false
		}
		r[k*m+k] = nk
		for i := range qk {
			qk[i] /= nk
		}
	}
	g := make([]float64, m)
	for k := range m {
		g[k] = dot(q[k*n:(k+1)*n], f)
	}
	for k := m - 1; k >= 0; k-- {
		v := g[k]
		for j := k + 1; j < m; j++ {
			v -= r[k*m+j] * g[j]
		}
		g[k] = v / r[k*m+k]
		if !param.Finite(g[k]) {
			return nil, false
		}
	}
	return g, true
}
