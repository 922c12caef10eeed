package queues

import (
	"math"
	"slices"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/qbd"
	"gonum.org/v1/gonum/mat"
)

// Bounds of Correlation.
const (
	// MaxLags bounds the lags of one Correlation.
	MaxLags = 10_000
	// maxCorrelationWork bounds the uniformised steps times the states
	// (about 10¹⁰ multiply-adds, ten seconds of one core).
	maxCorrelationWork = 1e10
)

// Correlation is one server of a farm under random dispatch: Poisson
// arrivals of rate λ, an M/H2/1 (or M/M/1) queue, FCFS or PS, watched in
// steady state. How long does a board of counts stay true? Its count Q(t)
// and the count a lag τ later have the correlation
//
//	ρ(τ) = Cov(Q(0), Q(τ)) / Var(Q),
//
// which is also what the correlation across N independent servers of
// their counts on a board τ old and now estimates. Under PS with heavy
// sizes the count is mostly giants, which stay a giant's size divided by
// 1 − λ: the board stays true on that time scale.
type Correlation struct {
	// Load is λ, MinLoad ≤ λ < 1.
	Load float64
	// Discipline of the server (default FCFS).
	Discipline farm.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes farm.Sizes
	// Lags τ ≥ 0 at which ρ is computed, at most MaxLags of them; their
	// largest times the uniformisation rate λ + μ_small times the states
	// is bounded (about 10¹⁰ steps).
	Lags []float64
}

// CorrelationResult is the autocorrelation of the count at each lag, with
// the stationary count's moments and the giants' share of it.
type CorrelationResult struct {
	// Outcome: Exact (a truncated chain evolved by uniformisation, the
	// weights cut where they fall below 10⁻¹⁶ of their mode).
	outcome.Outcome
	// Lags are the model's lags, Correlations ρ at each.
	Lags, Correlations []float64
	// Mean and Variance of the stationary count.
	Mean, Variance float64
	// GiantShare is the fraction of the jobs present that are giants (time
	// average); GiantStay and SmallStay the mean times in system of a
	// giant and of a small job (0 for exponential sizes).
	GiantShare, GiantStay, SmallStay float64
	// MaxQueue is the truncation of the count (arrivals to a server
	// holding MaxQueue jobs are turned away), Lost the stationary
	// probability of being full (the fraction turned away), States the
	// states of the chain.
	MaxQueue int
	Lost     float64
	States   int
}

// Validate checks the parameters (*param.Error names the bad field).
func (m *Correlation) Validate() error {
	if err := validLoad(m.Load); err != nil {
		return err
	}
	if err := validDiscipline(m.Discipline); err != nil {
		return err
	}
	if _, err := lawOf(m.Sizes); err != nil {
		return err
	}
	if len(m.Lags) == 0 || len(m.Lags) > MaxLags {
		return param.Errorf("Lags", "%d lags, want 1..%d", len(m.Lags), MaxLags)
	}
	for _, t := range m.Lags {
		if !param.Finite(t) || t < 0 {
			return param.Errorf("Lags", "lag %v, want a finite τ ≥ 0", t)
		}
	}
	return nil
}

// sparseChain is a CTMC in compressed rows: state s moves to to[k] at
// rate[k] for k in [start[s], start[s+1]).
type sparseChain struct {
	start []int
	to    []int32
	rate  []float64
	out   []float64 // total outflow of each state
	count []float64 // jobs in each state
	giant []float64 // giants in each state
}

func (c *sparseChain) add(to int, r float64) {
	if r > 0 {
		c.to = append(c.to, int32(to))
		c.rate = append(c.rate, r)
	}
}

func (c *sparseChain) close(n, g int) {
	c.start = append(c.start, len(c.to))
	c.count = append(c.count, float64(n))
	c.giant = append(c.giant, float64(g))
	s := len(c.start) - 2
	var o float64
	for _, r := range c.rate[c.start[s]:] {
		o += r
	}
	c.out = append(c.out, o)
}

