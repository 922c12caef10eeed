package staleboard

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// RefinedSettings control Refined. A nil pointer or a zero field means the
// documented default.
type RefinedSettings struct {
	// Start is the board the balanced fixed point is solved from (default:
	// the empty board, FixedPoint's default).
	Start []float64
	// Blocks bounds the number of groups of pass boundaries on which the
	// dispatchers' clock noise is resolved for the bias term (default
	// DefaultRefinedBlocks): with more passes than that, the clock is
	// taken linear between the groups' ends.
	Blocks int
	// Servers, if positive, is N (per part with partitioned
	// dispatchers): the result then also holds SojournN, the mean time in
	// system at N with the clock's stretch over a period taken at its
	// spread at N, kinks included (see RefinedResult.SojournN).
	Servers int
	// NoBias leaves out the clock term b (the diagnostics that split the
	// correction into its parts).
	NoBias bool
}

// DefaultRefinedBlocks is the default RefinedSettings.Blocks: one group a
// pass up to T ≈ 1,100 at k = 1, λ = 0.9 (about 0.9·T passes), groups of
// three at T = 3,000. The clock's part inside a group is lost: at k = 1,
// λ = 0.9, T = 1,000 the sojourn's bias coefficient is 2.13, 2.53 and
// 2.88 with groups of 10, 4 and 1 pass (91, 227 and 905 groups), close to
// 3.23 − 0.35·√(passes a group) — so the clock inside a pass, which no
// grouping resolves, would add about 0.35 more (0.017 at N = 20).
const DefaultRefinedBlocks = 1000

// MaxRefinedBlocks bounds RefinedSettings.Blocks.
const MaxRefinedBlocks = 10_000

// RefinedResult is the refined (1/N) mean of the balanced state: with N
// servers (per part, for partitioned dispatchers) the stationary mean board
// is x* + V/N + O(1/N²) and the mean time in system
// Sojourn + SojournCoef/N + O(1/N²). See the package documentation,
// "The finite-N mean".
type RefinedResult struct {
	outcome.Outcome
	// Board is the balanced fixed point x* (its support down to 1e-12);
	// Sojourn and BoardMean are the N = ∞ mean time in system and board
	// mean there.
	Board              []float64
	Sojourn, BoardMean float64
	// V is the 1/N correction of the stationary board (zero-sum, over
	// queue lengths 0..len−1), BoardMeanCoef Σ b·V_b.
	V             []float64
	BoardMeanCoef float64
	// SojournCoef is the 1/N coefficient of the mean time in system,
	// SojournNoise + SojournBias: the part of the board's spread around
	// x* (its curvature against C, through V and the sojourn's own second
	// order) and the part of the bias b of the one-period mean (the
	// dispatchers' clocks), both carried through (I − J)⁻¹.
	SojournCoef, SojournNoise, SojournBias float64
	// StepError estimates the finite-difference error of SojournCoef: the
	// change when the steps of the board's modes and of the clock's
	// stretch are halved (the bridge's, 1e-3 of a pass boundary's time
	// deep inside its branch, are not re-run).
	StepError float64
	// Pass is the pass V in progress at T at x*; BorderGap the distance of
	// the nearest pass boundary to T, min(T − t_V, t_{V+1} − T), and
	// BorderSpread √N times the standard deviation of t_{V+1} − T at N
	// servers (board spread and clocks): the expansion in 1/N needs
	// BorderGap ≫ BorderSpread/√N, since the map is only piecewise smooth
	// and a kink within the noise adds a term of order 1/√N.
	Pass                    int
	BorderGap, BorderSpread float64
	// Modes is the number of eigenvectors of C the curvature term sums
	// over (eigenvalues above 1e-10 of the largest), Blocks the groups of
	// pass boundaries of the clock term.
	Modes, Blocks int
	// Servers and SojournN: with RefinedSettings.Servers = N > 0, the mean
	// time in system at N with the clock's stretch over the period
	// averaged over its spread at N (Gauss–Hermite, every change of the
	// pass in progress at T included) in place of its curvature term. Where
	// the spread of the cut, BorderSpread/√N, exceeds a pass, the kinks it
	// averages over make SojournN the better value; far below a pass the
	// two agree.
	// BoardMeanN is the stationary board mean at N the same way.
	Servers              int
	SojournN, BoardMeanN float64
}

