package staleboard

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Map is the refresh-period map Φ_T of the stale load board with k
// dispatchers that each add their own sends: it takes the distribution of
// queue lengths on the board at a refresh to the distribution at the next
// refresh, T later, in the N → ∞ limit.
//
// Within a period each dispatcher raises a water level v = 0, 1, 2, …;
// pass v lasts L_v = k·F(v)/λ (F the board's distribution function);
// during pass v every server whose board reads b ≤ v receives k jobs, one
// per dispatcher, at independent uniform times in the pass; servers serve
// at rate 1; the period is cut at T, possibly mid-pass.
//
// Apply evaluates the period on a window of the levels that can still
// empty before T and moves the rest to T at once (package documentation,
// "The refresh-period map"): a period costs about T^1.1, not T^2.2.
//
// A Map holds work space and the weights of its passes, kept from one
// period to the next: it is not safe for concurrent use.
type Map struct {
	K      int     // dispatchers of the map (Model.MapK)
	Load   float64 // λ
	Period float64 // T
	// TrimTol is the mass below which the top of a queue-length
	// distribution is cut off, and PoissonTol the tail of the number of
	// service events ignored in a pass. Both masses are counted as lost
	// (MapResult.Lost) and never renormalised away, like the terms below
	// TrimTol·1e-10 the evaluation drops. Defaults 1e-20 and 1e-17.
	TrimTol, PoissonTol float64

	// noIntegral skips the time integral of E[q] (MeanQueue and Sojourn
	// come out NaN): a map used only for its next board (solves, orbits)
	// saves the quadrature it needs.
	noIntegral bool
	// reference evolves every period by evolveReference, the reference
	// path of the tests (map_ref_test.go), which compare the two.
	reference bool
	// server is the server chain of the phase evolution (map_phase.go),
	// nil for the exponential FCFS map; ps its work space.
	server *phaseServer
	ps     phaseSpace
	// death computes the phase evolution's death chains beside its passes
	// (map_phase.go); deathJobs are the chains of an evaluation.
	death     *deathHelper
	deathJobs []deathJob
	// shares are the dispatchers' unequal shares (share evolution,
	// map_shares.go), nil for equal shares.
	shares []float64
	// bestd is the best-of-d evolution (map_bestd.go), nil for the least
	// board value plus tally.
	bestd *bestdMap

	cache  map[passKey]*passWeights
	gl     map[int][2][]float64 // Gauss–Legendre rules by size
	logC   []float64            // log C(k, j)
	d0, d1 [][]float64          // D(a, s−1) and D(a, s) rows of the pass recursion
	mp, mc []float64            // their means
	pmf    []float64            // Poisson terms of a class's death law

	// Work space of the window evolution (map_window.go), reused from one
	// period to the next.
	bcache map[passKey]*boundaryWeights // boundary weights by pass
	bfree  []*boundaryWeights           // recycled by a cleared cache
	bsize  int                          // floats held by bcache
	ws     windowSpace
}

// MapResult is one application of the map.
type MapResult struct {
	// Next is the board distribution at the next refresh, p′; Next[b] is
	// the mass at queue length b. With hyperexponential sizes it is the
	// state law at the next refresh (see Map.State), and Counts is its
	// count marginal, the board; Counts is nil with exponential sizes.
	Next   []float64
	Counts []float64
	// MeanQueue is the time-average of E[q] over the period.
	MeanQueue float64
	// Sojourn is the mean time in system, MeanQueue/λ (Little's law).
	Sojourn float64
	// BoardMean is Σ b·p′_b, the mean board value at the next refresh.
	BoardMean float64
	// Lost is the mass lost to truncation in this application.
	Lost float64
	// Pass is V, the pass in progress at T: the branch label of the
	// piecewise-smooth map.
	Pass int
	// PassStart and PassEnd are t_V and t_{V+1}: T lies in
	// [PassStart, PassEnd). The map's derivative jumps when either crosses
	// T (a border).
	PassStart, PassEnd float64
}