// fcfsM1 is the M/K/1 FCFS queue truncated at M jobs: state 0 empty,
// then (n, phase of the job in service) for n = 1…M.
func fcfsM1(load float64, lw law, M int) *sparseChain {
	k := len(lw.p)
	idx := func(n, c int) int {
		if n == 0 {
			return 0
		}
		return 1 + (n-1)*k + c
	}
	ch := &sparseChain{start: []int{0}}
	for q := range k {
		ch.add(idx(1, q), load*lw.p[q])
	}
	ch.close(0, 0)
	for n := 1; n <= M; n++ {
		for c := range k {
			if n < M {
				ch.add(idx(n+1, c), load)
			}
			if n == 1 {
				ch.add(0, lw.mu[c])
			} else {
				for q := range k {
					ch.add(idx(n-1, q), lw.mu[c]*lw.p[q])
				}
			}
			g := 0
			if c == 1 {
				g = 1 // a giant in service; the queued jobs' classes are not in the state
			}
			ch.close(n, g)
		}
	}
	return ch
}

// psM1 is the M/H2/1-PS queue truncated at M jobs: (n, j giants), level
// n at n(n+1)/2.
func psM1(load float64, lw law, M int) *sparseChain {
	p, ms, mg := lw.p[1], lw.mu[0], lw.mu[1]
	ch := &sparseChain{start: []int{0}}
	for n := 0; n <= M; n++ {
		for j := 0; j <= n; j++ {
			if n < M {
				ch.add(levelStart(n+1)+j, load*(1-p))
				ch.add(levelStart(n+1)+j+1, load*p)
			}
			if n > 0 {
				if j < n {
					ch.add(levelStart(n-1)+j, ms*float64(n-j)/float64(n))
				}
				if j > 0 {
					ch.add(levelStart(n-1)+j-1, mg*float64(j)/float64(n))
				}
			}
			ch.close(n, j)
		}
	}
	return ch
}

// step writes dst = v·(I + Q/Λ).
func (c *sparseChain) step(dst, v []float64, lam float64) {
	copy(dst, v)
	il := 1 / lam
	for s, x := range v {
		if x == 0 {
			continue
		}
		y := x * il
		dst[s] -= y * c.out[s]
		for k := c.start[s]; k < c.start[s+1]; k++ {
			dst[c.to[k]] += y * c.rate[k]
		}
	}
}

