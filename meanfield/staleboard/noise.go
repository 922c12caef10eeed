package staleboard

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/fixedpoint"
)

// noiseSupportTol is the class mass below which a class's contribution to
// the finite-N noise is left out (its weight in the covariance is below
// it).
const noiseSupportTol = 1e-12

// classLaws returns, for each class b of board p (its last non-zero class
// top), the law at T of a server whose board reads b, under the passes s:
// pure death until t_b, then the passes b..V (classes above V: pure death
// over [0, T]). Classes lighter than noiseSupportTol get nil.
func (m *Map) classLaws(p []float64, top int, s *passes) [][]float64 {
	T := m.Period
	out := make([][]float64, top+1)
	for c := 0; c <= top; c++ {
		if p[c] <= noiseSupportTol {
			continue
		}
		if c > s.V {
			out[c], _ = deathFrom(c, T)
			continue
		}
		x, _ := deathFrom(c, s.t[c])
		for u := c; u <= s.V; u++ {
			L, tau := s.L[u], s.L[u]
			if u == s.V {
				tau = T - s.t[u]
			}
			if L > 0 {
				x, _, _ = m.pass(x, L, tau)
			}
		}
		out[c] = x
	}
	return out
}

// boundaryResponse returns, for v = 1..V+1, the derivative of the next
// board with respect to the pass boundary t_v of every dispatcher at once
// (pass v−1 ends later, pass v starts later, every other boundary fixed;
// v = V+1 is the end of the pass in progress at T), by central differences,
// one-sided where only one way is open: a neighbouring pass is empty, the
// boundary t_V sits at T (moving it later would end the schedule's pass in
// progress, and T − t_V would turn negative), or the end t_{V+1} of the
// pass in progress is at T. Entry v−1 holds ∂Φ/∂t_v over queue lengths
// 0..len−1 (nil where the boundary cannot move either way). A schedule
// with a boundary outside [0, T] or not finite is an error.
func (m *Map) boundaryResponse(p []float64, top int, s *passes) ([][]float64, int, error) {
	T := m.Period
	V := s.V
	for v := 0; v <= V; v++ {
		if !(s.t[v] >= 0 && s.t[v] <= T) || !(s.L[v] >= 0) || math.IsInf(s.L[v], 0) {
			return nil, 0, errSchedule
		}
	}
	evals := 0
	eval := func(v int, e float64) []float64 {
		evals++
		q := passes{t: append([]float64(nil), s.t...), L: append([]float64(nil), s.L...), V: V}
		if v <= V {
			q.t[v] += e
			q.L[v-1] += e
			q.L[v] -= e
		} else {
			q.L[V] += e
		}
		var r MapResult
		m.evolve(p, top, &q, &r)
		return r.Next
	}
	const step = 1e-3
	out := make([][]float64, V+1)
	for v := 1; v <= V+1; v++ {
		// How far the boundary may move later and earlier.
		var later, earlier float64
		if v <= V {
			later, earlier = s.L[v], s.L[v-1]
			if v == V {
				later = math.Min(later, T-s.t[V])
			}
		} else {
			later, earlier = math.Inf(1), s.t[V]+s.L[V]-T
		}
		var a, b []float64
		var h float64
		switch eps := math.Min(step, math.Min(later, earlier)/4); {
		case eps > 0:
			a, b, h = eval(v, eps), eval(v, -eps), 2*eps
		case later > 0:
			eps = math.Min(step, later/4)
			a, b, h = eval(v, eps), eval(v, 0), eps
		case earlier > 0:
			eps = math.Min(step, earlier/4)
			a, b, h = eval(v, 0), eval(v, -eps), eps
		default:
			continue
		}
		g := make([]float64, max(len(a), len(b)))
		for i := range g {
			g[i] = (entry(a, i) - entry(b, i)) / h
		}
		out[v-1] = g
	}
	return out, evals, nil
}

// errSchedule says a board's pass schedule came out outside the period.
var errSchedule = errorString("staleboard: a pass boundary of the board's schedule lies outside the refresh period")

// boundaryTimes returns t_1..t_{V+1}, the times of the boundaries whose
// responses boundaryResponse gives.
func (s *passes) boundaryTimes() []float64 {
	return append(append([]float64(nil), s.t[1:s.V+1]...), s.t[s.V]+s.L[s.V])
}

// Noise is the one-period noise of the board of a system with N servers,
// to first order in 1/√N: the next board is Φ_T(p) + ξ/√N with ξ centred
// and Cov(ξ) = Mult + Timing (see the package documentation, "Finite N"),
// over queue lengths 0..Dim−1.
type Noise struct {
	Dim          int
	Mult, Timing *mat.SymDense
	// resp and times are the boundary responses G_v = ∂Φ/∂t_v and the
	// boundary times t_v they were taken at (boundaryResponse,
	// passes.boundaryTimes).
	resp  [][]float64
	times []float64
	// Evaluations counts the period evolutions computed (one per class
	// law set, two per boundary response).
	Evaluations int
}

