package jiq

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// StabilityClass classifies the stability of a fixed point (a property of
// the limit, not how a computation ended).
type StabilityClass int

const (
	// NotComputed means the analysis was skipped (see Stability.Note).
	NotComputed StabilityClass = iota
	// Stable: every eigenvalue has negative real part and every empty pool
	// is held at zero with a positive margin.
	Stable
	// Neutral: an eigenvalue or a margin is zero within 1e-9 (a continuum
	// of fixed points, or a fixed point on a switching surface).
	Neutral
	// Unstable: an eigenvalue has positive real part.
	Unstable
)

func (v StabilityClass) String() string {
	switch v {
	case NotComputed:
		return "not computed"
	case Stable:
		return "stable"
	case Neutral:
		return "neutral"
	case Unstable:
		return "unstable"
	}
	return fmt.Sprintf("StabilityClass(%d)", int(v))
}

// Stability is the local stability analysis of a fluid fixed point. The
// fluid ODE is piecewise smooth; at the fixed point each dispatcher's pool
// is either non-empty (its coordinate is free) or empty and held at zero
// (sliding). The smooth regime is the vector field with those modes fixed,
// restricted to the manifold where the conservation laws hold; its
// Jacobian's eigenvalues decide the stability of the free coordinates, and
// each empty pool is held at zero as long as its margin (demand minus
// token inflow, α_r·λ − inflow_r) is positive.
type Stability struct {
	Class StabilityClass
	// Eigenvalues of the Jacobian of the smooth regime on the conserved
	// manifold, by decreasing real part.
	Eigenvalues []complex128
	// Abscissa is the largest real part of the eigenvalues (−Inf if the
	// smooth regime has no free coordinate).
	Abscissa float64
	// Margins are α_r·λ − inflow_r for dispatchers with an empty pool, and
	// 0 for the others, in the order of Model.Alpha.
	Margins []float64
	// Note explains a NotComputed or Neutral class.
	Note string
}

// maxStabilityDim bounds the dense eigenproblem, whose cost grows like
// its dimension cubed: 0.9 s at imax = 500, 3.8 s at 1,000 and 26 s at
// 2,000 for fluid jiq --scenario queueing --load 0.5 --imax N (2 cores).
const maxStabilityDim = 1000

// stabilityTol separates zero from non-zero eigenvalue real parts and
// margins: the Jacobian comes from central differences of a vector field
// that is at most quadratic (exact up to rounding, about 1e-12).
const stabilityTol = 1e-9

// smoothRegime describes the smooth regime at a fixed point: the system
// with the fixed point's modes, the fixed-point state, and the tangent
// direction of each free coordinate (the change of the dependent
// coordinates that keeps the conservation laws).
type smoothRegime struct {
	sys  *jiqSystem
	st   []float64
	free []int
	dirs [][]float64
}

func (m *Model) smoothRegime(lim *LimitResult) *smoothRegime {
	sys := m.newSystem(lim.IMax)
	copy(sys.empty, lim.Empty)
	st := make([]float64, sys.dim)
	if m.Scenario == Blocking {
		st[0] = lim.Busy
	} else {
		copy(st, lim.Occupancy)
	}
	copy(st[sys.xoff:], lim.Tokens)
	sr := &smoothRegime{sys: sys, st: st}
	var nonEmpty []int
	for r := range sys.R {
		if !lim.Empty[r] {
			nonEmpty = append(nonEmpty, r)
		}
	}
	// The tangent directions are dense vectors of the state's dimension,
	// one per free coordinate: built only where the eigenproblem will be
	// solved (at imax = 30,000 they would need 7 GB).
	nfree := len(nonEmpty)
	if m.Scenario == Queueing && nfree > 0 {
		nfree += sys.imax - 1
	}
	add := func(coord int, entries map[int]float64) {
		if nfree > maxStabilityDim {
			sr.free = append(sr.free, coord)
			return
		}
		d := make([]float64, sys.dim)
		for k, v := range entries {
			d[k] = v
		}
		sr.free = append(sr.free, coord)
		sr.dirs = append(sr.dirs, d)
	}
	if m.Scenario == Blocking {
		for _, r := range nonEmpty {
			add(sys.xoff+r, map[int]float64{sys.xoff + r: 1, 0: -1})
		}
		return sr
	}
	// y₀ = 1 − Σ_{i≥1} y_i, and the last non-empty pool takes up
	// Σ_r x_r = y₀. (At a queueing fixed point y₀ = 1 − λ > 0, so some
	// pool is non-empty.)
	if len(nonEmpty) == 0 {
		// Every pool empty (λ within rounding of 1): no smooth regime.
		return sr
	}
	last := sys.xoff + nonEmpty[len(nonEmpty)-1]
	for i := 1; i <= sys.imax; i++ {
		add(i, map[int]float64{i: 1, 0: -1, last: -1})
	}
	for _, r := range nonEmpty[:len(nonEmpty)-1] {
		add(sys.xoff+r, map[int]float64{sys.xoff + r: 1, last: -1})
	}
	return sr
}

