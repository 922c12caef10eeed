package staleboard

import (
	"fmt"
	"math"

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
// A Map holds work space: it is not safe for concurrent use.
type Map struct {
	K      int     // dispatchers of the map (Model.MapK)
	Load   float64 // λ
	Period float64 // T
	// TrimTol is the mass below which the top of a queue-length
	// distribution is cut off, and PoissonTol the tail of the number of
	// service events ignored in a pass. Both masses are counted as lost
	// (MapResult.Lost) and never renormalised away. Defaults 1e-20 and
	// 1e-17.
	TrimTol, PoissonTol float64

	// noIntegral skips the time integral of E[q] (MeanQueue and Sojourn
	// come out NaN): a map used only for its next board (solves, orbits)
	// saves the quadrature it needs.
	noIntegral bool

	cache  map[passKey]*passWeights
	gl     map[int][2][]float64 // Gauss–Legendre rules by size
	logC   []float64            // log C(k, j)
	d0, d1 [][]float64          // D(a, s−1) and D(a, s) rows of the pass recursion
	mp, mc []float64            // their means
	pmf    []float64            // Poisson terms of a class's death law
}

// MapResult is one application of the map.
type MapResult struct {
	// Next is the board distribution at the next refresh, p′; Next[b] is
	// the mass at queue length b.
	Next []float64
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
	if err := m.validateMap(); err != nil {
		return nil, err
	}
	return newMap(m.MapK(), m.Load, m.Period), nil
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

// Apply evaluates Φ_T(p).
func (m *Map) Apply(p []float64) (*MapResult, error) {
	mass, err := checkBoard(p)
	if err != nil {
		return nil, err
	}
	top := len(p) - 1
	for top > 0 && p[top] == 0 {
		top--
	}
	s := m.schedule(p, top, mass)
	res := &MapResult{Pass: s.V, PassStart: s.t[s.V], PassEnd: s.t[s.V] + s.L[s.V]}
	m.evolve(p, top, &s, res)
	return res, nil
}

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
	k, lam, T := m.K, m.Load, m.Period
	var s passes
	t := 0.0
	var cum float64 // F(v)
	for v := 0; ; v++ {
		if v <= top {
			cum += p[v]
		} else {
			cum = mass
		}
		L := float64(k) * cum / lam
		s.t = append(s.t, t)
		s.L = append(s.L, L)
		if t+L >= T || (L == 0 && v > top) {
			s.V = v
			return s
		}
		t += L
	}
}

// evolve runs one period of board p (top its last non-zero class) through
// the passes s and fills res's distribution, mean queue, sojourn, board
// mean and lost mass. The passes need not be p's own: perturbed passes
// give the map's response to the dispatchers' timing.
func (m *Map) evolve(p []float64, top int, s *passes, res *MapResult) {
	T := m.Period
	// Aggregate distribution of the activated servers (board ≤ v), at t_v.
	agg := []float64{}
	var integral float64 // ∫₀^T E[q] dt, summed over all servers
	for v := 0; v <= s.V; v++ {
		t, L := s.t[v], s.L[v]
		// Activate class v at t_v: pure death from v for time t_v.
		if v <= top && p[v] > 0 {
			var integ float64
			agg, integ = addDeath(agg, &m.pmf, p[v], v, t)
			integral += integ
		}
		if v == s.V {
			// Pass V is in progress at T.
			var integ, lost float64
			agg, integ, lost = m.pass(agg, L, T-t)
			integral += integ
			res.Lost += lost
			break
		}
		if L > 0 {
			var integ, lost float64
			agg, integ, lost = m.pass(agg, L, L)
			integral += integ
			res.Lost += lost
			// Each pass can raise the support by k; cut the negligible top
			// (counted as lost) so the recursion runs only over live classes.
			res.Lost += trimTop(&agg, m.trimTol())
		}
	}
	// Classes above V were never activated: pure death over [0, T].
	next := agg
	for b := s.V + 1; b <= top; b++ {
		if p[b] == 0 {
			continue
		}
		var integ float64
		next, integ = addDeath(next, &m.pmf, p[b], b, T)
		integral += integ
	}
	// Trim the negligible top and count it as lost.
	tol := m.trimTol()
	n := len(next)
	for n > 1 && next[n-1] < tol {
		res.Lost += next[n-1]
		n--
	}
	res.Next = append([]float64(nil), next[:n]...)
	res.BoardMean = Mean(res.Next)
	res.MeanQueue = integral / T
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
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
	return dst, w * integ
}

// String describes the map.
func (m *Map) String() string {
	return fmt.Sprintf("refresh-period map k=%d λ=%g T=%g", m.K, m.Load, m.Period)
}