// NewMap returns the map of the model at its period (Period > 0).
func NewMap(m *Model) (*Map, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return newModelMap(&m.System, m.Period), nil
}

// newModelMap returns the map of the system at period T, for parameters
// already validated: the window evolution for exponential sizes, the
// phase evolution otherwise.
func newModelMap(sys *System, T float64) *Map {
	mp := newMap(sys.MapK(), sys.Load, T)
	if sys.Sizes.Kind != farm.Exponential {
		mp.server = newPhaseServer(sys.Sizes, sys.Discipline)
	}
	if sys.Choices > 0 {
		mp.bestd = &bestdMap{d: sys.Choices, tally: sys.Tally == Own}
	}
	if sh := sys.shares(); sh != nil {
		mp.shares = sh
		if mp.server == nil {
			mp.server = newPhaseServer(sys.Sizes, sys.Discipline)
		}
	}
	return mp
}

// newMap returns the map with k dispatchers, for parameters already
// validated.
func newMap(k int, load, period float64) *Map {
	return &Map{K: k, Load: load, Period: period, cache: map[passKey]*passWeights{}}
}

// boardOnly returns a map of the same model that computes the next board
// only, without the mean time in system.
func (m *Map) boardOnly() *Map {
	f := newMap(m.K, m.Load, m.Period)
	f.noIntegral = true
	f.TrimTol, f.PoissonTol = m.TrimTol, m.PoissonTol
	f.reference = m.reference
	f.server = m.server
	f.shares = m.shares
	if m.bestd != nil {
		f.bestd = &bestdMap{d: m.bestd.d, tally: m.bestd.tally, rounding: m.bestd.rounding, rk4: m.bestd.rk4}
	}
	return f
}

func (m *Map) trimTol() float64 {
	if m.TrimTol > 0 {
		return m.TrimTol
	}
	return 1e-20
}

func (m *Map) poissonTol() float64 {
	if m.PoissonTol > 0 {
		return m.PoissonTol
	}
	return 1e-17
}

// checkBoard validates a board distribution: finite, non-negative, total
// mass in (0.999, 1 + 1e-9] (a little below 1 allows mass lost by earlier
// applications).
func checkBoard(p []float64) (float64, error) {
	if len(p) == 0 {
		return 0, param.Errorf("Start", "empty board distribution")
	}
	var sum float64
	for b, x := range p {
		if !param.Finite(x) || x < 0 {
			return 0, param.Errorf("Start", "board mass at %d is %v, want a finite number ≥ 0", b, x)
		}
		sum += x
	}
	if sum <= 0.999 || sum > 1+param.SumTol {
		return 0, param.Errorf("Start", "board distribution has mass %.12g, want 1", sum)
	}
	return sum, nil
}

// Apply evaluates Φ_T(p) into a new result (the work space is the map's).
func (m *Map) Apply(p []float64) (*MapResult, error) {
	res := &MapResult{}
	if err := m.applyInto(p, res); err != nil {
		return nil, err
	}
	return res, nil
}

// applyInto evaluates Φ_T(p) into res, reusing res.Next's storage: with
// the map's work space, a period allocates nothing once the buffers have
// grown.
func (m *Map) applyInto(p []float64, res *MapResult) error {
	mass, err := checkBoard(p)
	if err != nil {
		return err
	}
	top := boardTop(p)
	m.applyTo(p, top, mass, res)
	if m.bestd != nil && m.bestd.overCap {
		return errWorkBudget
	}
	return nil
}

// levelPriced reports whether the map's cost grows with the board's
// levels (best of d without tallies: supportCost prices it by them).
func (m *Map) levelPriced() bool { return m.bestd != nil && !m.bestd.tally }

// countsWork reports whether the map's evaluations count their work as
// they go (best of d with a tally, by the projected superposition).
func (m *Map) countsWork() bool {
	return m.bestd != nil && m.bestd.tally && !m.bestd.rounding
}