// SojournAt returns the refined mean time in system with n servers (per
// part with partitioned dispatchers): Sojourn + SojournCoef/n; n ≤ 0 gives
// the N = ∞ value.
func (r *RefinedResult) SojournAt(n int) float64 {
	if n <= 0 {
		return r.Sojourn
	}
	return r.Sojourn + r.SojournCoef/float64(n)
}

// BoardMeanAt returns the refined stationary board mean with n servers.
func (r *RefinedResult) BoardMeanAt(n int) float64 {
	if n <= 0 {
		return r.BoardMean
	}
	return r.BoardMean + r.BoardMeanCoef/float64(n)
}

// Refined computes the refined mean of the balanced state of the model
// (exponential sizes, equal shares): the stable balanced fixed point x*
// (FixedPoint from Start), its Jacobian J on zero-sum perturbations, the
// one-period noise Σ (BoardNoise) and the stationary C = J·C·Jᵀ + Σ; then
//
//	V = (I − J)⁻¹·(½·Σ_m c_m·D²Φ[u_m, u_m] + b),
//
// (c_m, u_m) the eigenpairs of C and b the bias of the one-period mean at
// finite N (the dispatchers' Poisson clocks), and the mean time in system's
// coefficient ∇S·V + ½·Σ_m c_m·D²S[u_m, u_m] + b_S. Second derivatives are
// symmetric differences (package documentation, "The finite-N mean").
func Refined(m *Model, s *RefinedSettings) (*RefinedResult, error) {
	full, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	if err := m.checkExponential(); err != nil {
		return nil, err
	}
	var set RefinedSettings
	if s != nil {
		set = *s
	}
	if set.Blocks <= 0 {
		set.Blocks = DefaultRefinedBlocks
	}
	if set.Blocks > MaxRefinedBlocks {
		return nil, param.Errorf("Blocks", "%d groups of pass boundaries, want at most %d (two map evaluations each)", set.Blocks, MaxRefinedBlocks)
	}
	if set.Servers < 0 || set.Servers > MaxServers {
		return nil, param.Errorf("Servers", "%d servers, want 1..%d (or 0: the coefficients only)", set.Servers, MaxServers)
	}
	// The evaluations: the fixed point's solve, the noise's two per pass
	// (about λT/k passes at the balanced state, where F(v) is close to 1
	// above the lowest levels; twice that for margin), four per mode and
	// per group, the stretch's nodes.
	passes := int(2*m.Load*m.Period/float64(m.MapK())) + 64
	if err := m.checkWork("Period", 2000+2*passes+4*passes+4*set.Blocks+stretchNodes, m.Period); err != nil {
		return nil, err
	}
	t0 := time.Now()
	fp, err := FixedPoint(m, &FixedPointSettings{Start: set.Start})
	if err != nil {
		return nil, err
	}
	evals := fp.Evaluations
	if fp.Status != outcome.Converged {
		return nil, fmt.Errorf("staleboard: refined mean at T = %g: the balanced fixed point did not converge (%v): no balanced state to correct", m.Period, fp.Status)
	}
	n := support(fp.Board, noiseSupportTol)
	x := append([]float64(nil), fp.Board[:n]...)
	bo := full.boardOnly()
	nz, err := bo.noise(x)
	if err != nil {
		return nil, err
	}
	evals += nz.Evaluations
	f := &supportFunc{m: bo}
	jac, err := fixedpoint.ComputeJacobian(f.eval, x, nil)
	if err != nil {
		return nil, err
	}
	evals += jac.Evaluations
	d := len(jac.Index)
	sig := noiseOn(jac, nz)
	c, err := lyapunov(jac.J, sig)
	if err != nil {
		return nil, fmt.Errorf("staleboard: refined mean at T = %g: %w", m.Period, err)
	}
	r := &RefinedResult{Board: x}
	base, err := full.Apply(x)
	if err != nil {
		return nil, err
	}
	evals++
	r.Sojourn, r.BoardMean, r.Pass = base.Sojourn, Mean(x), base.Pass
	r.BorderGap = math.Min(m.Period-base.PassStart, base.PassEnd-m.Period)

	// The spread of t_{V+1} − T at N servers: the board's, through
	// t_{V+1} = (k/λ)·Σ_{v≤V} F(v), and the mean clock's, variance T/λ.
	kl := float64(full.K) / m.Load
	g := mat.NewVecDense(d, nil)
	for i, ci := range jac.Index {
		// ∂t_{V+1}/∂x_ci on e_ci − e_ref: (k/λ)·((V+1−ci)⁺ − (V+1−ref)⁺).
		g.SetVec(i, kl*(math.Max(0, float64(r.Pass+1-ci))-math.Max(0, float64(r.Pass+1-jac.Ref))))
	}
	var cg mat.VecDense
	cg.MulVec(c, g)
	gcg := mat.Dot(g, &cg)
	r.BorderSpread = math.Sqrt(gcg + m.Period/m.Load)
	// The board's spread moves the cut as a stretch of the schedule of
	// relative variance gᵀCg/(T²N) would, rhoBoard times the clock's
	// 1/(λTN).
	rhoBoard := m.Load * gcg / m.Period

	cs := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			cs.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cs, true) {
		return nil, errors.New("staleboard: refined mean: the eigendecomposition of the stationary covariance failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := 0.0
	for _, l := range vals {
		top = math.Max(top, l)
	}
	ev := refinedEval{mp: full, x: x, idx: jac.Index, ref: jac.Ref, base: base}
	// Curvature against C, at two steps for the error estimate.
	curv := func(scale float64) ([]float64, float64, int, error) {
		a := make([]float64, d)
		var aS float64
		modes := 0
		u := make([]float64, d)
		for mi, l := range vals {
			if l <= 1e-10*top {
				continue
			}
			modes++
			for i := range d {
				u[i] = vecs.At(i, mi)
			}
			dd, dS, err := ev.second(u, scale)
			if err != nil {
				return nil, 0, 0, err
			}
			for i := range d {
				a[i] += l / 2 * dd[i]
			}
			aS += l / 2 * dS
		}
		return a, aS, modes, nil
	}
	a, aS, modes, err := curv(1)
	if err != nil {
		return nil, err
	}
	a2, aS2, _, err := curv(0.5)
	if err != nil {
		return nil, err
	}
	r.Modes = modes
	// The parts of the right-hand side, each a board term on idx and the
	// mean time in system's own term: curvature, clock bridge, clock
	// stretch (asymptotic), and the stretch at Servers.
	type part struct {
		b  []float64
		bS float64
	}
	zero := part{b: make([]float64, d)}
	bridge, stretch, stretch2, stretchN := zero, zero, zero, zero
	if !set.NoBias {
		if bridge.b, bridge.bS, r.Blocks, err = ev.clockBridge(m.Load, set.Blocks, 1); err != nil {
			return nil, err
		}
		if stretch.b, stretch.bS, err = ev.clockStretch(1); err != nil {
			return nil, err
		}
		if stretch2.b, stretch2.bS, err = ev.clockStretch(0.5); err != nil {
			return nil, err
		}
		if set.Servers > 0 {
			if stretchN.b, stretchN.bS, err = ev.clockStretchAt(set.Servers, 1+rhoBoard); err != nil {
				return nil, err
			}
		}
	}
	ij := mat.NewDense(d, d, nil)
	ij.Scale(-1, jac.J)
	for i := range d {
		ij.Set(i, i, ij.At(i, i)+1)
	}
	var lu mat.LU
	lu.Factorize(ij)
	// carry returns (I − J)⁻¹·b on idx and the mean time in system's term
	// ∇S·(I − J)⁻¹·b + b_S.
	carry := func(p part) (*mat.VecDense, float64, error) {
		var v mat.VecDense
		if err := lu.SolveVecTo(&v, false, mat.NewVecDense(d, p.b)); err != nil {
			return nil, 0, fmt.Errorf("staleboard: refined mean: I − J is singular: %w", err)
		}
		gv, err := ev.gradient(v.RawVector().Data)
		if err != nil {
			return nil, 0, err
		}
		return &v, gv + p.bS, nil
	}
	va, ca, err := carry(part{a, aS})
	if err != nil {
		return nil, err
	}
	_, ca2, err := carry(part{a2, aS2})
	if err != nil {
		return nil, err
	}
	var vb, vs, vN *mat.VecDense
	var cb, cs1, cs2, cN float64
	for _, c := range []struct {
		p   part
		v   **mat.VecDense
		out *float64
	}{{bridge, &vb, &cb}, {stretch, &vs, &cs1}, {stretch2, nil, &cs2}, {stretchN, &vN, &cN}} {
		v, co, err := carry(c.p)
		if err != nil {
			return nil, err
		}
		if c.v != nil {
			*c.v = v
		}
		*c.out = co
	}
	r.SojournNoise, r.SojournBias = ca, cb+cs1
	r.SojournCoef = ca + cb + cs1
	r.StepError = math.Abs(ca2 + cb + cs2 - r.SojournCoef)
	r.Servers = set.Servers
	if set.Servers > 0 {
		// The stretch at N in place of its asymptotic term.
		r.SojournN = r.Sojourn + (ca-rhoBoard*cs1+cb)/float64(set.Servers) + cN
	}
	r.V = make([]float64, n)
	for i, ci := range jac.Index {
		vi := va.AtVec(i) + vb.AtVec(i) + vs.AtVec(i)
		r.V[ci] += vi
		r.V[jac.Ref] -= vi
	}
	r.BoardMeanCoef = Mean(r.V)
	if set.Servers > 0 {
		var ab, sn float64
		for i, ci := range jac.Index {
			ab += float64(ci-jac.Ref) * (va.AtVec(i) - rhoBoard*vs.AtVec(i) + vb.AtVec(i))
			sn += float64(ci-jac.Ref) * vN.AtVec(i)
		}
		r.BoardMeanN = r.BoardMean + ab/float64(set.Servers) + sn
	}
	for _, v := range []float64{r.SojournCoef, r.BoardMeanCoef, r.StepError, r.SojournN} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("staleboard: refined mean at T = %g: non-finite correction", m.Period)
		}
	}
	evals += ev.evals
	r.Outcome = outcome.Outcome{Status: outcome.Converged, Evaluations: evals, Elapsed: time.Since(t0)}
	return r, nil
}

