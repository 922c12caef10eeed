package staleboard

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/outcome"
)

// FiniteMethod selects the finite-N theory of FiniteEdge.
type FiniteMethod int

const (
	// EscapeChain is the one-coordinate escape along the board mean,
	// discretised as a Markov chain (package documentation, "Finite N"):
	// fast, deterministic, but its shift above T* is too large at large N
	// and its tipping probability is not monotone in T.
	EscapeChain FiniteMethod = iota
	// NoisyMap is the Monte Carlo of the noisy map (package
	// documentation, "The noisy map"): runs of the map with the board's
	// one-period noise added, Gaussian on the classes the farm populates
	// and Poisson counts on its rare classes, the same runs (common random
	// numbers) at every period, and a tipping curve monotone in T by
	// construction.
	NoisyMap
)

func (m FiniteMethod) String() string {
	switch m {
	case EscapeChain:
		return "escape"
	case NoisyMap:
		return "noisy-map"
	}
	return "FiniteMethod(?)"
}

// Defaults and bounds of the noisy map's Monte Carlo.
const (
	// DefaultNoisyReps is the default most runs at one period: the
	// binomial standard deviation of a tipping fraction near ½ is then
	// 0.07, which at N = 800 (k = 5, λ = 0.9; the curve falls from 0.9 to
	// 0.1 within 0.06 of T(1−λ)²) moves the ½-point by about 0.005.
	DefaultNoisyReps = 48
	// MaxNoisyReps bounds FiniteSettings.Reps.
	MaxNoisyReps = 10000
	// DefaultRareServers is the default FiniteSettings.RareServers: a
	// class of the balanced board expected to hold fewer than 10 of the N
	// servers fluctuates as a Poisson count, a commoner one as a Gaussian.
	// Both laws are right in the overlap (a Poisson of mean 10 is within
	// a few per cent of its Gaussian in the bulk). Measured at k = 5, λ =
	// 0.9, 40 runs of 100 periods: with 5 and with 20 the tipping
	// fractions at T(1−λ)² = 2.93, 2.96, 2.99 are 0.975/0.875,
	// 0.600/0.475, 0.075/0.075 at N = 800 and at 3.05, 3.11, 3.17 are
	// 0.600/0.575, 0.375/0.450, 0.075/0.150 at N = 100: equal within
	// their Monte Carlo error (±0.11 for a difference). Gaussian noise
	// on every class instead, negative entries cut, piles spurious mass
	// into the board's far tail and tips 39 of 40 runs at 2.99 at N = 800;
	// no noise on the rare classes tips none at N = 100.
	DefaultRareServers = 10
	// noisyFirst and noisyGrowth lay out the noisy map's scan above T*:
	// T*·(1 + noisyFirst·noisyGrowth^j), j = 0, 1, …, doubling from 1%
	// (the shift of the edge above T* runs from 20% at N = 25 to 1.5% at
	// N = 2,000 at k = 5, λ = 0.9). The scan starts at 1% rather than
	// closer: just above the edge's border collision the balanced state's
	// solve needs the slow path (balancedAt's direct iteration, about 700
	// map evaluations at 1.005·T*), and a farm large enough to tip only
	// that close to T* finds its bracket by the bisections anyway.
	// noisyRefine bisections then narrow the bracket of the ½-point to a
	// quarter of its step before the logistic fit takes over.
	noisyFirst  = 0.01
	noisyGrowth = 2
	// noisyRefine is the number of periods added by bisection inside the
	// bracket of the ½-point once the scan has found it.
	noisyRefine = 2
)

// CurvePoint is one period of a finite-N tipping curve.
type CurvePoint struct {
	// Period is T and Scaled = T(1−λ)².
	Period, Scaled float64
	// Probability is the probability of tipping within the horizon from
	// the balanced state. With the noisy map it is the isotonic
	// regression of the fractions of runs that tipped (Raw) on the
	// periods of the curve, non-increasing in T by construction (the
	// escape chain: both are its probability).
	Probability, Raw float64
	// Runs is the number of noisy-map runs (0 for the escape chain).
	Runs int
	// MeanTime is the mean time to tip from the balanced state, in
	// refresh periods: the periods watched over all runs (each until it
	// tipped or reached the horizon) divided by the tips, the maximum
	// likelihood estimate when the tipping hazard is constant (+Inf with
	// no tip: at least Runs·H; +Inf on the escape chain's curve, which
	// has no runs).
	MeanTime float64
}