// setWorkCap bounds the work of each of the map's next evaluations that
// count their work as they go (countsWork), whose evaluation then fails
// with errWorkBudget past c; 0: the work bound, workBudget.
func (m *Map) setWorkCap(c float64) {
	if m.bestd != nil {
		m.bestd.workCap = c
	}
}

// countedWork is the work the last evaluation counted as it went, 0 for
// the evaluations priced before they start (supportCost).
func (m *Map) countedWork() float64 {
	if m.countsWork() {
		return m.bestd.workUsed
	}
	return 0
}

// applyTo evaluates Φ_T(p) for a checked board (top its last non-zero
// class, mass its total) into res.
func (m *Map) applyTo(p []float64, top int, mass float64, res *MapResult) {
	if m.bestd != nil {
		m.applyBestd(p, top, mass, res)
		return
	}
	if m.shares != nil {
		m.applyShares(p, mass, res)
		return
	}
	if m.server != nil {
		m.applyPhase(p, mass, res)
		return
	}
	s := m.scheduleInto(&m.ws.sched, p, top, mass)
	next := res.Next[:0]
	*res = MapResult{Next: next, Pass: s.V, PassStart: s.t[s.V], PassEnd: s.t[s.V] + s.L[s.V]}
	if m.reference {
		evolveReference(m, p, top, s, res)
		return
	}
	m.evolve(p, top, s, res)
}

// evolveReference is the reference evolution of a period, defined by the
// tests (nil outside them: only they set Map.reference).
var evolveReference func(m *Map, p []float64, top int, s *passes, res *MapResult)

// passes is the schedule of a period: pass v starts at t[v] and lasts
// L[v], v = 0..V, with V the pass in progress at T.
type passes struct {
	t, L []float64
	V    int
}

// schedule computes the passes of board p (mass its total, top its last
// non-zero class): L_v = k·F(v)/λ, t_{v+1} = t_v + L_v, until the pass
// in progress at T.
func (m *Map) schedule(p []float64, top int, mass float64) passes {
	var s passes
	m.scheduleInto(&s, p, top, mass)
	return s
}

// scheduleInto is schedule into s, reusing its storage.
func (m *Map) scheduleInto(s *passes, p []float64, top int, mass float64) *passes {
	T := m.Period
	s.t, s.L = s.t[:0], s.L[:0]
	s.V, _, _ = walkSchedule(m.K, m.Load, p, top, mass, func(v int, t, L float64, past bool) bool {
		s.t = append(s.t, t)
		s.L = append(s.L, L)
		return t+L >= T || (L == 0 && past)
	})
	return s
}

// walkSchedule steps through the pass schedule of the board p (top its
// last non-zero class, mass its total): pass v starts at t_v and lasts
// L_v = k·F(v)/λ, F the board's distribution function, t_{v+1} = t_v + L_v.
// It stops at the first pass for which stop(v, t_v, L_v, v > top) holds
// and returns it.
func walkSchedule(k int, load float64, p []float64, top int, mass float64, stop func(v int, t, L float64, past bool) bool) (int, float64, float64) {
	t, cum := 0.0, 0.0 // cum: F(v)
	for v := 0; ; v++ {
		if v <= top {
			cum += p[v]
		} else {
			cum = mass
		}
		L := float64(k) * cum / load
		if stop(v, t, L, v > top) {
			return v, t, L
		}
		t += L
	}
}

// boardTop returns the last non-zero class of the board p (0 if none).
func boardTop(p []float64) int {
	top := len(p) - 1
	for top > 0 && p[top] == 0 {
		top--
	}
	return top
}

// trimTop removes the entries at the top of *p below tol and returns their
// mass.
func trimTop(p *[]float64, tol float64) float64 {
	v := *p
	n := len(v)
	var cut float64
	for n > 1 && v[n-1] < tol {
		cut += v[n-1]
		n--
	}
	*p = v[:n]
	return cut
}