// refinedEval evaluates the map around x* for the refined mean's
// differences: board (on the Jacobian's coordinates idx, ref absorbing the
// zero sum) and mean time in system.
type refinedEval struct {
	mp    *Map
	x     []float64
	idx   []int
	ref   int
	base  *MapResult
	evals int
}

// refinedStep is the largest step of the board differences, in ‖·‖₂ of the
// perturbation: the map's output is smooth to about 1e-16 (its terms are
// cut at 1e-30 relative and its tails at 1e-17 and 1e-20), so the
// symmetric second difference has a rounding error of about 1e-16/h² =
// 1e-10 and a truncation error of order h² = 1e-6 of the fourth derivative.
const refinedStep = 1e-3

// shifted returns x + h·δ with δ the zero-sum vector of u on idx.
func (e *refinedEval) shifted(u []float64, h float64) []float64 {
	y := append([]float64(nil), e.x...)
	for i, ci := range e.idx {
		y[ci] += h * u[i]
		y[e.ref] -= h * u[i]
	}
	return y
}

// step returns the step along u: refinedStep·scale, shrunk so that x ± h·u
// stays non-negative (at most half of every class) and no pass boundary
// comes within half its distance to T.
func (e *refinedEval) step(u []float64, scale float64) float64 {
	h := refinedStep * scale
	var sum float64
	for i, ci := range e.idx {
		sum += u[i]
		if u[i] != 0 {
			h = math.Min(h, e.x[ci]/(2*math.Abs(u[i])))
		}
	}
	if sum != 0 {
		h = math.Min(h, e.x[e.ref]/(2*math.Abs(sum)))
	}
	// t_v moves by (k/λ)·Σ_{w<v} ΔF(w): keep t_V below T and t_{V+1}
	// above it.
	V := e.base.Pass
	dF := make([]float64, V+2)
	for i, ci := range e.idx {
		if ci <= V+1 {
			dF[ci] += u[i]
		}
		if e.ref <= V+1 {
			dF[e.ref] -= u[i]
		}
	}
	kl := float64(e.mp.K) / e.mp.Load
	var F, tV, tV1 float64
	for w := 0; w <= V; w++ {
		F += dF[w]
		if w < V {
			tV += kl * F
		}
		tV1 += kl * F
	}
	T := e.mp.Period
	if tV != 0 {
		h = math.Min(h, (T-e.base.PassStart)/(2*math.Abs(tV)))
	}
	if tV1 != 0 {
		h = math.Min(h, (e.base.PassEnd-T)/(2*math.Abs(tV1)))
	}
	return h
}