// jacobian returns the Jacobian of the smooth regime in the free
// coordinates, by central differences along each tangent direction. The
// vector field is linear (Blocking) or quadratic (Queueing) in the state,
// so central differences are exact up to rounding.
func (sr *smoothRegime) jacobian() *mat.Dense {
	const h = 1e-4
	n, dim := len(sr.free), sr.sys.dim
	jac := mat.NewDense(n, n, nil)
	plus, minus := make([]float64, dim), make([]float64, dim)
	fp, fm := make([]float64, dim), make([]float64, dim)
	for j, d := range sr.dirs {
		for k := range sr.st {
			plus[k] = sr.st[k] + h*d[k]
			minus[k] = sr.st[k] - h*d[k]
		}
		sr.sys.f(fp, 0, plus)
		sr.sys.f(fm, 0, minus)
		for i, fi := range sr.free {
			jac.Set(i, j, (fp[fi]-fm[fi])/(2*h))
		}
	}
	return jac
}

func (m *Model) stability(lim *LimitResult) Stability {
	sr := m.smoothRegime(lim)
	sys := sr.sys
	out := Stability{Margins: make([]float64, sys.R), Abscissa: math.Inf(-1)}
	for r := range sys.R {
		if lim.Empty[r] {
			out.Margins[r] = m.Alpha[r]*m.Load - sys.inflow(r, sr.st)
		}
	}
	n := len(sr.free)
	if n > maxStabilityDim {
		out.Note = fmt.Sprintf("smooth regime has %d free coordinates (more than %d): eigenvalues not computed", n, maxStabilityDim)
		return out
	}
	if n > 0 {
		var eig mat.Eigen
		if !eig.Factorize(sr.jacobian(), mat.EigenNone) {
			out.Note = "eigenvalue decomposition did not converge"
			return out
		}
		vals := eig.Values(nil)
		sort.Slice(vals, func(a, b int) bool { return real(vals[a]) > real(vals[b]) })
		out.Eigenvalues = vals
		out.Abscissa = real(vals[0])
	}
	// Margins relative to the dispatcher's demand α_r·λ: the verdict is
	// the same at every load (an absolute test called every margin of a
	// tiny load zero).
	minMargin := math.Inf(1)
	for r := range sys.R {
		if lim.Empty[r] {
			minMargin = math.Min(minMargin, out.Margins[r]/(m.Alpha[r]*m.Load))
		}
	}
	switch {
	case out.Abscissa > stabilityTol:
		out.Class = Unstable
	case out.Abscissa >= -stabilityTol:
		out.Class = Neutral
		out.Note = "zero eigenvalue: a continuum of fixed points (the token split depends on the initial state)"
	case minMargin <= stabilityTol:
		out.Class = Neutral
		out.Note = "an empty token pool sits on its switching surface (zero margin)"
	default:
		out.Class = Stable
	}
	return out
}