// BoardNoise computes the one-period noise of the next board from board p
// (a distribution) for the model (Period > 0).
func BoardNoise(m *Model, p []float64) (*Noise, error) {
	mp, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	if err := m.checkExponential(); err != nil {
		return nil, err
	}
	return mp.boardOnly().noise(p)
}

// Covariance returns Mult + Timing.
func (nz *Noise) Covariance() *mat.SymDense {
	c := mat.NewSymDense(nz.Dim, nil)
	c.AddSym(nz.Mult, nz.Timing)
	return c
}

// noise computes the one-period covariance of the next board from board p.
func (m *Map) noise(p []float64) (*Noise, error) {
	mass, err := checkBoard(p)
	if err != nil {
		return nil, err
	}
	top := boardTop(p)
	s := m.schedule(p, top, mass)
	laws := m.classLaws(p, top, &s)
	resp, evals, err := m.boundaryResponse(p, top, &s)
	if err != nil {
		return nil, err
	}
	dim := 0
	for _, l := range laws {
		dim = max(dim, len(l))
	}
	for _, g := range resp {
		dim = max(dim, len(g))
	}
	nz := &Noise{Dim: dim, Mult: mat.NewSymDense(dim, nil), Timing: mat.NewSymDense(dim, nil), Evaluations: evals + 1}
	// Given the passes, servers evolve independently: the next board is a
	// sum of multinomials, Σ_b p_b·(diag P_b − P_b P_bᵀ).
	for b, l := range laws {
		for i, pi := range l {
			if pi == 0 {
				continue
			}
			nz.Mult.SetSym(i, i, nz.Mult.At(i, i)+p[b]*pi)
			for j := i; j < len(l); j++ {
				nz.Mult.SetSym(i, j, nz.Mult.At(i, j)-p[b]*pi*l[j])
			}
		}
	}
	// The passes themselves move: each dispatcher's clock runs ahead or
	// behind by a Brownian offset of variance k·t/(λN) (its Poisson count
	// of arrivals). With Δ_j = t_j − t_{j−1} and H_j = Σ_{v≥j} ∂Φ/∂t_v,
	// Cov = (1/λ)·Σ_j Δ_j·H_j H_jᵀ.
	bt := s.boundaryTimes()
	nz.resp, nz.times = resp, bt
	h := make([]float64, dim)
	for j := len(bt) - 1; j >= 0; j-- {
		for i, g := range resp[j] {
			h[i] += g
		}
		prev := 0.0
		if j > 0 {
			prev = bt[j-1]
		}
		w := (bt[j] - prev) / m.Load
		if w == 0 {
			continue
		}
		for i := range h {
			if h[i] == 0 {
				continue
			}
			for k := i; k < dim; k++ {
				nz.Timing.SetSym(i, k, nz.Timing.At(i, k)+w*h[i]*h[k])
			}
		}
	}
	return nz, nil
}

// meanVariance returns the one-period variance (×N) of the next board
// mean from board p: Var = Σ_b p_b·Var_b(q) + (1/λ)·Σ_j Δ_j·(Σ_{v≥j} ∂m/∂t_v)²,
// the board-mean projection of noise, computed without the matrices; and
// the number of period evolutions it took.
func (m *Map) meanVariance(p []float64) (float64, int, error) {
	mass, err := checkBoard(p)
	if err != nil {
		return 0, 0, err
	}
	top := boardTop(p)
	s := m.schedule(p, top, mass)
	var v float64
	for b, l := range m.classLaws(p, top, &s) {
		var e1, e2 float64
		for q, pq := range l {
			e1 += float64(q) * pq
			e2 += float64(q*q) * pq
		}
		if l != nil {
			v += p[b] * (e2 - e1*e1)
		}
	}
	bt := s.boundaryTimes()
	resp, evals, err := m.boundaryResponse(p, top, &s)
	if err != nil {
		return 0, 0, err
	}
	var hj float64
	for j := len(bt) - 1; j >= 0; j-- {
		hj += Mean(resp[j])
		prev := 0.0
		if j > 0 {
			prev = bt[j-1]
		}
		v += (bt[j] - prev) / m.Load * hj * hj
	}
	return v, evals + 1, nil
}

// noiseOn is the one-period noise Σ (multinomial plus timing) on the
// classes of jac.Index, the reduced coordinates a Jacobian was computed
// in (zero where a class lies beyond the noise's support).
func noiseOn(jac *fixedpoint.Jacobian, nz *Noise) *mat.SymDense {
	d := len(jac.Index)
	sig := mat.NewSymDense(d, nil)
	for i, ci := range jac.Index {
		for j := i; j < d; j++ {
			cj := jac.Index[j]
			if ci < nz.Dim && cj < nz.Dim {
				sig.SetSym(i, j, nz.Mult.At(ci, cj)+nz.Timing.At(ci, cj))
			}
		}
	}
	return sig
}
