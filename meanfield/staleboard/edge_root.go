package staleboard

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/outcome"
)

// The N = ∞ edge as a root; the package documentation ("Fixed points,
// branches and the edge") gives the method and its cost.
//
// Notation: on the board x, pass v ends at t_{v+1}(x) = Σ_{u≤v} k·F(u)/λ.
// The crossing map of pass V,
//
//	Ψ_V(x) = Φ_{t_{V+1}(x)}(x),
//
// cuts the period exactly where pass V ends. Its fixed points are the
// balanced fixed points lying on the border between branches V and V + 1,
// at T = t_{V+1}(x*) exactly. Ψ_V stays on one piece whatever x, so it is
// smooth, where Φ_T at a fixed T has a kink wherever some t_v(x) crosses
// T: Anderson acceleration solves Ψ_V in a few evaluations even from
// distant starts, and stalls quickly when Ψ_V has no fixed point. The
// phase maps x ↦ Φ_{θ(x)}(x), θ(x) = t_V(x) + s·(t_{V+1}(x) − t_V(x)),
// generalise it to any fraction s of pass V.
//
// Near the edge the balanced state is a chain of branches, "bubbles":
// branch V is stable between a lower border collision c(V) and an upper
// one u(V), both fixed points of Ψ_V (above the chain, the main branch
// crosses the borders continuously, each crossing a fixed point of Ψ_V
// too). u(V) is reached from the balanced state at longer periods; c(V)
// from a more loaded board, or from c(V − 1). The state followed down
// bubble V + 1 hops to bubble V at c(V + 1) if u(V) > c(V + 1); a bubble
// below a gap is never reached. The edge is c(V*), V* the lowest bubble
// reached.

// errNoRoot says the root path could not locate the edge; the search
// (fixedpoint.FollowEnd) takes over.
var errNoRoot = errors.New("staleboard: the edge is not a border-collision root")

// Tolerances of the root path: probes only steer, the collision and the
// fixed point above it are final.
const (
	rootProbeTol = 1e-5
	rootTopTol   = 1e-6
	rootLowerTol = 1e-7
	rootFinalTol = 1e-10
	// rootPhaseTopTol is the top's tolerance with job phases, where a
	// period at the top costs 10–15 times one at the edge: the top's fixed
	// point only starts the ladder (whose first crossing is solved to
	// rootProbeTol) and the lower collision's starts (shifted boards), so
	// solving it to 1e-4 instead of 1e-6 saves two of its seven
	// evaluations and moves nothing the path reports beyond its own
	// tolerances (k = 5, λ = 0.9, PS, SCV 4: T* by 1e-13, the collision
	// by 1e-11, the leading eigenvalue by 2e-9 relative).
	rootPhaseTopTol = 1e-4
)

// rootEdge locates the edge below the balanced fixed point x0 at the
// period top, down to the floor; relTol is the width of the final bracket.
func (r *edgeRun) rootEdge(top float64, x0 []float64, floor, relTol float64) (*fixedpoint.End, error) {
	end := &fixedpoint.End{Collision: math.NaN()}
	before, start := r.evals, time.Now()
	defer func() { end.Evaluations, end.Elapsed = r.evals-before, time.Since(start) }()
	q := &rootSearch{r: r, end: end, same: r.family().Same, top: top, floor: floor, relTol: relTol, x0: x0, mean: r.mean(x0),
		upper: map[int]crossing{}, lower: map[int]crossing{}, aboveOf: map[int]stable{}}
	vMin, noEnd, err := q.ladder()
	if noEnd != nil || err != nil {
		return noEnd, err
	}
	if u := q.upper[vMin]; floor > u.theta-2*float64(r.k)/r.load {
		// Within two passes of the floor: the branch may reach it
		// inside pass vMin without crossing another border.
		if end, err := r.rootNoEnd(end, u.x, floor, q.note); err == nil || !errors.Is(err, errNoRoot) {
			return end, err
		}
	}
	if _, _, err := q.lowerAt(vMin, nil, q.lowerStarts(vMin)...); err != nil {
		return nil, err
	}
	vStar, err := q.chain(vMin)
	if err != nil {
		return nil, err
	}
	c := q.lower[vStar]
	a, ok, err := q.above(vStar)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: no stable fixed point above the collision at T = %.6g", errNoRoot, c.theta)
	}
	piece, dist := r.border(a.theta, a.x)
	end.Mechanism, end.Status = fixedpoint.BorderCollision, outcome.EdgeFound
	end.Hi, end.Lo, end.X = a.theta, a.theta*(1-0.999*relTol), a.x
	end.Piece, end.Border, end.Collision = piece, dist, c.theta
	end.Spectrum = a.sp
	return end, nil
}