// noisyMap is the noisy map of one farm of n servers at one period: the
// N = ∞ map, its balanced fixed point x*, and the one-period noise frozen
// at x*, drawn as the finite farm makes it: the dispatchers' clocks first,
// then, given the clocks, the servers' independent moves (the multinomial
// noise). The clocks' Brownian offset W is split into the stretch of the
// whole schedule, ζ = W(t_e)/t_e (t_e the end of the pass in progress at
// T), applied through the map itself (load λ·e^{−ζ}: every pass longer
// by e^ζ ≈ 1 + ζ, so a pass boundary may cross T), and the bridge
// W(t) − ζ·t, applied through the boundary responses on every class.
// The multinomial noise is Gaussian on the classes x* populates (N·x*_q
// at least the rare threshold; the square root of Mult on them from its
// eigendecomposition) and a Poisson count on the others, of mean N times
// the class's mass with the bridge's shift.
type noisyMap struct {
	mp    *Map
	x     []float64
	root  *mat.Dense  // d × bulk: Mult's square root on the common classes
	resp  [][]float64 // G_v = ∂Φ/∂t_v at x*
	times []float64   // the boundary times t_v (the last: t_e)
	load  float64
	// linear draws the whole timing noise linearly, Σ_v G_v·W(t_v), with
	// no stretch through the map (the first-order noise; tests).
	linear bool
	rare   []bool
	n      int
	watch  farm.TipWatch
	evals  int
	pool   sync.Pool // of maps for the runs (*Map)
}

