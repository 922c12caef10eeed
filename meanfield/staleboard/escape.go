package staleboard

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/outcome"
)

// Escape is the escape analysis of the balanced state at one refresh
// period: everything about a finite system's tipping that does not depend
// on its number of servers N (see the package documentation, "Finite N").
// TipProbability turns it into the probability of tipping for a given N
// and horizon.
type Escape struct {
	// Period is T.
	Period float64
	// Balanced is the stable balanced fixed point x*; BalancedMean its
	// board mean y*. Nil when no balanced state exists at T (below the
	// N = ∞ edge): every system tips.
	Balanced     []float64
	BalancedMean float64
	// Saddle is the fixed point on the boundary of the balanced state's
	// basin through which the escape runs, SaddleMean its board mean y_s;
	// nil when the path of the most likely fluctuation never leaves the
	// basin (NoEscape).
	Saddle     []float64
	SaddleMean float64
	NoEscape   bool
	// OnePeriodVar and StationaryVar are N·Var of the board mean after one
	// period from x* and in the stationary linear-noise regime around x*
	// (C = J·C·Jᵀ + Σ); SaddleVar is the one-period N·Var from the saddle.
	OnePeriodVar, StationaryVar, SaddleVar float64
	// Rho is the slope of the board-mean map at y* along the escape path,
	// RhoLinear the lag-one autocorrelation of the board mean in the
	// linear-noise regime (wᵀJCw/wᵀCw).
	Rho, RhoLinear float64
	// Path is the board mean's deterministic map along the escape path,
	// the orbit from the saddle back to x*: Path[i] = (y_i, y_{i+1}),
	// increasing in y.
	Path [][2]float64
	// Wells and Saddles list the board means of the intermediate balanced
	// states and of the saddles between them that the escape climbs through
	// before the last saddle (balanced branches coexist near the edge).
	Wells, Saddles []float64
	// Evaluations counts map evaluations (noise derivatives included).
	Evaluations int

	firstSaddle float64
	varNodes    [][2]float64 // (board mean, one-period N·Var) along the path
	stop        func() error // if not nil, checked before every map evaluation of an orbit (cancellation)
}

// escapeMaxIter bounds the periods of one tipping test of the
// deterministic map.
const escapeMaxIter = 400

// errNoBalanced says there is no stable balanced state at T.
var errNoBalanced = errors.New("staleboard: no stable balanced state")

// balancedAt finds the stable balanced fixed point at the model's period:
// Anderson acceleration, then plain iteration, first from start (for
// instance the balanced board at a nearby period: continuation), then
// from the empty board. A fixed point counts when the solve converges,
// plain iteration returns to it, and it is not herded (farm.Herded).
func balancedAt(m *Model, start []float64) (*FixedPointResult, int, error) {
	evals := 0
	tipped := func(p []float64) bool { return farm.Herded(p, m.Period, m.Load) }
	f := &supportFunc{m: newMap(m.MapK(), m.Load, m.Period).boardOnly()}
	for _, st := range [][]float64{start, {1}} {
		if st == nil {
			continue
		}
		fp, err := FixedPoint(m, &FixedPointSettings{Start: st})
		if err != nil {
			return nil, evals, err
		}
		evals += fp.Evaluations
		if fp.Status == outcome.Converged && !tipped(fp.Board) {
			ok, n, err := fixedpoint.Attracting(f.eval, fp.Board, 8)
			evals += n
			if err != nil {
				return nil, evals, err
			}
			if ok {
				return fp, evals, nil
			}
		}
		// Anderson can leave the basin it starts in; plain iteration
		// cannot.
		att, err := Attractor(m, &AttractorSettings{Start: st, MaxIter: 600})
		if err != nil {
			return nil, evals, err
		}
		evals += att.Iterations
		if att.Status == outcome.FixedPoint && !tipped(att.Boards[0]) {
			fp, err := FixedPoint(m, &FixedPointSettings{Start: att.Boards[0]})
			if err != nil {
				return nil, evals, err
			}
			evals += fp.Evaluations
			if fp.Status == outcome.Converged {
				return fp, evals, nil
			}
		}
	}
	return nil, evals, errNoBalanced
}