// crossing is a fixed point of a crossing map: the board x and its period.
type crossing struct {
	x     []float64
	theta float64
}

// stable is a stable fixed point just above a lower collision, with its
// spectrum (x nil: none).
type stable struct {
	x     []float64
	theta float64
	sp    *fixedpoint.Spectrum
}

// rootSearch is the state of one root path: the crossings found, upper
// u(V) and lower c(V), and the stable points above the lower ones, by
// branch; the stalled probe's last iterate; and the end it fills.
type rootSearch struct {
	r                  *edgeRun
	end                *fixedpoint.End
	same               func(prev, next []float64) bool
	top, floor, relTol float64
	x0                 []float64 // the top's fixed point
	mean               float64   // its board mean
	upper, lower       map[int]crossing
	aboveOf            map[int]stable
	stall              []float64   // the last iterate of the highest stalled probe
	starts             [][]float64 // the starts of c(vMin), tried for every bubble
}

// note records a sample of the path in the end.
func (q *rootSearch) note(T float64, ok bool, x []float64) {
	sm := fixedpoint.Sample{Theta: T, OK: ok}
	if ok {
		sm.X = x
		sm.Piece, sm.Border = q.r.border(T, x)
	}
	q.end.Samples = append(q.end.Samples, sm)
}

// ladder descends the crossings u(V) of the border of pass V by the
// balanced state, each solved from the lowest found so far (at first the
// top's fixed point): they exist for every V down to the lowest bubble's,
// and below it Ψ_V stalls. A descent by about a fifth of the passes at a
// time, then bisection. It returns that lowest V, or the end when the
// balanced state reaches the floor (no edge).
func (q *rootSearch) ladder() (int, *fixedpoint.End, error) {
	r := q.r
	vTop, _ := r.border(q.top, q.x0)
	q.upper[vTop] = crossing{q.x0, math.Inf(1)}
	okV, failV := vTop, -1
	for okV-failV > 1 {
		V := (okV + failV) / 2
		if failV < 0 {
			V = max(okV-max(1, int(math.Ceil(0.2*(float64(okV+1)-r.mean(q.upper[okV].x))))), 0)
		}
		x, theta, ok, err := r.crossing(V, 1, q.upper[okV].x, q.x0, rootProbeTol, 20, 4)
		if err != nil {
			return 0, nil, err
		}
		ok = ok && theta < q.top
		q.note(theta, false, nil) // a crossing: on the border, not a stable point
		if !ok {
			failV, q.stall = V, x
			continue
		}
		okV = V
		q.upper[V] = crossing{x, theta}
		if theta <= q.floor {
			// The balanced state reaches the floor: no edge.
			end, err := r.rootNoEnd(q.end, x, q.floor, q.note)
			if err == nil && end == nil {
				err = errNoRoot
			}
			return 0, end, err
		}
	}
	return okV, nil, nil
}

// lowerStarts are the starts for c(vMin), more loaded boards: the top's
// shifted up by twice its mean, by 1.5 and 3 times; the stalled probe's
// last iterate and its reflection through u(vMin).
func (q *rootSearch) lowerStarts(vMin int) [][]float64 {
	m := q.mean
	starts := [][]float64{q.r.shift(q.x0, int(math.Round(2*m))), q.r.shift(q.x0, int(math.Round(1.5*m)))}
	if q.stall != nil {
		refl := make([]float64, len(q.stall))
		for i := range refl {
			refl[i] = 2*q.stall[i] - q.upper[vMin].x[i]
		}
		simplex(refl)
		starts = append(starts, q.stall, refl)
	}
	q.starts = append(starts, q.r.shift(q.x0, int(math.Round(3*m))))
	return q.starts
}

