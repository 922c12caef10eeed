package fixedpoint

import (
	"errors"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

func norm1(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}

// project sets negative entries to zero and rescales to total.
func project(x []float64, total float64) {
	var s float64
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
		s += x[i]
	}
	if s > 0 {
		f := total / s
		for i := range x {
			x[i] *= f
		}
	}
}

// Solve finds a fixed point x = Φ(x) from x0. The returned error is
// non-nil for invalid settings or an error from f; a run that ends without
// converging has a Status whose Err is non-nil (and is not an error here).
func Solve(f Func, x0 []float64, s *Settings) (*Result, error) {
	set, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := solve(f, x0, &set)
	if res != nil {
		res.Elapsed = time.Since(start)
	}
	return res, err
}

// solve is Solve with the settings' defaults filled in.
func solve(f Func, x0 []float64, s *Settings) (*Result, error) {
	it := newIteration(f, x0, s)
	res := it.res
	if err := it.eval(it.fx, it.x); err != nil {
		if errors.Is(err, ErrDomain) {
			res.Status, res.Residual = outcome.OutOfDomain, math.Inf(1)
			return res, nil
		}
		return nil, err
	}
	it.cur = it.residual()
	res.Residual = it.cur
	if it.done() {
		return res, nil
	}
	var err error
	switch it.set.Method {
	case Anderson:
		err = it.anderson()
	case Newton:
		err = it.newton()
	default:
		err = it.picard()
	}
	if errors.Is(err, ErrDomain) {
		res.Status = outcome.OutOfDomain
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// iteration is the state of one solve: the iterate x, Φ(x) in fx and the
// residual Φ(x) − x in r, its norm cur and the best norm before it.
type iteration struct {
	set       Settings
	f         Func
	x, fx, r  []float64
	total     float64 // Σ x₀, which the simplex projection keeps
	cur, best float64
	res       *Result
}

func newIteration(f Func, x0 []float64, s *Settings) *iteration {
	n := len(x0)
	x := append([]float64(nil), x0...)
	var total float64
	for _, v := range x {
		total += v
	}
	return &iteration{set: *s, f: f, x: x, fx: make([]float64, n), r: make([]float64, n),
		total: total, best: math.Inf(1), res: &Result{X: x}}
}

// eval evaluates Φ, counting the evaluation.
func (it *iteration) eval(dst, at []float64) error {
	it.res.Evaluations++
	return it.f(dst, at)
}

// residual sets r = Φ(x) − x and returns its norm.
func (it *iteration) residual() float64 {
	for i := range it.r {
		it.r[i] = it.fx[i] - it.x[i]
	}
	return norm1(it.r)
}

// record adds the current residual to the history.
func (it *iteration) record() {
	res := it.res
	res.Residual = it.cur
	res.History = append(res.History, it.cur)
	if it.set.Recorder != nil {
		it.set.Recorder(res.Iterations, it.x, it.cur)
	}
}

// done sets the Status and reports true once the iteration ends.
func (it *iteration) done() bool {
	res, set, cur := it.res, &it.set, it.cur
	switch {
	case !param.AllFinite(it.fx) || math.IsNaN(cur):
		res.Status = outcome.NonFinite
	case cur <= set.Tol:
		res.Status = outcome.Converged
	case cur > set.DivergeFactor*it.best:
		res.Status = outcome.Diverged
	case res.Iterations >= set.MaxIter:
		res.Status = outcome.IterationLimit
	case set.Stagnation > 0 && stagnated(res.History, set.Stagnation):
		res.Status = outcome.Stalled
	default:
		it.best = math.Min(it.best, cur)
		return false
	}
	return true
}

// picard runs damped plain iteration x ← (1 − θ)x + θΦ(x).
func (it *iteration) picard() error {
	x, fx := it.x, it.fx
	for {
		th := it.set.Damping
		for i := range x {
			x[i] = (1-th)*x[i] + th*fx[i]
		}
		if err := it.eval(fx, x); err != nil {
			return err
		}
		it.res.Iterations++
		it.cur = it.residual()
		it.record()
		if it.done() {
			return nil
		}
	}
}

// stagnated reports whether the best residual of the last w iterations is
// more than half the best residual before them.
func stagnated(h []float64, w int) bool {
	if len(h) <= w {
		return false
	}
	before, recent := math.Inf(1), math.Inf(1)
	for i, r := range h {
		if i < len(h)-w {
			before = math.Min(before, r)
		} else {
			recent = math.Min(recent, r)
		}
	}
	return recent > 0.5*before
}

// anderson runs Anderson acceleration (type II) with restarts when the
// least-squares problem degenerates or the residual jumps.
func (it *iteration) anderson() error {
	set, x, fx, r, res := &it.set, it.x, it.fx, it.r, it.res
	n := len(x)
	m := set.Memory
	var dF, dG [][]float64 // differences of residuals and of Φ values
	prevR := append([]float64(nil), r...)
	prevG := append([]float64(nil), fx...)
	xn := make([]float64, n)
	for {
		// x_{k+1} = Φ(x_k) − ΔG·γ, γ = argmin ‖r_k − ΔF·γ‖₂.
		copy(xn, fx)
		if len(dF) > 0 {
			a := mat.NewDense(n, len(dF), nil)
			for j := range dF {
				for i := range n {
					a.Set(i, j, dF[j][i])
				}
			}
			var gamma mat.VecDense
			if err := gamma.SolveVec(a, mat.NewVecDense(n, append([]float64(nil), r...))); err == nil && param.AllFinite(gamma.RawVector().Data) {
				for j := range dG {
					g := gamma.AtVec(j)
					for i := range xn {
						xn[i] -= g * dG[j][i]
					}
				}
			} else {
				dF, dG = dF[:0], dG[:0]
			}
		}
		if set.Simplex {
			project(xn, it.total)
		}
		copy(x, xn)
		if err := it.eval(fx, x); err != nil {
			return err
		}
		res.Iterations++
		old := it.cur
		it.cur = it.residual()
		it.record()
		if it.done() {
			return nil
		}
		if it.cur > 10*old {
			// The extrapolation misled: restart from plain iteration.
			dF, dG = dF[:0], dG[:0]
		} else {
			df := make([]float64, n)
			dg := make([]float64, n)
			for i := range n {
				df[i] = r[i] - prevR[i]
				dg[i] = fx[i] - prevG[i]
			}
			dF = append(dF, df)
			dG = append(dG, dg)
			if len(dF) > m {
				dF, dG = dF[1:], dG[1:]
			}
		}
		copy(prevR, r)
		copy(prevG, fx)
	}
}

// newton runs Newton's method on x − Φ(x) = 0 in the zero-sum subspace.
func (it *iteration) newton() error {
	set, x, fx, r, res := &it.set, it.x, it.fx, it.r, it.res
	n := len(x)
	trial := make([]float64, n)
	ftrial := make([]float64, n)
	for {
		jac, ref, err := zeroSumJacobian(it.eval, x, fx, set.FDStep)
		if err != nil {
			return err
		}
		// (I − J)δ = r in coordinates of the basis e_i − e_ref.
		m := n - 1
		a := mat.NewDense(m, m, nil)
		b := mat.NewVecDense(m, nil)
		for i := range m {
			for j := range m {
				v := -jac.At(i, j)
				if i == j {
					v++
				}
				a.Set(i, j, v)
			}
			b.SetVec(i, r[coord(i, ref)])
		}
		var d mat.VecDense
		if err := d.SolveVec(a, b); err != nil {
			res.Status = outcome.Stalled
			return nil
		}
		step := make([]float64, n)
		for i := range m {
			step[coord(i, ref)] = d.AtVec(i)
			step[ref] -= d.AtVec(i)
		}
		// Backtracking on the residual.
		lambda := 1.0
		improved := false
		for range 30 {
			for i := range x {
				trial[i] = x[i] + lambda*step[i]
			}
			if set.Simplex {
				project(trial, it.total)
			}
			if err := it.eval(ftrial, trial); err != nil {
				return err
			}
			var rt float64
			for i := range trial {
				rt += math.Abs(ftrial[i] - trial[i])
			}
			if rt < it.cur {
				copy(x, trial)
				copy(fx, ftrial)
				improved = true
				break
			}
			lambda /= 2
		}
		res.Iterations++
		if !improved {
			it.cur = it.residual()
			it.record()
			res.Status = outcome.Stalled
			return nil
		}
		it.cur = it.residual()
		it.record()
		if it.done() {
			return nil
		}
	}
}

// coord maps a reduced coordinate (0..n−2) to the full index, skipping ref.
func coord(i, ref int) int {
	if i >= ref {
		return i + 1
	}
	return i
}

// zeroSumJacobian returns the Jacobian of Φ at x on zero-sum perturbations,
// in the basis d_j = e_j − e_ref (ref the largest entry of x, j ≠ ref), by
// forward differences Φ(x + h·d_j) − Φ(x): a forward step adds mass at
// e_j, so it stays feasible where x_j = 0 (there the map is only one-sidedly
// differentiable). Entry (i, j) is the i-th basis coordinate of J·d_j,
// which for a zero-sum vector is simply its entry at coord(i).
func zeroSumJacobian(eval func(dst, at []float64) error, x, fx []float64, h float64) (*mat.Dense, int, error) {
	n := len(x)
	ref := 0
	for i, v := range x {
		if v > x[ref] {
			ref = i
		}
	}
	if x[ref] < 2*h {
		h = x[ref] / 2
	}
	m := n - 1
	jac := mat.NewDense(m, m, nil)
	xp := make([]float64, n)
	fp := make([]float64, n)
	for j := range m {
		c := coord(j, ref)
		copy(xp, x)
		xp[c] += h
		xp[ref] -= h
		if err := eval(fp, xp); err != nil {
			return nil, 0, err
		}
		for i := range m {
			ci := coord(i, ref)
			jac.Set(i, j, (fp[ci]-fx[ci])/h)
		}
	}
	return jac, ref, nil
}