// SolveCorrelation computes ρ(τ) at each lag: the stationary law π of
// the truncated chain (PS: the symmetric queue's product form
// π(n, j) ∝ λⁿ·C(n, j)/2ⁿ, exact also when truncated, Kelly,
// Reversibility and Stochastic Networks, §3.3; FCFS: linear level
// reduction, package qbd), then the centred vector
// v = π·(Q − E[Q]) evolved by uniformisation (Jensen's method: e^{Gt} =
// Σ_k Pois(Λt; k)·(I + G/Λ)^k, Λ the largest outflow), so that
// Cov(Q(0), Q(τ)) = v·e^{Gτ}·(Q − E[Q]) keeps its precision when ρ is
// small. The lags are visited in increasing order, each from the one
// before. The truncation is where the count's geometric tail (PS:
// exactly λⁿ; FCFS: the slowest decay of the M/H2/1 queue, from its QBD)
// falls below TailTol; Lost reports what it turns away.
func SolveCorrelation(m *Correlation, s *Settings) (*CorrelationResult, error) {
	start := time.Now()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	lw, _ := lawOf(m.Sizes)
	tailTol := s.tailTol()
	ps := m.Discipline == farm.PS && lw.h2()
	// The count's decay per level.
	eta := m.Load
	if !ps {
		eta = fcfsDecay(m.Load, lw)
	}
	M := max(20, int(math.Ceil(math.Log(tailTol)/math.Log(eta)))+10)
	states := float64(1 + M*len(lw.p))
	if ps {
		states = float64(levelStart(M + 1))
	}
	lam := m.Load + slices.Max(lw.mu)
	maxLag := slices.Max(m.Lags)
	if states > MaxStates {
		return nil, param.Errorf("Load", "λ = %v needs a truncation at %d jobs (%.3g states), more than %d states: the count decays like %.6g per job", m.Load, M, states, MaxStates, eta)
	}
	if w := states * (lam*maxLag + 10*math.Sqrt(lam*maxLag) + 10); w > maxCorrelationWork {
		return nil, param.Errorf("Lags", "the largest lag %v takes about %.3g uniformised steps over %.3g states, more than %.3g in all", maxLag, lam*maxLag, states, maxCorrelationWork)
	}
	var ch *sparseChain
	var pi []float64
	if ps {
		ch = psM1(m.Load, lw, M)
		pi = stationaryPS(m.Load, M, len(ch.out))
	} else {
		ch = fcfsM1(m.Load, lw, M)
		var err error
		if pi, err = stationaryFCFS(ch, M, len(lw.p)); err != nil {
			return nil, err
		}
	}
	res := &CorrelationResult{Lags: append([]float64(nil), m.Lags...), MaxQueue: M, States: len(pi)}
	res.Status = outcome.Exact
	eq, centred := res.moments(pi, ch, M, m.Load, lw, ps)
	res.correlate(m.Lags, centred, ch, lam, eq, s.run())
	vals := append([]float64{res.Mean, res.Variance, res.GiantShare, res.GiantStay, res.SmallStay, res.Lost}, res.Correlations...)
	if !param.AllFinite(vals) || !(res.Variance > 0) {
		res.Status = outcome.InvalidResult
		for i := range res.Correlations {
			res.Correlations[i] = 0
		}
		res.Mean, res.Variance, res.GiantShare, res.GiantStay, res.SmallStay = 0, 0, 0, 0, 0
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// stationaryPS is the PS queue's stationary law truncated at M jobs:
// the count is geometric (λⁿ) and, given n jobs, the giants among them
// binomial(n, 1/2) in the level's states (normalised over the truncation).
func stationaryPS(load float64, M, states int) []float64 {
	pi := make([]float64, states)
	var tot float64
	for n := 0; n <= M; n++ {
		lg, _ := math.Lgamma(float64(n + 1))
		for j := 0; j <= n; j++ {
			l1, _ := math.Lgamma(float64(j + 1))
			l2, _ := math.Lgamma(float64(n - j + 1))
			v := math.Exp(lg - l1 - l2 + float64(n)*math.Log(load/2))
			pi[levelStart(n)+j] = v
			tot += v
		}
	}
	for i := range pi {
		pi[i] /= tot
	}
	return pi
}

// moments sets res's Mean, Variance, Lost and the giants' share and stays
// from the stationary law pi, and returns the mean count and the centred
// vector π·(Q − E[Q]).
func (res *CorrelationResult) moments(pi []float64, ch *sparseChain, M int, load float64, lw law, ps bool) (eq float64, centred []float64) {
	var eg float64
	for s, v := range pi {
		eq += v * ch.count[s]
		eg += v * ch.giant[s]
	}
	centred = make([]float64, len(pi))
	for s, v := range pi {
		d := ch.count[s] - eq
		res.Variance += v * d * d
		centred[s] = v * d
	}
	res.Mean = eq
	for s := len(pi) - 1; s >= 0 && ch.count[s] == float64(M); s-- {
		res.Lost += pi[s]
	}
	through := load * (1 - res.Lost)
	if lw.h2() {
		pg := lw.p[1]
		if ps {
			res.GiantShare = eg / eq
			res.GiantStay = eg / (through * pg)
			res.SmallStay = (eq - eg) / (through * (1 - pg))
		} else {
			// FCFS: every job waits the same W (independent of its class),
			// so E[T | class] = E[W] + 1/μ_class, with E[W] = E[T] − 1 from
			// Little's law.
			ew := eq/through - 1
			res.GiantStay = ew + 1/lw.mu[1]
			res.SmallStay = ew + 1/lw.mu[0]
			res.GiantShare = pg * res.GiantStay / (eq / through)
		}
	}
	return eq, centred
}

// correlate sets res.Correlations: ρ at each lag, from the centred vector
// π·(Q − E[Q]) evolved by uniformisation at rate lam; the lags in
// increasing order, each evolved from the one before.
func (res *CorrelationResult) correlate(lags, centred []float64, ch *sparseChain, lam, eq float64, run outcome.Run) {
	order := make([]int, len(lags))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpFloat(lags[a], lags[b]) })
	res.Correlations = make([]float64, len(lags))
	v := centred
	w := make([]float64, len(v))
	acc := make([]float64, len(v))
	prev := 0.0
	for _, i := range order {
		if run.Stopped() {
			res.Status = outcome.Interrupted
			break
		}
		dt := lags[i] - prev
		if dt > 0 {
			steps := uniformise(acc, v, w, ch, lam, dt)
			res.Evaluations += steps
			v, acc = acc, v
		}
		prev = lags[i]
		var cov float64
		for s, x := range v {
			cov += x * (ch.count[s] - eq)
		}
		res.Correlations[i] = cov / res.Variance
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// uniformise writes dst = v·e^{Gt} by Jensen's method, with w as work
// space (v is overwritten), and returns the steps taken.
func uniformise(dst, v, w []float64, ch *sparseChain, lam, t float64) int {
	k0, wts := poissonWeights(lam * t)
	clear(dst)
	for k := 0; k < k0+len(wts); k++ {
		if k >= k0 {
			c := wts[k-k0]
			for s, x := range v {
				dst[s] += c * x
			}
		}
		if k < k0+len(wts)-1 {
			ch.step(w, v, lam)
			v, w = w, v
		}
	}
	return k0 + len(wts)
}

// poissonWeights returns the Poisson(mu) probabilities from k0 on, where
// they exceed 10⁻¹⁶ of the mode's, normalised to sum 1 (the mass cut is
// below 10⁻¹⁵ of the total); computed outward from the mode by
// w(k±1) = w(k)·(μ/(k+1) or k/μ), so nothing under- or overflows.
func poissonWeights(mu float64) (int, []float64) {
	mode := math.Floor(mu)
	var left []float64
	for k, w := mode, 1.0; k > 0; k-- {
		w *= k / mu
		if w < 1e-16 {
			break
		}
		left = append(left, w)
	}
	wts := make([]float64, 0, 2*len(left)+10)
	for i := len(left) - 1; i >= 0; i-- {
		wts = append(wts, left[i])
	}
	wts = append(wts, 1)
	for k, w := mode+1, 1.0; ; k++ {
		w *= mu / k
		if w < 1e-16 {
			break
		}
		wts = append(wts, w)
	}
	var sum float64
	for _, w := range wts {
		sum += w
	}
	for i := range wts {
		wts[i] /= sum
	}
	return int(mode) - len(left), wts
}

// fcfsDecay is the geometric decay rate of the M/H2/1 FCFS count, the
// spectral radius of the R of its QBD (level n ≥ 1, phase of the job in
// service); exponential sizes: λ.
func fcfsDecay(load float64, lw law) float64 {
	if !lw.h2() {
		return load
	}
	h := &qbd.Homogeneous{A0: mat.NewDense(2, 2, nil), A1: mat.NewDense(2, 2, nil), A2: mat.NewDense(2, 2, nil)}
	for c := range 2 {
		h.A0.Set(c, c, load)
		h.A1.Set(c, c, -load-lw.mu[c])
		for q := range 2 {
			h.A2.Set(c, q, lw.mu[c]*lw.p[q])
		}
	}
	sol, err := qbd.Solve(h, nil)
	if err != nil || !sol.Status.OK() || !(sol.Decay > 0 && sol.Decay < 1) {
		// Never expected for a valid load; the truncation check (Lost)
		// still reports what a poor guess costs.
		return 1 - (1-load)/(1+lw.scv)
	}
	return sol.Decay
}

// stationaryFCFS solves the truncated FCFS chain level by level.
func stationaryFCFS(ch *sparseChain, M, k int) ([]float64, error) {
	idx := func(n, c int) int {
		if n == 0 {
			return 0
		}
		return 1 + (n-1)*k + c
	}
	dim := func(n int) int {
		if n == 0 {
			return 1
		}
		return k
	}
	l := &qbd.Levels{}
	for n := 0; n <= M; n++ {
		local := mat.NewDense(dim(n), dim(n), nil)
		var up, down *mat.Dense
		if n < M {
			up = mat.NewDense(dim(n), dim(n+1), nil)
		}
		if n > 0 {
			down = mat.NewDense(dim(n), dim(n-1), nil)
		}
		for c := range dim(n) {
			s := idx(n, c)
			local.Set(c, c, -ch.out[s])
			for e := ch.start[s]; e < ch.start[s+1]; e++ {
				to := int(ch.to[e])
				tn := int(ch.count[to])
				tc := 0
				if tn > 0 {
					tc = (to - 1) % k
				}
				switch tn {
				case n + 1:
					up.Set(c, tc, up.At(c, tc)+ch.rate[e])
				case n - 1:
					down.Set(c, tc, down.At(c, tc)+ch.rate[e])
				default:
					local.Set(c, tc, local.At(c, tc)+ch.rate[e])
				}
			}
		}
		l.Local, l.Up, l.Down = append(l.Local, local), append(l.Up, up), append(l.Down, down)
	}
	d, err := qbd.Stationary(l, nil)
	if err != nil {
		return nil, err
	}
	var pi []float64
	for _, p := range d.Pi {
		pi = append(pi, p...)
	}
	return pi, nil
}