// lowerAt is c(V), the lower collision, solved from the given starts:
// below u(V) and more loaded (if u(V) is known), and above the lower
// collision nbr of the bubble below, if given (the lower collisions rise
// in T and in load with V).
func (q *rootSearch) lowerAt(V int, nbr *crossing, from ...[]float64) (crossing, bool, error) {
	if c, ok := q.lower[V]; ok {
		return c, true, nil
	}
	for _, s := range from {
		x, theta, ok, err := q.r.crossing(V, 1, s, nil, rootLowerTol, 30, 5)
		if err != nil {
			return crossing{}, false, err
		}
		ok = ok && theta > q.floor && theta < q.top
		if u, hasU := q.upper[V]; ok && hasU {
			ok = theta < u.theta*(1-1e-6) && q.r.mean(x) > q.r.mean(u.x) && q.same(u.x, x)
		}
		if ok && nbr != nil {
			ok = theta > nbr.theta && q.r.mean(x) > q.r.mean(nbr.x) && q.same(nbr.x, x)
		}
		q.note(theta, false, nil)
		if ok {
			q.lower[V] = crossing{x, theta}
			return q.lower[V], true, nil
		}
	}
	return crossing{}, false, nil
}

// upperAt is u(V): from the ladder, or solved from the nearest crossings
// found above and below, or from the top's board shifted up by its mean.
func (q *rootSearch) upperAt(V int) (crossing, bool, error) {
	if u, ok := q.upper[V]; ok {
		return u, true, nil
	}
	above, below := -1, -1
	for W := range q.upper {
		if W > V && (above < 0 || W < above) {
			above = W
		}
		if W < V && (below < 0 || W > below) {
			below = W
		}
	}
	var from [][]float64
	for _, W := range []int{above, below} {
		if W >= 0 {
			from = append(from, q.upper[W].x)
		}
	}
	from = append(from, q.r.shift(q.x0, int(math.Round(q.mean))))
	for _, s := range from {
		x, theta, ok, err := q.r.crossing(V, 1, s, q.x0, rootProbeTol, 20, 4)
		if err != nil {
			return crossing{}, false, err
		}
		ok = ok && theta < q.top
		q.note(theta, false, nil)
		if ok {
			q.upper[V] = crossing{x, theta}
			return q.upper[V], true, nil
		}
	}
	return crossing{}, false, nil
}

// chain follows the chain of bubbles up from vMin and returns V*, the
// bubble whose lower collision is the edge: the balanced state, following
// bubble V + 1 down to its end c(V + 1), hops to bubble V only if bubble V
// reaches above it, u(V) > c(V + 1); a bubble below a gap is not reached
// (a c(V + 1) that does not end a stable bubble, as below the main
// branch's end, decides nothing). Below vMin no upper collision is
// reached (the ladder stalled): the chain ends at vMin or above.
func (q *rootSearch) chain(vMin int) (int, error) {
	vStar := vMin
	for {
		var from [][]float64
		var nbr *crossing
		if cur, ok := q.lower[vStar]; ok {
			nbr = &cur
			from = [][]float64{q.r.shift(cur.x, 1), cur.x}
		}
		c, ok, err := q.lowerAt(vStar+1, nbr, append(from, q.starts...)...)
		if err != nil {
			return 0, err
		}
		u, hasU := q.upper[vStar]
		if ok && hasU && u.theta < c.theta {
			// A gap, if c(V + 1) ends a stable bubble.
			if _, ok, err = q.above(vStar + 1); err != nil {
				return 0, err
			}
		}
		if !ok || !hasU || u.theta >= c.theta {
			// Bubble V is reached.
			if _, ok := q.lower[vStar]; !ok {
				return 0, fmt.Errorf("%w: no lower border collision of branch %d found", errNoRoot, vStar)
			}
			return vStar, nil
		}
		if vStar++; vStar > vMin+4 {
			return 0, fmt.Errorf("%w: no overlapping branches above branch %d", errNoRoot, vMin)
		}
		if _, ok, err := q.upperAt(vStar); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: branch %d has no upper border collision", errNoRoot, vStar)
			}
			return 0, err
		}
	}
}