// NewEscape computes the escape analysis at the model's period (Period >
// 0, Servers 0). start, if not nil, is a starting board for the balanced
// fixed point (for instance the one at a nearby period).
func NewEscape(m *Model, start []float64) (*Escape, error) {
	return newEscape(m, start, nil)
}

// newEscape is NewEscape, stopped with stop's error (checked before every
// map evaluation of the climb's orbits, where the analysis spends its
// evaluations) when stop is not nil.
func newEscape(m *Model, start []float64, stop func() error) (*Escape, error) {
	full, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	if err := m.checkExponential(); err != nil {
		return nil, err
	}
	mp := full.boardOnly()
	e := &Escape{Period: m.Period, stop: stop}
	fp, evals, err := balancedAt(m, start)
	e.Evaluations += evals
	if errors.Is(err, errNoBalanced) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	n := support(fp.Board, noiseSupportTol)
	x := append([]float64(nil), fp.Board[:n]...)
	e.Balanced, e.BalancedMean = x, Mean(x)
	thr := farm.TipWatch{Period: m.Period, Load: m.Load} // copied fresh into every orbit

	// Linear noise around x*: Σ (one period) and C (stationary).
	nz, err := mp.noise(x)
	if err != nil {
		return nil, err
	}
	e.Evaluations += nz.Evaluations
	f := &supportFunc{m: mp}
	jac, err := fixedpoint.ComputeJacobian(f.eval, x, nil)
	if err != nil {
		return nil, err
	}
	e.Evaluations += jac.Evaluations
	d := len(jac.Index)
	sig := noiseOn(jac, nz)
	w := mat.NewVecDense(d, nil)
	for i, ci := range jac.Index {
		w.SetVec(i, float64(ci-jac.Ref))
	}
	c, err := lyapunov(jac.J, sig)
	if err != nil {
		return nil, err
	}
	var cw, sw, jcw mat.VecDense
	cw.MulVec(c, w)
	sw.MulVec(sig, w)
	e.StationaryVar, e.OnePeriodVar = mat.Dot(w, &cw), mat.Dot(w, &sw)
	// Lag-one autocorrelation of the board mean in the linear-noise
	// regime: Cov(y_{t+1}, y_t) = wᵀ·J·C·w.
	jcw.MulVec(jac.J, &cw)
	e.RhoLinear = mat.Dot(w, &jcw) / e.StationaryVar

	// The most likely way for the board mean to rise by a is the
	// fluctuation a·u, u = C·w/(wᵀCw): a log-tilt φ of the board.
	phi := make([]float64, n)
	for i, ci := range jac.Index {
		u := cw.AtVec(i) / e.StationaryVar
		phi[ci] += u / x[ci]
		phi[jac.Ref] -= u / x[jac.Ref]
	}
	if err := e.climb(mp, x, phi, thr); err != nil {
		return nil, err
	}
	if e.NoEscape {
		return e, nil
	}
	// The slope at y* from the lower part of the first descent.
	var sxy, sxx float64
	top := e.BalancedMean + 0.3*(e.firstSaddle-e.BalancedMean)
	for _, q := range e.Path {
		if dy := q[0] - e.BalancedMean; q[0] < top {
			sxy += dy * (q[1] - e.BalancedMean)
			sxx += dy * dy
		}
	}
	if sxx > 0 {
		e.Rho = sxy / sxx
	}
	if !(math.Abs(e.Rho) < 1) {
		return nil, fmt.Errorf("staleboard: escape path at T = %v: slope %v at the balanced state", m.Period, e.Rho)
	}
	return e, nil
}