// newNoisyMap builds the noisy map of n servers at the model's period,
// its balanced fixed point solved from start (nil: from the empty board);
// nil when there is no balanced state (every run tips at once).
func newNoisyMap(m *Model, start []float64, n int, rareServers float64) (*noisyMap, error) {
	full, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	mp := full.boardOnly()
	fp, evals, err := balancedAt(m, start)
	if err == errNoBalanced {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	x := append([]float64(nil), fp.Board[:support(fp.Board, noiseSupportTol)]...)
	nz, err := mp.noise(x)
	if err != nil {
		return nil, err
	}
	nm := &noisyMap{mp: mp, x: x, n: n, watch: farm.TipWatch{Period: m.Period, Load: m.Load}, evals: evals + nz.Evaluations}
	nm.resp, nm.times, nm.load = nz.resp, nz.times, m.Load
	d := nz.Dim
	nm.rare = make([]bool, d)
	var bulk []int
	for q := range d {
		nm.rare[q] = q >= len(x) || x[q]*float64(n) < rareServers
		if !nm.rare[q] {
			bulk = append(bulk, q)
		}
	}
	sub := mat.NewSymDense(max(len(bulk), 1), nil)
	for a, i := range bulk {
		for b := a; b < len(bulk); b++ {
			sub.SetSym(a, b, nz.Mult.At(i, bulk[b]))
		}
	}
	nm.root = mat.NewDense(d, max(len(bulk), 1), nil)
	if len(bulk) > 0 {
		var eig mat.EigenSym
		if !eig.Factorize(sub, true) {
			return nil, errNoiseRoot
		}
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		vals := eig.Values(nil)
		for a, i := range bulk {
			for j := range bulk {
				nm.root.Set(i, j, vecs.At(a, j)*math.Sqrt(math.Max(vals[j], 0)))
			}
		}
	}
	return nm, nil
}

// noisyDraw holds one run's buffers for the one-period noise.
type noisyDraw struct {
	z, xi, tau []float64
}

// stretch draws the clocks' stretch of one period, ζ with Var ζ =
// 1/(λ·t_e·N) (W(t_e)/t_e, W the mean clock's offset, Var W(t) =
// t/(λN)); 0 with linear.
func (nm *noisyMap) stretch(rng *rand.Rand) float64 {
	if nm.linear || len(nm.times) == 0 {
		return 0
	}
	te := nm.times[len(nm.times)-1]
	return rng.NormFloat64() / math.Sqrt(nm.load*te*float64(nm.n))
}

// step is one period of a run from board p: the map with the period's
// stretch ζ into res, then perturb's noise; the next board is in buf's
// storage (returned for reuse). The passes are stretched by e^ζ (load
// λ·e^{−ζ}), 1 + ζ to first order and positive however small the farm:
// at N = 2 and T = 5 ζ's standard deviation is 0.3, and 1 + ζ would turn
// a pass length negative about once in 700 periods.
func (nm *noisyMap) step(mp *Map, rng *rand.Rand, p []float64, res *MapResult, dr *noisyDraw, buf []float64) ([]float64, []float64, error) {
	mp.Load = nm.load * math.Exp(-nm.stretch(rng))
	err := mp.applyInto(p, res)
	mp.Load = nm.load
	if err != nil {
		return nil, buf, err
	}
	return nm.perturb(rng, res.Next, dr, buf)
}

// perturb returns the next board of a run: mean, the map's next board,
// plus one period's noise other than the stretch, drawn with rng, into
// buf's storage (returned for reuse). The clocks' bridge shifts every
// class by τ = Σ_v G_v·(W(t_v) − (t_v/t_e)·W(t_e))/√N (W the Brownian
// offset of the mean clock at the boundary times, ×√N; with linear, τ =
// Σ_v G_v·W(t_v)/√N, the whole timing noise). On a common class the
// multinomial noise is added as a Gaussian (root·z/√N); a rare class (and
// one beyond the noise's support) holds a Poisson count of servers of
// mean N·max(Φ_q + τ_q, 0): given the clocks the servers move
// independently, and a rare class's count is the multinomial's law of
// rare events, so its variance is N·Φ_q plus the clocks' N²·Var τ_q, as
// Σ says. Negative entries are set to 0 and the board renormalised. A
// farm's board always holds its N servers: an empty draw (every class at
// 0, as when every class is rare and each Poisson count comes out 0 —
// e^{−2} of the draws at N = 2) is drawn again, up to noisyRedraws times
// (conditioning on a board that is not empty), then it is an error, not
// a NaN board.
func (nm *noisyMap) perturb(rng *rand.Rand, mean []float64, dr *noisyDraw, buf []float64) ([]float64, []float64, error) {
	for range noisyRedraws {
		next, b, err := nm.perturbOnce(rng, mean, dr, buf)
		buf = b
		if err != errEmptyDraw {
			return next, buf, err
		}
	}
	return nil, buf, errEmptyDraw
}

// noisyRedraws is the most draws perturb makes for one period's board.
const noisyRedraws = 64

// perturbOnce is one draw of perturb (errEmptyDraw if it is empty).
func (nm *noisyMap) perturbOnce(rng *rand.Rand, mean []float64, dr *noisyDraw, buf []float64) ([]float64, []float64, error) {
	n := float64(nm.n)
	sq := math.Sqrt(n)
	d, cols := nm.root.Dims()
	dr.z = grow(dr.z, max(cols, len(nm.times)))
	dr.xi = grow(dr.xi, d)
	dr.tau = grow(dr.tau, d)
	z, xi, tau := dr.z, dr.xi, dr.tau
	for q := range tau {
		tau[q] = 0
	}
	// W at the boundary times, then the bridge.
	var W, prev float64
	for j, t := range nm.times {
		W += math.Sqrt((t-prev)/nm.load) * rng.NormFloat64()
		z[j] = W
		prev = t
	}
	zeta := 0.0
	if !nm.linear && prev > 0 {
		zeta = W / prev
	}
	for j, g := range nm.resp {
		b := z[j] - zeta*nm.times[j]
		for q, v := range g {
			if q < d {
				tau[q] += b * v
			}
		}
	}
	for i := range cols {
		z[i] = rng.NormFloat64()
	}
	for q := range d {
		if nm.rare[q] {
			xi[q] = 0
			continue
		}
		var v float64
		row := nm.root.RawRowView(q)
		for i, r := range row {
			v += r * z[i]
		}
		xi[q] = v
	}
	buf = grow(buf, max(len(mean), d))
	next := buf
	var sum float64
	for q := range next {
		v := entry(mean, q)
		if q < d {
			v += tau[q] / sq
		}
		if q >= d || nm.rare[q] {
			if v > 0 {
				v = distuv.Poisson{Lambda: v * n, Src: rng}.Rand() / n
			}
		} else {
			v += xi[q] / sq
		}
		next[q] = math.Max(v, 0)
		sum += next[q]
	}
	if !(sum > 0) {
		return nil, buf, errEmptyDraw
	}
	for q := range next {
		next[q] /= sum
	}
	for len(next) > 1 && next[len(next)-1] == 0 {
		next = next[:len(next)-1]
	}
	return next, buf, nil
}

// errEmptyDraw says a noisy board came out with no mass.
var errEmptyDraw = errorString("staleboard: a noisy board's draw put every class at 0")

// noisyBoundaryCache is the number of pass weights a noisy run's map keeps
// before it recycles them: a few periods' worth (a period at T(1−λ)² ≈ 3
// has a few dozen passes, most of them full passes above the board's top,
// which share one entry).
const noisyBoundaryCache = 256

// errNoiseRoot says the noise covariance could not be factorised.
var errNoiseRoot = errorString("staleboard: the board noise's eigendecomposition failed")

type errorString string

func (e errorString) Error() string { return string(e) }

// run follows one run of the noisy map from x* for up to horizon periods
// with the random numbers of rng (step: the map at the period's stretch,
// then the rest of the noise), and returns the period at which it tipped
// (farm.TipWatch; 0: not within the horizon) and the periods it was
// watched.
func (nm *noisyMap) run(rng *rand.Rand, horizon int) (tippedAt, watched, evals int, err error) {
	w := nm.watch
	// A map of the pool: a Map caches, and is not safe for concurrent
	// use; its caches hold exact weights keyed by the pass, so which map
	// a run gets does not change its numbers.
	mp, _ := nm.pool.Get().(*Map)
	if mp == nil {
		mp = nm.mp.boardOnly()
	}
	defer nm.pool.Put(mp)
	var dr noisyDraw
	p := nm.x
	var res MapResult
	var buf []float64 // the next board; p's storage after the first period
	for t := 1; t <= horizon; t++ {
		p, buf, err = nm.step(mp, rng, p, &res, &dr, buf)
		evals++
		if err != nil {
			return 0, t - 1, evals, err
		}
		// The boundary weights of a noisy board's passes are seldom met
		// again (its pass lengths are continuous): keep the cache small,
		// its storage recycled, instead of growing it to its bound.
		if len(mp.bcache) > noisyBoundaryCache {
			mp.recycleBoundaries()
		}
		if w.Next(p) {
			return t, t, evals, nil
		}
	}
	return 0, horizon, evals, nil
}

// noisyPoint is the outcome of the runs at one period. Every run of a
// search has a random stream of its own, (seed, j) for the search's j-th
// run: the periods' tipped fractions are independent, as the logistic
// fit's standard error assumes. (Common random numbers across periods,
// the same streams at every period, correlate neighbouring fractions
// strongly — the runs' first periods nearly coincide — and the fit would
// count the same luck several times.)
type noisyPoint struct {
	T        float64
	nm       *noisyMap // nil: no balanced state (every run tips at once)
	tippedAt []int     // per run (0: not within the horizon)
	watched  int
	from     []float64 // the balanced board there (continuation)
}

// tipped is the number of the point's runs that tipped.
func (pt *noisyPoint) tipped() int {
	n := 0
	for _, at := range pt.tippedAt {
		if at > 0 {
			n++
		}
	}
	return n
}

// noisySearch is the noisy-map edge search of one model.
type noisySearch struct {
	m       *FiniteModel
	set     *EdgeSettings
	reps    int // the most runs at one period
	rare    float64
	seed    uint64
	workers int
	evals   int
	runs    int // runs over all periods
	pts     []*noisyPoint
}

// point builds the noisy map at T, its balanced state solved from the
// board from, with no runs yet.
func (ns *noisySearch) point(T float64, from []float64) (*noisyPoint, error) {
	if err := ns.set.canceled(); err != nil {
		return nil, err
	}
	nm, err := newNoisyMap(&Model{System: ns.m.System, Period: T}, from, ns.m.Servers, ns.rare)
	if err != nil {
		return nil, err
	}
	pt := &noisyPoint{T: T, nm: nm}
	if nm != nil {
		ns.evals += nm.evals
		pt.from = nm.x
	}
	ns.pts = append(ns.pts, pt)
	return pt, nil
}

// extend runs the point's runs up to runs (at most ns.reps), each until
// it tips or reaches the horizon.
func (ns *noisySearch) extend(pt *noisyPoint, runs int) error {
	runs = min(runs, ns.reps)
	n0 := len(pt.tippedAt)
	if runs <= n0 {
		return nil
	}
	first := ns.runs // the search's run number of the first new run
	ns.runs += runs - n0
	if pt.nm == nil {
		for range runs - n0 {
			pt.tippedAt = append(pt.tippedAt, 1)
			pt.watched++
		}
		return nil
	}
	h := ns.m.horizon()
	at := make([]int, runs-n0)
	watched := make([]int, runs-n0)
	evals := make([]int, runs-n0)
	err := parallel.For(runs-n0, ns.workers, nil, func(i int) error {
		if err := ns.set.canceled(); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(ns.seed, uint64(first+i)))
		var err error
		at[i], watched[i], evals[i], err = pt.nm.run(rng, h)
		return err
	})
	if err != nil {
		return err
	}
	pt.tippedAt = append(pt.tippedAt, at...)
	for i := range watched {
		pt.watched += watched[i]
		ns.evals += evals[i]
	}
	return nil
}