// above is the stable fixed point just above the collision c of bubble
// V: the fixed point of the phase map at the fraction 1 − δ of pass V, δ
// set so that T is about T*(1 + relTol/2) (a solve at that T could land
// on the unstable partner across the border), with its spectrum. The
// slope of the border distance is not known: a first guess, then a
// correction. ok is false when there is none (c is then not the lower end
// of a stable bubble).
func (q *rootSearch) above(V int) (stable, bool, error) {
	if a, ok := q.aboveOf[V]; ok {
		return a, a.x != nil, nil
	}
	r := q.r
	c := q.lower[V]
	xh, hi, ok, err := q.justAbove(V, c)
	if err != nil || !ok {
		return stable{}, false, err
	}
	piece, dist := r.border(hi, xh)
	ok = piece == V && dist > 0 && hi-c.theta < 0.999*q.relTol*hi
	var sp *fixedpoint.Spectrum
	if ok {
		f, err := r.fn(hi)
		if err != nil {
			return stable{}, false, err
		}
		if sp, err = fixedpoint.LeadingSpectrum(f, xh, nil, &fixedpoint.SpectrumSettings{Krylov: 6}); err != nil {
			return stable{}, false, err
		}
		ok = sp.Radius < 1-1e-3
	}
	q.note(hi, ok, xh)
	if !ok {
		q.aboveOf[V] = stable{}
		return stable{}, false, nil
	}
	q.aboveOf[V] = stable{xh, hi, sp}
	return q.aboveOf[V], true, nil
}

// justAbove solves the phase map of pass V near the fraction that puts T
// at c.theta·(1 + relTol/2): up to three tries, each correcting the
// fraction by the period it gave. ok is false (and noted) when a solve
// fails or does not land above c.
func (q *rootSearch) justAbove(V int, c crossing) ([]float64, float64, bool, error) {
	r := q.r
	L := r.passEnd(V, c.x) - r.passEnd(V-1, c.x)
	want := q.relTol / 2 * c.theta
	delta := want / L
	xh := c.x
	var hi float64
	for try := 0; ; try++ {
		x, theta, ok, err := r.crossing(V, 1-delta, xh, c.x, rootFinalTol, 40, 8)
		if err != nil {
			return nil, 0, false, err
		}
		if !ok || !(theta > c.theta) {
			q.note(theta, false, nil)
			q.aboveOf[V] = stable{}
			return nil, 0, false, nil
		}
		xh, hi = x, theta
		got := hi - c.theta
		if (got > 0.1*want && got < 1.9*want) || try == 2 {
			return xh, hi, true, nil
		}
		delta *= want / got
	}
}

// rootNoEnd finishes a root path whose balanced state reaches the floor:
// the fixed point there, from the crossing x just above it.
func (r *edgeRun) rootNoEnd(end *fixedpoint.End, x []float64, floor float64, note func(float64, bool, []float64)) (*fixedpoint.End, error) {
	f, err := r.fn(floor)
	if err != nil {
		return nil, err
	}
	res, err := fixedpoint.Solve(f, x, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: rootFinalTol, MaxIter: 200, Simplex: true, Stagnation: 20})
	if err != nil {
		return nil, err
	}
	ok := res.Status == outcome.Converged && r.family().Same(x, res.X)
	note(floor, ok, res.X)
	if !ok {
		return nil, fmt.Errorf("%w: no balanced fixed point at the floor T = %.6g", errNoRoot, floor)
	}
	end.Mechanism, end.Hi, end.Lo, end.X, end.Status = fixedpoint.NoEnd, floor, floor, res.X, outcome.NoEdge
	end.Piece, end.Border = r.border(floor, res.X)
	return end, r.spectrum(end)
}

// spectrum computes the spectrum at the end's Hi and X: Arnoldi on 6
// Krylov vectors with forward differences (the Jacobian at the edge has
// only a few eigenvalues away from 0: 6 vectors give the leading one to
// 1e-5).
func (r *edgeRun) spectrum(end *fixedpoint.End) error {
	f, err := r.fn(end.Hi)
	if err != nil {
		return err
	}
	sp, err := fixedpoint.LeadingSpectrum(f, end.X, nil, &fixedpoint.SpectrumSettings{Krylov: 6})
	if err != nil {
		return err
	}
	end.Spectrum = sp
	return nil
}