// apply evaluates the map at y.
func (e *refinedEval) apply(y []float64) (*MapResult, error) {
	e.evals++
	return e.mp.Apply(y)
}

// second returns D²Φ[u, u] on idx and D²S[u, u] by the symmetric second
// difference with the step of step(u, scale).
func (e *refinedEval) second(u []float64, scale float64) ([]float64, float64, error) {
	h := e.step(u, scale)
	if h <= 0 {
		return nil, 0, errors.New("staleboard: refined mean: no room for a finite difference (a class or a pass boundary at its limit)")
	}
	rp, err := e.apply(e.shifted(u, h))
	if err != nil {
		return nil, 0, err
	}
	rm, err := e.apply(e.shifted(u, -h))
	if err != nil {
		return nil, 0, err
	}
	out := make([]float64, len(e.idx))
	for i, ci := range e.idx {
		out[i] = (entry(rp.Next, ci) + entry(rm.Next, ci) - 2*entry(e.base.Next, ci)) / (h * h)
	}
	return out, (rp.Sojourn + rm.Sojourn - 2*e.base.Sojourn) / (h * h), nil
}

// gradient returns ∇S·v by a central difference along v.
func (e *refinedEval) gradient(v []float64) (float64, error) {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		return 0, nil
	}
	u := make([]float64, len(v))
	for i := range v {
		u[i] = v[i] / norm
	}
	h := e.step(u, 1)
	rp, err := e.apply(e.shifted(u, h))
	if err != nil {
		return 0, err
	}
	rm, err := e.apply(e.shifted(u, -h))
	if err != nil {
		return 0, err
	}
	return norm * (rp.Sojourn - rm.Sojourn) / (2 * h), nil
}