// curve is the tipping curve of the points computed, in increasing T,
// monotone by construction: the isotonic (non-increasing) regression of
// the fractions of runs that tipped, weighted by runs (pool adjacent
// violators), which is the maximum-likelihood tipping curve among those
// that do not rise with T. (The fractions at neighbouring periods are
// nearly independent: a run's noise is the same at every period, but its
// orbit soon differs.)
func (ns *noisySearch) curve() []CurvePoint {
	sort.Slice(ns.pts, func(a, b int) bool { return ns.pts[a].T < ns.pts[b].T })
	out := make([]CurvePoint, len(ns.pts))
	scale := (1 - ns.m.Load) * (1 - ns.m.Load)
	raw := make([]float64, len(ns.pts))
	wts := make([]float64, len(ns.pts))
	for j, pt := range ns.pts {
		tipped, runs := pt.tipped(), len(pt.tippedAt)
		raw[j], wts[j] = float64(tipped)/float64(runs), float64(runs)
		mt := math.Inf(1)
		if tipped > 0 {
			mt = float64(pt.watched) / float64(tipped)
		}
		out[j] = CurvePoint{Period: pt.T, Scaled: pt.T * scale, Raw: raw[j], Runs: runs, MeanTime: mt}
	}
	for j, v := range antitonicWeighted(raw, wts) {
		out[j].Probability = v
	}
	return out
}