// orbit runs plain iteration from p: it stops in the herd (thr reports the
// board tipped), on a fixed point (one-step distance below 1e-11), back home (within
// 1e-6 of its start's distance from home, if home is not nil), or after
// 2·escapeMaxIter periods. It returns the iterates, the one-step distances
// and how it ended.
func (e *Escape) orbit(mp *Map, p, home []float64, thr farm.TipWatch) ([][]float64, []float64, orbitEnd, error) {
	var states [][]float64
	var steps []float64
	d0 := 0.0
	if home != nil {
		d0 = l1(p, home)
	}
	for range 2 * escapeMaxIter {
		if e.stop != nil {
			if err := e.stop(); err != nil {
				return nil, nil, 0, err
			}
		}
		r, err := mp.Apply(p)
		e.Evaluations++
		if err != nil {
			return nil, nil, 0, err
		}
		states = append(states, p)
		steps = append(steps, l1(r.Next, p))
		p = r.Next
		switch {
		case thr.Next(r.Next):
			return states, steps, endHerd, nil
		case home != nil && l1(p, home) < 1e-6*d0:
			return states, steps, endHome, nil
		case steps[len(steps)-1] < 1e-11:
			return append(states, p), append(steps, 0), endFixed, nil
		}
	}
	return states, steps, endOpen, nil
}

// orbitEnd says how an orbit ended.
type orbitEnd int

const (
	endOpen orbitEnd = iota
	endHerd
	endHome
	endFixed
)

// climb follows the escape from the balanced state x: along the tilt φ,
// the basin boundary of the current well by bisection; the orbit just
// inside lingers at the boundary's saddle and descends back (the board
// mean's map below the saddle), the orbit just outside leaves it — into
// the herd (done: that saddle is the one to cross), or up into another
// balanced well, from which the climb goes on.
func (e *Escape) climb(mp *Map, x, phi []float64, thr farm.TipWatch) error {
	e.varNodes = [][2]float64{{e.BalancedMean, e.OnePeriodVar}}
	cur, ycur := x, e.BalancedMean
	var pts [][2]float64
	for range 8 {
		tilt := func(th float64) []float64 { return tilted(cur, phi, th) }
		lo, hi, ok, err := e.basinEdge(mp, cur, phi, thr)
		if err != nil {
			return err
		}
		if !ok {
			e.NoEscape = true
			return nil
		}
		// Inside: to the saddle, lingering, and back down.
		in, inSteps, _, err := e.orbit(mp, tilt(lo), cur, thr)
		if err != nil {
			return err
		}
		js := lingering(in, inSteps, ycur)
		saddle := in[js]
		ys := Mean(saddle)
		for i := js; i+1 < len(in); i++ {
			pts = append(pts, [2]float64{Mean(in[i]), Mean(in[i+1])})
		}
		v, evals, err := mp.meanVariance(saddle)
		e.Evaluations += evals
		if err != nil {
			return err
		}
		e.varNodes = append(e.varNodes, [2]float64{ys, v})
		if e.firstSaddle == 0 {
			e.firstSaddle = ys
		}
		e.Saddle, e.SaddleMean, e.SaddleVar = saddle, ys, v
		// Outside: away from the saddle, into the herd or another well.
		out, outSteps, end, err := e.orbit(mp, tilt(hi), nil, thr)
		if err != nil {
			return err
		}
		if end != endFixed {
			break // the herd (or no decision: the saddle is the last one)
		}
		next := out[len(out)-1]
		ynext := Mean(next)
		if ynext <= ys {
			break // a well below the saddle: the 1-D picture ends here
		}
		jo := lingering(out, outSteps, ys)
		for i := jo; i+1 < len(out); i++ {
			pts = append(pts, [2]float64{Mean(out[i]), Mean(out[i+1])})
		}
		v, evals, err = mp.meanVariance(next)
		e.Evaluations += evals
		if err != nil {
			return err
		}
		e.varNodes = append(e.varNodes, [2]float64{ynext, v})
		e.Wells = append(e.Wells, ynext)
		e.Saddles = append(e.Saddles, ys)
		cur, ycur = next, ynext
	}
	e.setPath(pts)
	return nil
}