// deathCut is the Poisson term, relative to the mode's, below which the
// death law of a class is not computed: every mass the map keeps is far
// above it (TrimTol is 1e-20).
const deathCut = 1e-30

// deathFrom returns the distribution at time t of a queue that starts at b
// and only serves (rate 1), P(q = j) = Pois(b − j; t) for j ≥ 1 and the
// rest at 0, and ∫₀^t E[q(s)] ds = Σ_{i<b} (b − i)·P(N(t) ≥ i + 1), N a
// Poisson(t) count.
func deathFrom(b int, t float64) ([]float64, float64) {
	var pmf []float64
	return addDeath(make([]float64, b+1), &pmf, 1, b, t)
}

// addDeath adds w times the death law of deathFrom(b, t) into dst (grown
// as needed, returned) and returns w times its time integral, using
// *scratch as work space. Only the Poisson(t) terms above deathCut of the
// mode's are computed: a window of about ±12√t around t, so a class costs
// O(√t), not O(b).
func addDeath(dst []float64, scratch *[]float64, w float64, b int, t float64) ([]float64, float64) {
	if len(dst) < b+1 {
		dst = append(dst, make([]float64, b+1-len(dst))...)
	}
	if t == 0 || b == 0 {
		dst[b] += w
		return dst, 0
	}
	lo, pmf := deathWindow(scratch, b, t)
	return dst, w * deathInto(dst, pmf, w, b, lo)
}

// deathWindow returns the Poisson(t) terms of the death law of a class b
// (t > 0, b ≥ 1) that addDeath keeps: pmf[i − lo] = Pois(i; t) for i =
// lo..hi, from the mode (capped at b − 1) outward down to deathCut of its
// term, in *scratch.
func deathWindow(scratch *[]float64, b int, t float64) (int, []float64) {
	// Poisson(t) pmf from the mode outward by the ratio pmf(i+1)/pmf(i) =
	// t/(i+1): one exponential, no underflow trouble.
	mode := min(int(t), b-1)
	lg, _ := math.Lgamma(float64(mode) + 1)
	peak := math.Exp(-t + float64(mode)*math.Log(t) - lg)
	lo, hi := mode, mode
	for v := peak; hi+1 < b; {
		v *= t / float64(hi+1)
		if v < deathCut*peak {
			break
		}
		hi++
	}
	for v := peak; lo > 0; {
		v *= float64(lo) / t
		if v < deathCut*peak {
			break
		}
		lo--
	}
	if cap(*scratch) < hi-lo+1 {
		*scratch = make([]float64, hi-lo+1)
	}
	pmf := (*scratch)[:hi-lo+1]
	pmf[mode-lo] = peak
	for i := mode + 1; i <= hi; i++ {
		pmf[i-lo] = pmf[i-1-lo] * t / float64(i)
	}
	for i := mode - 1; i >= lo; i-- {
		pmf[i-lo] = pmf[i+1-lo] * float64(i+1) / t
	}
	return lo, pmf
}

// deathInto adds w times the death law of class b with the Poisson terms
// pmf (from lo) into dst (long enough) and returns its time integral per
// unit mass.
func deathInto(dst, pmf []float64, w float64, b, lo int) float64 {
	// Below the window N(t) < lo has no mass: those terms of the integral
	// are (b − i)·1; above it, the tail is gone and they vanish.
	fl, fb := float64(lo), float64(b)
	integ := fl*fb - fl*(fl-1)/2
	var cdf float64
	for k, p := range pmf {
		i := lo + k
		dst[b-i] += w * p
		cdf += p
		integ += float64(b-i) * math.Max(0, 1-cdf)
	}
	dst[0] += w * math.Max(0, 1-cdf)
	return integ
}

// String describes the map.
func (m *Map) String() string {
	return fmt.Sprintf("refresh-period map k=%d λ=%g T=%g", m.K, m.Load, m.Period)
}