// crossing solves for a fixed point of the phase map of pass V at the
// fraction s of the pass (s = 1: the crossing map Ψ_V): x ↦ Φ_{θ(x)}(x),
// θ(x) = t_V(x) + s·(t_{V+1}(x) − t_V(x)). It starts from x0, is cut short
// once the iterate leaves the balanced family (judged against ref, if not
// nil), and returns the point, its θ, and whether the solve converged
// there on branch V.
func (r *edgeRun) crossing(V int, s float64, x0, ref []float64, tol float64, maxIter, stagnation int) ([]float64, float64, bool, error) {
	same := r.family().Same
	theta := func(x []float64) float64 {
		b := r.passEnd(V, x)
		if s != 1 {
			a := r.passEnd(V-1, x)
			b = a + s*(b-a)
		}
		return b
	}
	f := func(dst, x []float64) error {
		if ref != nil && !same(ref, x) {
			return fixedpoint.ErrDomain
		}
		T := theta(x)
		if !(T >= MinPeriod) || T > MaxPeriod {
			return fixedpoint.ErrDomain
		}
		g, err := r.fnUncached(T, tol >= rootProbeTol)
		if err != nil {
			return err
		}
		return g(dst, x)
	}
	res, err := fixedpoint.Solve(f, x0, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: tol, MaxIter: maxIter, Simplex: true, Stagnation: stagnation})
	if err != nil {
		return nil, 0, false, err
	}
	T := theta(res.X)
	ok := res.Status == outcome.Converged && (ref == nil || same(ref, res.X))
	if ok {
		p, _ := r.border(T, res.X)
		ok = p == V
	}
	return res.X, T, ok, nil
}

// shiftBoard returns the board x with every queue d longer (the mass at
// the top of the support stays there): a more loaded start.
func shiftBoard(x []float64, d int) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[min(i+d, len(x)-1)] += v
	}
	return y
}

// simplex sets the negative entries of x to zero and rescales it to
// mass 1.
func simplex(x []float64) {
	var s float64
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
}

// confirmAbove picks the stable fixed point above the edge that Confirm
// perturbs: the followed one nearest 1.01·T* (the search's samples), or,
// when none lies within 0.5–2% above T* (the root path solves few fixed
// points), one solved near 1.01·T* (else nearer, down to 1.0005·T*: the
// last branch may span less) on the last branch,
// checked attracting: on the root path by the phase map of the ending
// pass, continuing the fixed point at Hi (the border distance grows about
// linearly from the collision), else at that T. Failing all, the fixed
// point at Hi.
func (r *edgeRun) confirmAbove(end *fixedpoint.End) (float64, []float64, error) {
	above, xa := end.Hi, end.X
	for _, sm := range end.Samples {
		if sm.OK && sm.Theta > end.Hi && (above == end.Hi || math.Abs(sm.Theta-1.01*end.Hi) < math.Abs(above-1.01*end.Hi)) {
			above, xa = sm.Theta, sm.X
		}
	}
	if above > 1.005*end.Hi && above < 1.02*end.Hi {
		return above, xa, nil
	}
	same := r.family().Same
	V, c := end.Piece, end.Collision
	frac := func(x []float64, T float64) float64 {
		a := r.passEnd(V-1, x)
		return (T - a) / (r.passEnd(V, x) - a)
	}
	for _, f := range []float64{1.01, 1.005, 1.002, 1.001, 1.0005} {
		target := f * end.Hi
		var x []float64
		T := target
		if !math.IsNaN(c) && c < end.Hi {
			gap := 1 - frac(end.X, end.Hi)
			var ok bool
			var err error
			x, T, ok, err = r.crossing(V, 1-gap*(target-c)/(end.Hi-c), end.X, end.X, rootFinalTol, 40, 8)
			if err != nil {
				return 0, nil, err
			}
			if !ok || !(T > end.Hi && T <= 1.02*end.Hi) {
				x = nil
			}
		}
		if x == nil {
			f, err := r.fn(target)
			if err != nil {
				return 0, nil, err
			}
			res, err := fixedpoint.Solve(f, end.X, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: rootFinalTol, MaxIter: 200, Simplex: true, Stagnation: 20})
			if err != nil {
				return 0, nil, err
			}
			if res.Status != outcome.Converged || !same(end.X, res.X) {
				continue
			}
			x, T = res.X, target
		}
		f, err := r.fn(T)
		if err != nil {
			return 0, nil, err
		}
		if ok, _, err := fixedpoint.Attracting(f, x, 32); err != nil {
			return 0, nil, err
		} else if ok {
			return T, x, nil
		}
	}
	return above, xa, nil
}