// antitonic is the non-increasing least-squares fit to y with equal
// weights (pool adjacent violators).
func antitonic(y []float64) []float64 {
	w := make([]float64, len(y))
	for i := range w {
		w[i] = 1
	}
	return antitonicWeighted(y, w)
}

// antitonicWeighted is the non-increasing weighted least-squares fit to y
// with weights w > 0 (pool adjacent violators): with y the fractions
// tipped and w the runs, the maximum-likelihood non-increasing curve.
func antitonicWeighted(y, w []float64) []float64 {
	type block struct {
		sum, w float64
		n      int
	}
	var bs []block
	for i, v := range y {
		bs = append(bs, block{v * w[i], w[i], 1})
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.sum/a.w >= b.sum/b.w {
				break
			}
			bs = append(bs[:len(bs)-2], block{a.sum + b.sum, a.w + b.w, a.n + b.n})
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range bs {
		for range b.n {
			out = append(out, b.sum/b.w)
		}
	}
	return out
}

// Layout and precision of the noisy-map search (noisyEdge).
const (
	// noisyBatch is the number of runs a period near the ½-point gets at
	// a time; noisyScanBatch the runs of a scan period, enough to tell a
	// tipping probability near 1 from one below ½ (with 4 runs, a period
	// at probability 0.8 passes for one below ½ — 1 tip or none — three
	// times in 100, and the bisections and the fit recover from it).
	noisyBatch     = 8
	noisyScanBatch = 8
	// noisyPrecision is the standard error of the ½-point, relative to
	// its shift T*(N) − T*, at which the search stops adding runs: a
	// tolerance of 25% on the shift is then more than four standard
	// errors wide. (The search of 48 runs at every period it used before
	// reached about 8%: the simulated shifts it is checked against carry
	// 15–25%.)
	noisyPrecision = 0.08
	// noisyCentral is the fewest runs at periods near the ½-point (logit
	// within ±2 on the fit) before the fit's standard error is trusted:
	// with fewer, a steep fit through nearly separated runs claims a
	// precision it does not have.
	noisyCentral = 48
	// noisyBudget bounds the runs of one search, in multiples of the
	// most runs at one period (FiniteSettings.Reps).
	noisyBudget = 6
)

// noisyEdge computes the finite-N edge of model i by the noisy map, from
// the N = ∞ edge inf, in three stages, each period's runs in batches of
// noisyBatch:
//
//   - the scan: the periods T*·(1 + noisyFirst·noisyGrowth^j),
//     noisyScanBatch runs each, up to the first at which fewer than half
//     the runs tip;
//   - noisyRefine bisections of the bracket where the monotone curve
//     (isotonic fit) falls through ½, one batch each;
//   - batches at the ½-point of the logistic fit of every run (its
//     maximum-likelihood probit-type fit, P(T) = 1/(1 + e^{−a−b·T}),
//     over all the periods), on the period nearest it or on a new one
//     there, until the standard error of the ½-point (from the fit's
//     information matrix) is below noisyPrecision of the shift, or the
//     runs reach noisyBudget·Reps.
//
// The edge is the logistic fit's ½-point, kept inside the monotone
// curve's bracket (if the fit fails — the runs separate perfectly — the
// linear interpolation of the monotone curve across its bracket).
func noisyEdge(m *FiniteModel, set *EdgeSettings, fs *FiniteSettings, inf *EdgeResult) (*FiniteEdgeResult, error) {
	start := time.Now()
	ns := &noisySearch{m: m, set: set, reps: fs.reps(), rare: fs.rareServers(), seed: fs.Seed, workers: set.Workers}
	res := &FiniteEdgeResult{FiniteModel: *m, Line: inf.Line, Infinite: inf, Method: NoisyMap}
	res.Horizon = m.horizon()
	scale := inf.Scale()
	t0 := inf.Period
	if inf.Status != outcome.EdgeFound {
		t0 = set.Floor / scale
	}
	batch := min(noisyBatch, ns.reps)
	from := inf.board
	for j := 0; ; j++ {
		T := t0 * (1 + noisyFirst*math.Pow(noisyGrowth, float64(j)))
		if inf.Status != outcome.EdgeFound && j == 0 {
			T = t0
		}
		if T > finiteReach*t0 {
			break
		}
		pt, err := ns.point(T, from)
		if err != nil {
			return nil, err
		}
		if pt.from != nil {
			from = pt.from
		}
		if err := ns.extend(pt, min(noisyScanBatch, ns.reps)); err != nil {
			return nil, err
		}
		if 2*pt.tipped() < len(pt.tippedAt) {
			break
		}
	}
	// With an N = ∞ edge every farm tips at T* (its balanced state ends
	// there): the curve starts at probability 1 at T*.
	based := func() []CurvePoint {
		cv := ns.curve()
		if inf.Status == outcome.EdgeFound {
			cv = append([]CurvePoint{{Period: t0, Scaled: t0 * scale, Probability: 1, Raw: 1}}, cv...)
		}
		return cv
	}
	// startNear is the balanced board of the computed period nearest
	// below T (the N = ∞ edge's below them all).
	startNear := func(T float64) []float64 {
		b := inf.board
		for _, pt := range ns.pts {
			if pt.T <= T && pt.from != nil {
				b = pt.from
			}
		}
		return b
	}
	cv := based()
	switch {
	case cv[0].Probability < 0.5:
		res.Status = outcome.NoEdge
		res.Period, res.Lo, res.Hi = t0, t0, t0
	case cv[len(cv)-1].Probability >= 0.5:
		res.Status = outcome.AboveRange
		last := cv[len(cv)-1].Period
		res.Period, res.Lo, res.Hi = last, last, math.Inf(1)
	default:
		for range noisyRefine {
			g := halfIndex(cv)
			mid := 0.5 * (cv[g-1].Period + cv[g].Period)
			pt, err := ns.point(mid, startNear(mid))
			if err != nil {
				return nil, err
			}
			if err := ns.extend(pt, batch); err != nil {
				return nil, err
			}
			cv = based()
		}
		var fit logisticFit
		for {
			fit = ns.fit(t0)
			if fit.ok && fit.se <= noisyPrecision*(fit.half-t0) && ns.central(fit, t0) >= noisyCentral || ns.runs >= noisyBudget*ns.reps {
				break
			}
			var err error
			if fit.ok {
				err = ns.addNear(fit.half, fit, batch, startNear)
			} else {
				err = ns.addBracket(cv, batch, startNear)
			}
			if err != nil {
				return nil, err
			}
			cv = based()
		}
		g := halfIndex(cv)
		lo, hi := cv[g-1], cv[g]
		res.Status = outcome.EdgeFound
		res.Lo, res.Hi = lo.Period, hi.Period
		res.Period = interpolateHalf(lo, hi)
		if fit.ok {
			res.Period = math.Min(math.Max(fit.half, lo.Period), hi.Period)
			res.Error = fit.se
		}
	}
	if inf.Status == outcome.EdgeFound {
		cv = cv[1:] // the curve reports the periods run
	}
	res.Curve = cv
	res.MeanTime = meanTimeAt(cv, res.Period)
	res.Evaluations = ns.evals
	res.Scaled = res.Period * scale
	res.Elapsed = time.Since(start)
	return res, nil
}

// interpolateHalf is where the straight line between two points of the
// monotone curve (lo at or above ½, hi below) crosses ½.
func interpolateHalf(lo, hi CurvePoint) float64 {
	return lo.Period + (hi.Period-lo.Period)*(lo.Probability-0.5)/(lo.Probability-hi.Probability)
}

// addNear adds a batch of runs at the period T: to the computed period
// nearest it if that lies within a quarter of the fit's scale 1/|b| (the
// fit's information about the ½-point is then within 2% of its most) and
// has room for them, else to a new period at T.
func (ns *noisySearch) addNear(T float64, fit logisticFit, batch int, startNear func(float64) []float64) error {
	var near *noisyPoint
	for _, pt := range ns.pts {
		if len(pt.tippedAt)+batch > ns.reps {
			continue
		}
		if near == nil || math.Abs(pt.T-T) < math.Abs(near.T-T) {
			near = pt
		}
	}
	if near == nil || math.Abs(near.T-T)*math.Abs(fit.b) > 0.5 {
		// A full period at T itself (runs there exactly at the ½-point,
		// half of them tipped, leave the fit where it was): the new one
		// goes a quarter of the fit's scale above it, so that no period
		// of the curve repeats.
		for ns.has(T) {
			T += 0.25 / math.Abs(fit.b)
		}
		pt, err := ns.point(T, startNear(T))
		if err != nil {
			return err
		}
		near = pt
	}
	return ns.extend(near, len(near.tippedAt)+batch)
}

// has reports whether the search has a period at T.
func (ns *noisySearch) has(T float64) bool {
	for _, pt := range ns.pts {
		if pt.T == T {
			return true
		}
	}
	return false
}

// central is the number of runs at periods where the fit's logit is
// within ±2 (probability 0.12 to 0.88): those that carry its information
// about the ½-point.
func (ns *noisySearch) central(fit logisticFit, t0 float64) int {
	n := 0
	for _, pt := range ns.pts {
		if math.Abs(fit.a+fit.b*t0*(pt.T/t0-1)) <= 2 {
			n += len(pt.tippedAt)
		}
	}
	return n
}

// addBracket adds a batch of runs where the fit failed (the runs
// separate, or one period holds them all): to the end of the monotone
// curve's bracket of ½ with fewer runs (not the pinned point at T*),
// or, if both are full, to a new period where the curve's straight line
// crosses ½.
func (ns *noisySearch) addBracket(cv []CurvePoint, batch int, startNear func(float64) []float64) error {
	g := halfIndex(cv)
	var best *noisyPoint
	for _, c := range cv[g-1 : g+1] {
		for _, pt := range ns.pts {
			if pt.T == c.Period && len(pt.tippedAt)+batch <= ns.reps && (best == nil || len(pt.tippedAt) < len(best.tippedAt)) {
				best = pt
			}
		}
	}
	if best == nil {
		T := interpolateHalf(cv[g-1], cv[g])
		if ns.has(T) {
			T = 0.5 * (cv[g-1].Period + cv[g].Period)
		}
		pt, err := ns.point(T, startNear(T))
		if err != nil {
			return err
		}
		best = pt
	}
	return ns.extend(best, len(best.tippedAt)+batch)
}

// logisticFit is the maximum-likelihood fit P(T) = 1/(1 + e^{−a−b·x}),
// x = T/t0 − 1, to the runs of every period: the ½-point half = t0·(1 −
// a/b) and its standard error se (delta method on the inverse
// information matrix). ok is false if the fit did not converge to a
// falling curve (the runs separate, or too few periods).
type logisticFit struct {
	a, b     float64 // b in 1/T units: b_x/t0
	half, se float64
	ok       bool
}

// fit is the logistic fit of the runs computed (see logisticFit); the
// point t0 (probability 1 there) is left out: it is not a run.
func (ns *noisySearch) fit(t0 float64) logisticFit {
	type obs struct{ x, n, y float64 }
	var data []obs
	for _, pt := range ns.pts {
		if len(pt.tippedAt) == 0 {
			continue
		}
		data = append(data, obs{pt.T/t0 - 1, float64(len(pt.tippedAt)), float64(pt.tipped())})
	}
	if len(data) < 2 {
		return logisticFit{}
	}
	// Newton's method on the log-likelihood (concave), from a = 0 and the
	// slope that falls by 1 over the periods' spread, with step halving.
	loglik := func(a, b float64) float64 {
		var l float64
		for _, d := range data {
			eta := a + b*d.x
			// log σ(η) = −log(1 + e^{−η}), log(1 − σ(η)) = −log(1 + e^{η}).
			l -= d.y*log1pExp(-eta) + (d.n-d.y)*log1pExp(eta)
		}
		return l
	}
	xlo, xhi := data[0].x, data[0].x
	for _, d := range data {
		xlo, xhi = math.Min(xlo, d.x), math.Max(xhi, d.x)
	}
	if !(xhi > xlo) {
		return logisticFit{}
	}
	xm := 0.5 * (xlo + xhi)
	b := -4 / (xhi - xlo)
	a := -b * xm
	l := loglik(a, b)
	var h00, h01, h11 float64
	for it := 0; ; it++ {
		if it == 100 || math.Abs(b)*(xhi-xlo) > 1e4 {
			return logisticFit{} // no maximum: the runs separate
		}
		var g0, g1 float64
		h00, h01, h11 = 0, 0, 0
		for _, d := range data {
			p := 1 / (1 + math.Exp(-(a + b*d.x)))
			r := d.y - d.n*p
			w := d.n * p * (1 - p)
			g0 += r
			g1 += r * d.x
			h00 += w
			h01 += w * d.x
			h11 += w * d.x * d.x
		}
		det := h00*h11 - h01*h01
		if !(det > 0) {
			return logisticFit{}
		}
		da, db := (h11*g0-h01*g1)/det, (h00*g1-h01*g0)/det
		step := 1.0
		for ; step > 1e-6; step /= 2 {
			if nl := loglik(a+step*da, b+step*db); nl >= l {
				a, b, l = a+step*da, b+step*db, nl
				break
			}
		}
		if step <= 1e-6 || math.Abs(step*da)+math.Abs(step*db)*(xhi-xlo) < 1e-10 {
			break
		}
	}
	det := h00*h11 - h01*h01
	if !(b < 0) || !(det > 0) {
		return logisticFit{}
	}
	// half = t0·(1 + x½), x½ = −a/b; ∇x½ = (−1/b, a/b²); Cov = H⁻¹.
	ga, gb := -1/b, a/(b*b)
	v := (h11*ga*ga - 2*h01*ga*gb + h00*gb*gb) / det
	return logisticFit{a: a, b: b / t0, half: t0 * (1 - a/b), se: t0 * math.Sqrt(v), ok: true}
}

// halfIndex is the first index of the monotone curve whose probability is
// below ½ (the curve starts at or above it).
func halfIndex(cv []CurvePoint) int {
	for g := 1; g < len(cv); g++ {
		if cv[g].Probability < 0.5 {
			return g
		}
	}
	return len(cv) - 1
}

// meanTimeAt is the curve's mean time to tip at the period T, by linear
// interpolation of its logarithm between the neighbouring points with a
// finite mean time (+Inf beyond them).
func meanTimeAt(cv []CurvePoint, T float64) float64 {
	var pts [][2]float64
	for _, c := range cv {
		if c.Runs > 0 && !math.IsInf(c.MeanTime, 0) {
			pts = append(pts, [2]float64{c.Period, math.Log(c.MeanTime)})
		}
	}
	if len(pts) == 0 || T > pts[len(pts)-1][0] {
		return math.Inf(1)
	}
	return math.Exp(interpolate(pts, T))
}