// clockBridge returns the bridge part of b and b_S, the O(1/N) bias of
// the one-period mean of the board (on idx) and of the mean time in system
// that the dispatchers' Poisson clocks cause. The mean clock W (variance
// t/(λN) at t, independent increments) is its stretch (t/T)·W(T), taken
// by clockStretch, plus a bridge independent of it, pinned at 0 and T,
// whose covariance is Σ_j Δ_j/(λN)·(h_j − r)(h_j − r)ᵀ: h_j shifts every
// pass boundary from t_j on by 1, r shifts t_v by t_v/T. The part is
// ½·(1/λ)·Σ_j Δ_j·D²Φ[h_j − r, h_j − r], with the boundaries grouped into
// at most blocks groups (the clock linear within a group). It also returns
// the number of groups.
func (e *refinedEval) clockBridge(load float64, blocks int, scale float64) ([]float64, float64, int, error) {
	s := e.mp.schedule(e.x, boardTop(e.x), massOf(e.x))
	bt := s.boundaryTimes() // t_1..t_{V+1}
	nb := len(bt)
	per := (nb + blocks - 1) / blocks
	T := e.mp.Period
	V := s.V
	b := make([]float64, len(e.idx))
	var bS float64
	groups := 0
	shift := make([]float64, nb)
	for lo := 0; lo < nb; lo += per {
		hi := min(lo+per, nb) // the group's boundaries lo..hi−1 (indices into bt)
		groups++
		// The clock's increment over [t_lo−1, t_hi−1]: boundaries before
		// the group fixed, after it shifted by 1, inside it linearly;
		// less the stretch r.
		prev := 0.0
		if lo > 0 {
			prev = bt[lo-1]
		}
		span := bt[hi-1] - prev
		for j := range shift {
			switch {
			case j < lo:
				shift[j] = 0
			case j >= hi-1:
				shift[j] = 1
			default:
				shift[j] = (bt[j] - prev) / span
			}
			shift[j] -= bt[j] / T
		}
		// Room: every pass keeps at least three quarters of its length,
		// t_V stays below T and t_{V+1} above it.
		eps := 1e-3 * scale
		for v := 0; v <= V; v++ {
			left := 0.0
			if v > 0 {
				left = shift[v-1]
			}
			if dl := shift[v] - left; dl != 0 {
				eps = math.Min(eps, s.L[v]/(4*math.Abs(dl)))
			}
		}
		if V > 0 && shift[V-1] != 0 {
			eps = math.Min(eps, (T-s.t[V])/(4*math.Abs(shift[V-1])))
		}
		if shift[V] != 0 {
			eps = math.Min(eps, (s.t[V]+s.L[V]-T)/(4*math.Abs(shift[V])))
		}
		if eps <= 0 {
			return nil, 0, 0, errors.New("staleboard: refined mean: a pass boundary at T leaves no room for the clock's difference")
		}
		rp := e.evolveShifted(&s, shift, eps)
		rm := e.evolveShifted(&s, shift, -eps)
		w := span / load / 2
		for i, ci := range e.idx {
			b[i] += w * (entry(rp.Next, ci) + entry(rm.Next, ci) - 2*entry(e.base.Next, ci)) / (eps * eps)
		}
		bS += w * (rp.MeanQueue + rm.MeanQueue - 2*e.base.MeanQueue) / load / (eps * eps)
	}
	return b, bS, groups, nil
}

