package staleboard

import (
	"math"
	"math/rand/v2"
	"sort"
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
	// DefaultNoisyReps is the default number of runs per period: the
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
	// noisyFirst and noisyGrowth lay out the noisy map's periods above
	// T*: T*·(1 + noisyFirst·noisyGrowth^j), j = 0, 1, …: dense near T*,
	// where large farms tip (the shift of the edge above T* runs from 20%
	// at N = 25 to 1.5% at N = 2,000 at k = 5, λ = 0.9), then half as
	// wide again a step; noisyRefine bisections then narrow the bracket
	// of the ½-point to an eighth of its step.
	noisyFirst  = 0.005
	noisyGrowth = 1.5
	// noisyRefine is the number of periods added by bisection inside the
	// bracket of the ½-point once the scan has found it.
	noisyRefine = 3
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
// at x*, split into a Gaussian part on the classes x* populates (N·x*_q
// at least the rare threshold; the square root of Σ on them from its
// eigendecomposition) and Poisson counts on the others.
type noisyMap struct {
	mp    *Map
	x     []float64
	root  *mat.Dense
	rare  []bool
	n     int
	watch farm.TipWatch
	evals int
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
	d := nz.Dim
	nm.rare = make([]bool, d)
	var bulk []int
	for q := range d {
		nm.rare[q] = q >= len(x) || x[q]*float64(n) < rareServers
		if !nm.rare[q] {
			bulk = append(bulk, q)
		}
	}
	cov := nz.Covariance()
	sub := mat.NewSymDense(max(len(bulk), 1), nil)
	for a, i := range bulk {
		for b := a; b < len(bulk); b++ {
			sub.SetSym(a, b, cov.At(i, bulk[b]))
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

// errNoiseRoot says the noise covariance could not be factorised.
var errNoiseRoot = errorString("staleboard: the board noise's eigendecomposition failed")

type errorString string

func (e errorString) Error() string { return string(e) }

// run follows one run of the noisy map from x* for up to horizon periods
// with the random numbers of rng, and returns the period at which it
// tipped (farm.TipWatch; 0: not within the horizon) and the periods it
// was watched. The next board is Φ_T(x) plus the Gaussian noise on the
// common classes (negative entries set to 0) and, on the rare classes, a
// Poisson count of servers of mean N·Φ_T(x)_q; then renormalised.
func (nm *noisyMap) run(rng *rand.Rand, horizon int) (tippedAt, watched, evals int, err error) {
	w := nm.watch
	mp := nm.mp.boardOnly() // a fresh map: a Map caches, and is not safe for concurrent use
	n := float64(nm.n)
	d, cols := nm.root.Dims()
	z := mat.NewVecDense(cols, nil)
	var xi mat.VecDense
	p := nm.x
	var res MapResult
	for t := 1; t <= horizon; t++ {
		if err := mp.applyInto(p, &res); err != nil {
			return 0, t - 1, evals, err
		}
		evals++
		for i := range cols {
			z.SetVec(i, rng.NormFloat64())
		}
		xi.MulVec(nm.root, z)
		next := make([]float64, max(len(res.Next), d))
		var sum float64
		for q := range next {
			v := 0.0
			if q < len(res.Next) {
				v = res.Next[q]
			}
			switch {
			case q >= d || nm.rare[q]:
				if v > 0 {
					v = distuv.Poisson{Lambda: v * n, Src: rng}.Rand() / n
				}
			default:
				v += xi.AtVec(q) / math.Sqrt(n)
			}
			next[q] = math.Max(v, 0)
			sum += next[q]
		}
		for q := range next {
			next[q] /= sum
		}
		for len(next) > 1 && next[len(next)-1] == 0 {
			next = next[:len(next)-1]
		}
		p = next
		if w.Next(p) {
			return t, t, evals, nil
		}
	}
	return 0, horizon, evals, nil
}

// noisyPoint is the outcome of every run at one period.
type noisyPoint struct {
	T        float64
	tippedAt []int // per run (0: not within the horizon)
	watched  int
	from     []float64 // the balanced board there (continuation)
}

// noisySearch is the noisy-map edge search of one model.
type noisySearch struct {
	m       *FiniteModel
	set     *EdgeSettings
	reps    int
	rare    float64
	seed    uint64
	workers int
	evals   int
	pts     []noisyPoint
}

// at runs the noisy map at T: reps runs, run i with its own random
// stream (seed, i), the same at every period.
func (ns *noisySearch) at(T float64, from []float64) (*noisyPoint, error) {
	if err := ns.set.canceled(); err != nil {
		return nil, err
	}
	h := ns.m.horizon()
	pt := &noisyPoint{T: T, tippedAt: make([]int, ns.reps)}
	nm, err := newNoisyMap(&Model{System: ns.m.System, Period: T}, from, ns.m.Servers, ns.rare)
	if err != nil {
		return nil, err
	}
	if nm == nil {
		for i := range pt.tippedAt {
			pt.tippedAt[i] = 1
		}
		pt.watched = ns.reps
		return pt, nil
	}
	ns.evals += nm.evals
	pt.from = nm.x
	watched := make([]int, ns.reps)
	evals := make([]int, ns.reps)
	err = parallel.For(ns.reps, ns.workers, nil, func(i int) error {
		if err := ns.set.canceled(); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(ns.seed, uint64(i)))
		var err error
		pt.tippedAt[i], watched[i], evals[i], err = nm.run(rng, h)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i := range watched {
		pt.watched += watched[i]
		ns.evals += evals[i]
	}
	return pt, nil
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
	for j, pt := range ns.pts {
		tipped := 0
		for _, at := range pt.tippedAt {
			if at > 0 {
				tipped++
			}
		}
		raw[j] = float64(tipped) / float64(ns.reps)
		mt := math.Inf(1)
		if tipped > 0 {
			mt = float64(pt.watched) / float64(tipped)
		}
		out[j] = CurvePoint{Period: pt.T, Scaled: pt.T * scale, Raw: raw[j], Runs: ns.reps, MeanTime: mt}
	}
	for j, v := range antitonic(raw) {
		out[j].Probability = v
	}
	return out
}

// antitonic is the non-increasing least-squares fit to y with equal
// weights (pool adjacent violators).
func antitonic(y []float64) []float64 {
	type block struct {
		sum float64
		n   int
	}
	var bs []block
	for _, v := range y {
		bs = append(bs, block{v, 1})
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.sum/float64(a.n) >= b.sum/float64(b.n) {
				break
			}
			bs = append(bs[:len(bs)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range bs {
		for range b.n {
			out = append(out, b.sum/float64(b.n))
		}
	}
	return out
}

// noisyEdge computes the finite-N edge of model i by the noisy map, from
// the N = ∞ edge inf: the periods T*·(1 + noisyFirst·noisyGrowth^j) until
// at most a tenth of the runs tip at two in a row, then noisyRefine bisections of the bracket
// where the monotone curve falls through ½, and linear interpolation of
// the curve across it.
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
	from := inf.board
	quiet := 0
	for j := 0; quiet < 2; j++ {
		T := t0 * (1 + noisyFirst*math.Pow(noisyGrowth, float64(j)))
		if inf.Status != outcome.EdgeFound && j == 0 {
			T = t0
		}
		if T > finiteReach*t0 {
			break
		}
		pt, err := ns.at(T, from)
		if err != nil {
			return nil, err
		}
		if pt.from != nil {
			from = pt.from
		}
		ns.pts = append(ns.pts, *pt)
		tipped := 0
		for _, at := range pt.tippedAt {
			if at > 0 {
				tipped++
			}
		}
		if tipped <= ns.reps/10 {
			quiet++
		} else {
			quiet = 0
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
			start := inf.board
			for _, pt := range ns.pts {
				if pt.T <= mid && pt.from != nil {
					start = pt.from
				}
			}
			pt, err := ns.at(mid, start)
			if err != nil {
				return nil, err
			}
			ns.pts = append(ns.pts, *pt)
			cv = based()
		}
		g := halfIndex(cv)
		lo, hi := cv[g-1], cv[g]
		res.Status = outcome.EdgeFound
		res.Lo, res.Hi = lo.Period, hi.Period
		res.Period = lo.Period + (hi.Period-lo.Period)*(lo.Probability-0.5)/(lo.Probability-hi.Probability)
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