// tilted is the board x tilted by exp(θ·φ), renormalised.
func tilted(x, phi []float64, th float64) []float64 {
	out := make([]float64, len(x))
	var z float64
	for i, v := range x {
		out[i] = v * math.Exp(th*entry(phi, i))
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

// basinEdge brackets, along the tilt φ of the well cur, the boundary of
// its basin: the orbit from the tilt lo returns to cur, the one from hi
// leaves it (into the herd, or to another fixed point), hi − lo ≤ 1e-3·hi
// by bisection after doubling from 0.5; ok is false when no tilt up to 64
// leaves (no escape).
func (e *Escape) basinEdge(mp *Map, cur, phi []float64, thr farm.TipWatch) (lo, hi float64, ok bool, err error) {
	leaves := func(th float64) (bool, error) {
		states, _, end, err := e.orbit(mp, tilted(cur, phi, th), cur, thr)
		if err != nil {
			return false, err
		}
		return end == endHerd || end == endFixed && l1(states[len(states)-1], cur) > 1e-6, nil
	}
	lo, hi = 0.0, 0.5
	for {
		out, err := leaves(hi)
		if err != nil {
			return 0, 0, false, err
		}
		if out {
			break
		}
		if hi > 64 {
			return 0, 0, false, nil
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-3*hi {
		mid := 0.5 * (lo + hi)
		out, err := leaves(mid)
		if err != nil {
			return 0, 0, false, err
		}
		if out {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi, true, nil
}

// setPath sets the board mean's map from the pairs (y, y′) of the orbits
// between x* and the last saddle: increasing in y, thinned where the
// orbits linger (interpolation needs distinct abscissae); and sorts the
// variance nodes.
func (e *Escape) setPath(pts [][2]float64) {
	span := e.SaddleMean - e.BalancedMean
	e.Path = [][2]float64{{e.SaddleMean, e.SaddleMean}}
	for _, q := range pts {
		if q[0]-e.BalancedMean > 1e-7*span && q[0] < e.SaddleMean {
			e.Path = append(e.Path, q)
		}
	}
	sort.Slice(e.Path, func(a, b int) bool { return e.Path[a][0] < e.Path[b][0] })
	kept := e.Path[:1]
	for _, q := range e.Path[1:] {
		if q[0]-kept[len(kept)-1][0] > 1e-6*span {
			kept = append(kept, q)
		}
	}
	e.Path = kept
	sort.Slice(e.varNodes, func(a, b int) bool { return e.varNodes[a][0] < e.varNodes[b][0] })
}

// lingering returns the index of the orbit's slowest iterate while it is
// near its highest board mean (above the midpoint between floor and that
// mean): where it passes the saddle.
func lingering(states [][]float64, steps []float64, floor float64) int {
	top := 0
	for i := range states {
		if Mean(states[i]) > Mean(states[top]) {
			top = i
		}
	}
	js := top
	for i := range states {
		if Mean(states[i]) >= 0.5*(Mean(states[top])+floor) && steps[i] < steps[js] {
			js = i
		}
	}
	return js
}

// l1 is ‖a − b‖₁ over the longer support.
func l1(a, b []float64) float64 {
	var s float64
	for i := range max(len(a), len(b)) {
		s += math.Abs(entry(a, i) - entry(b, i))
	}
	return s
}

// lyapunov solves C = J·C·Jᵀ + S for the stationary covariance, by the
// doubling (Smith) iteration C ← C + A·C·Aᵀ, A ← A², which sums
// Σ_i J^i·S·(J^i)ᵀ in log₂ of the number of terms; J's spectral radius
// must be below 1.
func lyapunov(j *mat.Dense, s *mat.SymDense) (*mat.Dense, error) {
	c := mat.DenseCopyOf(s)
	a := mat.DenseCopyOf(j)
	var tmp, aca, a2 mat.Dense
	for range 64 {
		tmp.Mul(a, c)
		aca.Mul(&tmp, a.T())
		c.Add(c, &aca)
		if mat.Norm(&aca, 1) <= 1e-14*mat.Norm(c, 1) {
			return c, nil
		}
		a2.Mul(a, a)
		a.CloneFrom(&a2)
	}
	return nil, errors.New("staleboard: the linear-noise covariance does not converge (spectral radius ≥ 1)")
}

// pathMap returns the board mean's next value and one-period N·Var at a
// board mean y, along the escape path: the deterministic next mean is
// interpolated on Path (linear with slope Rho below it), the variance on
// the nodes computed at x*, the saddles and the wells.
func (e *Escape) pathMap(y float64) (next, variance float64) {
	variance = interpolate(e.varNodes, y)
	p := e.Path
	if y <= p[0][0] {
		return e.BalancedMean + e.Rho*(y-e.BalancedMean), variance
	}
	return interpolate(p, y), variance
}

// interpolate is the piecewise-linear function through the points (sorted
// by abscissa), constant beyond them.
func interpolate(pts [][2]float64, x float64) float64 {
	i := sort.Search(len(pts), func(i int) bool { return pts[i][0] >= x })
	switch {
	case i == 0:
		return pts[0][1]
	case i == len(pts):
		return pts[len(pts)-1][1]
	}
	a := (x - pts[i-1][0]) / (pts[i][0] - pts[i-1][0])
	return pts[i-1][1] + a*(pts[i][1]-pts[i-1][1])
}

// chainCells is the resolution of the board-mean chain.
const chainCells = 400

// TipProbability is the probability that a system of the given number of
// servers, started at the balanced state, tips within horizon refresh
// periods. The board mean is followed as a Markov chain: from y, the next
// board mean is the path's deterministic y′ plus Gaussian noise of
// variance κ·v(y)/N, with v the one-period variance (interpolated along
// the path) and κ = (1 − ρ²)·StationaryVar/OnePeriodVar, ρ the path's
// slope at y*, chosen so that the chain's stationary variance at y* is the
// linear-noise one (the other modes feed the mean). Crossing the last
// saddle's board mean is tipping.
func (e *Escape) TipProbability(servers, horizon int) float64 {
	switch {
	case e.Balanced == nil:
		return 1
	case e.NoEscape || horizon <= 0:
		return 0
	}
	N := float64(servers)
	kappa := (1 - e.Rho*e.Rho) * e.StationaryVar / e.OnePeriodVar
	sd := math.Sqrt(e.StationaryVar / N)
	lo := e.BalancedMean - 8*sd
	hi := e.SaddleMean
	h := (hi - lo) / chainCells
	// kernel[i][j]: probability of moving from cell i to cell j; what is
	// missing from a row is the mass that crosses the saddle.
	kernel := make([][]float64, chainCells)
	for i := range kernel {
		y := lo + (float64(i)+0.5)*h
		f, v := e.pathMap(y)
		nd := distuv.Normal{Mu: f, Sigma: math.Sqrt(kappa * v / N)}
		row := make([]float64, chainCells)
		prev := 0.0 // below the grid: folded into the lowest cell
		for j := range row {
			c := nd.CDF(lo + float64(j+1)*h)
			row[j] = c - prev
			prev = c
		}
		kernel[i] = row
	}
	p := make([]float64, chainCells)
	p[min(int((e.BalancedMean-lo)/h), chainCells-1)] = 1
	q := make([]float64, chainCells)
	for range horizon {
		clear(q)
		for i, pi := range p {
			if pi < 1e-300 {
				continue
			}
			for j, k := range kernel[i] {
				q[j] += pi * k
			}
		}
		p, q = q, p
	}
	var alive float64
	for _, v := range p {
		alive += v
	}
	return math.Min(1, math.Max(0, 1-alive))
}