// stretched evaluates the period from x* with the mean clock stretched by
// 1 + ζ: every pass boundary t_v at (1 + ζ)·t_v, the schedule of load
// λ/(1 + ζ) (the passes recomputed, so the pass in progress at T may
// change), servers at rate 1. It returns the next board and the mean time
// in system (the mean queue over λ).
func (e *refinedEval) stretched(zeta float64) ([]float64, float64, error) {
	e.evals++
	mp := newMap(e.mp.K, e.mp.Load/(1+zeta), e.mp.Period)
	r, err := mp.Apply(e.x)
	if err != nil {
		return nil, 0, err
	}
	return r.Next, r.MeanQueue / e.mp.Load, nil
}

// clockStretch returns the stretch part of b and b_S: W(T) has variance
// T/(λN), so ζ = W(T)/T variance 1/(λTN), and the part is
// ½·(1/(λT))·D²_ζ Φ, by the symmetric second difference in ζ with the
// step 1e-3·scale, shrunk so that no pass boundary crosses T.
func (e *refinedEval) clockStretch(scale float64) ([]float64, float64, error) {
	T := e.mp.Period
	z := 1e-3 * scale
	z = math.Min(z, (T-e.base.PassStart)/(4*math.Max(e.base.PassStart, 1e-300)))
	z = math.Min(z, (e.base.PassEnd-T)/(4*e.base.PassEnd))
	if z <= 0 {
		return nil, 0, errors.New("staleboard: refined mean: a pass boundary at T leaves no room for the clock's difference")
	}
	np, sp, err := e.stretched(z)
	if err != nil {
		return nil, 0, err
	}
	nm, sm, err := e.stretched(-z)
	if err != nil {
		return nil, 0, err
	}
	w := 1 / (2 * e.mp.Load * T * z * z)
	b := make([]float64, len(e.idx))
	for i, ci := range e.idx {
		b[i] = w * (entry(np, ci) + entry(nm, ci) - 2*entry(e.base.Next, ci))
	}
	return b, w * (sp + sm - 2*e.base.Sojourn), nil
}

