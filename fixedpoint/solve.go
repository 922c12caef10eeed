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
	set, err := *s, error(nil)
	n := len(x0)
	x := append([]float64(nil), x0...)
	var total float64
	for _, v := range x {
		total += v
	}
	fx := make([]float64, n)
	res := &Result{X: x}
	eval := func(dst, at []float64) error {
		res.Evaluations++
		return f(dst, at)
	}
	if err := eval(fx, x); err != nil {
		if errors.Is(err, ErrDomain) {
			res.Status, res.Residual = outcome.OutOfDomain, math.Inf(1)
			return res, nil
		}
		return nil, err
	}
	r := make([]float64, n) // Φ(x) − x
	residual := func() float64 {
		for i := range r {
			r[i] = fx[i] - x[i]
		}
		return norm1(r)
	}
	best := math.Inf(1)
	cur := residual()
	record := func() {
		res.Residual = cur
		res.History = append(res.History, cur)
		if set.Recorder != nil {
			set.Recorder(res.Iterations, x, cur)
		}
	}
	done := func() bool {
		switch {
		case !param.AllFinite(fx) || math.IsNaN(cur):
			res.Status = outcome.NonFinite
		case cur <= set.Tol:
			res.Status = outcome.Converged
		case cur > set.DivergeFactor*best:
			res.Status = outcome.Diverged
		case res.Iterations >= set.MaxIter:
			res.Status = outcome.IterationLimit
		case set.Stagnation > 0 && stagnated(res.History, set.Stagnation):
			res.Status = outcome.Stalled
		default:
			best = math.Min(best, cur)
			return false
		}
		return true
	}
	res.Residual = cur
	if done() {
		return res, nil
	}
	switch set.Method {
	case Anderson:
		err = anderson(&set, eval, x, fx, r, total, &cur, residual, record, done, res)
	case Newton:
		err = newton(&set, eval, x, fx, r, total, &cur, residual, record, done, res)
	default:
		for {
			th := set.Damping
			for i := range x {
				x[i] = (1-th)*x[i] + th*fx[i]
			}
			if err = eval(fx, x); err != nil {
				break
			}
			res.Iterations++
			cur = residual()
			record()
			if done() {
				break
			}
		}
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
func anderson(set *Settings, eval func(dst, at []float64) error, x, fx, r []float64, total float64, cur *float64, residual func() float64, record func(), done func() bool, res *Result) error {
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
			project(xn, total)
		}
		copy(x, xn)
		if err := eval(fx, x); err != nil {
			return err
		}
		res.Iterations++
		old := *cur
		*cur = residual()
		record()
		if done() {
			return nil
		}
		if *cur > 10*old {
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
func newton(set *Settings, eval func(dst, at []float64) error, x, fx, r []float64, total float64, cur *float64, residual func() float64, record func(), done func() bool, res *Result) error {
	n := len(x)
	trial := make([]float64, n)
	ftrial := make([]float64, n)
	for {
		jac, ref, err := zeroSumJacobian(eval, x, fx, set.FDStep)
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
				project(trial, total)
			}
			if err := eval(ftrial, trial); err != nil {
				return err
			}
			var rt float64
			for i := range trial {
				rt += math.Abs(ftrial[i] - trial[i])
			}
			if rt < *cur {
				copy(x, trial)
				copy(fx, ftrial)
				improved = true
				break
			}
			lambda /= 2
		}
		res.Iterations++
		if !improved {
			*cur = residual()
			record()
			res.Status = outcome.Stalled
			return nil
		}
		*cur = residual()
		record()
		if done() {
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