// stretchNodes is the number of Gauss–Hermite nodes of clockStretchAt: the
// stretched map is piecewise smooth in ζ with a kink at every pass
// boundary crossing T, and 24 nodes put a node in every pass the clock's
// spread reaches out to ±3σ when σ spans up to about 4 passes (k = 1,
// λ = 0.9, T = 3,000, N = 20).
const stretchNodes = 24

// clockStretchAt returns E[Φ_ζ(x*)] − Φ(x*) and the same for the mean
// time in system, ζ Normal with variance 1/(λTN), by Gauss–Hermite
// quadrature: the stretch at n servers with every crossing of a pass
// boundary over T it causes, not only its curvature within the branch.
func (e *refinedEval) clockStretchAt(n int, scale float64) ([]float64, float64, error) {
	T := e.mp.Period
	sigma := math.Sqrt(scale / (e.mp.Load * T * float64(n)))
	xs, ws := make([]float64, stretchNodes), make([]float64, stretchNodes)
	quad.Hermite{}.FixedLocations(xs, ws, math.Inf(-1), math.Inf(1))
	// The outermost node stretches the schedule by √2·x_max·σ (about 9σ):
	// it must stay a stretch, well short of reversing the schedule.
	if far := math.Sqrt2 * math.Abs(xs[0]) * sigma; far > 0.5 {
		return nil, 0, param.Errorf("Servers", "%d servers at T = %g: the cut's spread over a period, %.2g·T, is too large for a refined mean (the outermost quadrature node would stretch the schedule by %.0f%%): more servers or a longer period", n, T, sigma, 100*far)
	}
	b := make([]float64, len(e.idx))
	var bS float64
	for q, xq := range xs {
		w := ws[q] / math.Sqrt(math.Pi)
		next, sq, err := e.stretched(math.Sqrt2 * xq * sigma)
		if err != nil {
			return nil, 0, err
		}
		for i, ci := range e.idx {
			b[i] += w * (entry(next, ci) - entry(e.base.Next, ci))
		}
		bS += w * (sq - e.base.Sojourn)
	}
	return b, bS, nil
}

// evolveShifted evolves x* over the period with the pass boundaries
// t_1..t_{V+1} moved by eps·shift.
func (e *refinedEval) evolveShifted(s *passes, shift []float64, eps float64) *MapResult {
	e.evals++
	V := s.V
	q := passes{t: append([]float64(nil), s.t...), L: append([]float64(nil), s.L...), V: V}
	for v := 1; v <= V; v++ {
		q.t[v] += eps * shift[v-1]
	}
	for v := 0; v < V; v++ {
		q.L[v] = q.t[v+1] - q.t[v]
	}
	q.L[V] = s.t[V] + s.L[V] + eps*shift[V] - q.t[V]
	var r MapResult
	e.mp.evolve(e.x, boardTop(e.x), &q, &r)
	return &r
}

// massOf is the total mass of p.
func massOf(p []float64) float64 {
	var s float64
	for _, x := range p {
		s += x
	}
	return s
}
