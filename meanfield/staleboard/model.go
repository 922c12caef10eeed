package staleboard

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Tally says what the k dispatchers add to the board between refreshes.
type Tally int

const (
	// Own: each dispatcher adds its own sends to the board (the model with
	// k dispatchers; the default).
	Own Tally = iota
	// Shared: all dispatchers add every send to one shared tally; they act
	// as one dispatcher (the model with k = 1).
	Shared
	// Partitioned: each dispatcher owns N/k servers with its own board and
	// tally; each part is the model with k = 1.
	Partitioned
	// None: the dispatchers read the board alone, without tallies (best of
	// d on the board, System.Choices ≥ 1: map_bestd.go).
	None
)

func (t Tally) String() string {
	switch t {
	case Own:
		return "own"
	case Shared:
		return "shared"
	case Partitioned:
		return "partitioned"
	case None:
		return "none"
	}
	return fmt.Sprintf("tally(%d)", int(t))
}

// MaxK bounds the number of dispatchers.
const MaxK = 1000

// MinLoad is the lightest load taken. The busy servers are a fraction λ
// of the board, and the fixed-point solves and the attractor's
// classification stop at 1e-10 in ‖·‖₁: at λ = 1e-6 and T = 0.01 the
// balanced state's mean time in system came out 1 − 5e-7, below the mean
// job size (at 2e-5, 1 − 3e-8; at 1e-3 and above it holds, see
// TestDomainInvariants).
const MinLoad = 1e-4

// System is the stale load board shared by K dispatchers at load λ: jobs
// arrive at rate λ per server, the board of queue lengths is refreshed
// periodically, and each dispatcher sends to the server of least board
// value plus what it (Own), or everyone (Shared), sent since the refresh.
// It is what every problem of the package shares: Model adds the refresh
// period of the N → ∞ map, FiniteModel the servers and horizon of a
// finite system; Edge and EdgeTable search the period for it.
type System struct {
	// K is the number of dispatchers, 1..MaxK.
	K int
	// Load is λ, MinLoad ≤ λ < 1.
	Load float64
	// Tally is what the dispatchers add to the board (default Own).
	Tally Tally
	// Sizes is the job-size law: exponential (the default) or the
	// balanced-means hyperexponential H2 with 1 < SCV ≤ MaxSCV
	// (farm.H2Params). With H2 sizes a server's state is its count and
	// its phase state (phase evolution, map_phase.go).
	Sizes farm.Sizes
	// Discipline of the servers: FCFS (the default) or processor sharing.
	// With exponential sizes the two give the same counts.
	Discipline farm.Discipline
	// Alpha holds the dispatchers' shares of the arrivals α_1..α_K in its
	// first K entries (positive, sum 1; K ≤ MaxShareDispatchers), the
	// rest zero. All zero: equal shares (the default). Dispatcher r's pass
	// through level v lasts F(v)/(α_r·λ) (share evolution, map_shares.go);
	// equal shares given explicitly are the equal-share map, bit for bit.
	// An array, not a slice, so that a System stays comparable.
	Alpha [MaxShareDispatchers]float64
	// Choices is d, the servers each dispatcher samples (best of d by
	// board value plus what Tally adds: Own or None), 1..MaxChoices; 0
	// (the default) means all of them, the least board value plus tally.
	// Best of d takes exponential sizes and equal shares (map_bestd.go).
	Choices int
}

// MaxChoices bounds System.Choices: a server's arrival rate is a sum of d
// terms.
const MaxChoices = 1000

// shares returns the dispatchers' shares when they are unequal, nil for
// equal shares.
func (s *System) shares() []float64 {
	var unequal bool
	for r := 1; r < s.K && r < len(s.Alpha); r++ {
		if s.Alpha[r] != s.Alpha[0] {
			unequal = true
		}
	}
	if !unequal || s.Alpha[0] == 0 || s.Tally == Shared {
		return nil
	}
	return append([]float64(nil), s.Alpha[:s.K]...)
}

// MaxSCV bounds the squared coefficient of variation of H2 sizes: at 100
// one job in 201 is a giant of mean about 100, and a processor-sharing
// server's state (its small and giant jobs) grows with the square of its
// count.
const MaxSCV = 100

// Validate checks the system; the *param.Error names the field.
func (s *System) Validate() error {
	if s.K < 1 || s.K > MaxK {
		return param.Errorf("K", "%d dispatchers, want 1..%d", s.K, MaxK)
	}
	if !param.Finite(s.Load) || s.Load < MinLoad || s.Load >= 1 {
		return param.Errorf("Load", "λ = %v, want %v ≤ λ < 1 (the board model needs a stable system; at lighter loads the busy servers, a fraction λ, weigh too little against the solvers' tolerance 1e-10 on the board for the mean time in system)", s.Load, MinLoad)
	}
	if s.Tally < Own || s.Tally > None {
		return param.Errorf("Tally", "unknown tally %d", int(s.Tally))
	}
	if err := s.checkChoices(); err != nil {
		return err
	}
	if err := s.checkAlpha(); err != nil {
		return err
	}
	if !s.Discipline.Valid() {
		return param.Errorf("Discipline", "unknown discipline %d", int(s.Discipline))
	}
	if err := s.Sizes.Validate(); err != nil {
		return err
	}
	switch s.Sizes.Kind {
	case farm.Exponential:
	case farm.H2:
		if s.Sizes.SCV > MaxSCV {
			return param.Errorf("Sizes", "H2 with SCV %v, want at most %v (a processor-sharing server's state grows with the square of its count)", s.Sizes.SCV, float64(MaxSCV))
		}
	default:
		return param.Errorf("Sizes", "%v sizes: the map follows each server as a Markov chain between refreshes, which needs exponential or hyperexponential (h2:SCV) sizes; simulate the others", s.Sizes)
	}
	return nil
}

// checkAlpha checks the shares: all zero, or K positive entries summing
// to 1 and zeros after them.
func (s *System) checkAlpha() error {
	var any bool
	for _, a := range s.Alpha {
		any = any || a != 0
	}
	if !any {
		return nil
	}
	if s.K > MaxShareDispatchers {
		return param.Errorf("Alpha", "shares for %d dispatchers, want at most %d (a server's state carries the set of dispatchers still to send in their pass: 2^k sets)", s.K, MaxShareDispatchers)
	}
	if err := param.Distribution("Alpha", s.Alpha[:s.K], true); err != nil {
		return err
	}
	for _, a := range s.Alpha[s.K:] {
		if a != 0 {
			return param.Errorf("Alpha", "shares beyond the %d dispatchers", s.K)
		}
	}
	if s.Tally == Partitioned && s.shares() != nil {
		return param.Errorf("Alpha", "unequal shares with partitioned dispatchers: each part would run at its own load; the map covers equal parts (or a shared tally, one dispatcher whatever the shares)")
	}
	return nil
}

// checkChoices checks best of d: d in range, with own tallies or none,
// exponential sizes and equal shares (the map of map_bestd.go).
func (s *System) checkChoices() error {
	if s.Choices == 0 {
		if s.Tally == None {
			return param.Errorf("Tally", "no tally without best of d: the least board value alone sends every job to the lowest class; give Choices")
		}
		return nil
	}
	if s.Choices < 1 || s.Choices > MaxChoices {
		return param.Errorf("Choices", "best of %d, want 1..%d", s.Choices, MaxChoices)
	}
	if s.Tally != Own && s.Tally != None {
		return param.Errorf("Tally", "best of %d with a %v tally: the best-of-d map covers each dispatcher's own tally and no tally", s.Choices, s.Tally)
	}
	if s.Sizes.Kind != farm.Exponential {
		return param.Errorf("Sizes", "best of %d with %v sizes: the best-of-d map follows a server's count only (exponential sizes); H2 sizes have the least-board map", s.Choices, s.Sizes)
	}
	if s.shares() != nil {
		return param.Errorf("Alpha", "best of %d with unequal shares: the best-of-d map takes equal shares", s.Choices)
	}
	return nil
}

// exponential reports whether the system's servers are exponential (the
// window evolution; the finite-N theory is built on it).
func (s *System) exponential() bool {
	return s.Sizes.Kind == farm.Exponential && s.shares() == nil && s.Choices == 0
}

// checkExponential refuses a system the finite-N theory does not cover:
// its board noise and escape are derived for exponential FCFS servers,
// whose state is their count.
func (s *System) checkExponential() error {
	if !s.exponential() {
		if s.Choices > 0 {
			return param.Errorf("Choices", "best of %d: the finite-N theory (board noise, escape) is derived for the least board value plus tally; the N = ∞ best-of-d map and its attractors take it", s.Choices)
		}
		if s.shares() != nil {
			return param.Errorf("Alpha", "unequal shares: the finite-N theory (board noise, escape) is derived for equal shares; the N = ∞ map, its fixed points and its edge take them")
		}
		return param.Errorf("Sizes", "%v sizes: the finite-N theory (board noise, escape) is derived for exponential sizes, where a server's state is its count; the N = ∞ map, its fixed points and its edge take H2 sizes", s.Sizes)
	}
	return nil
}

// Model is the refresh-period map of a System at one refresh period, at
// N → ∞: the map (NewMap), its fixed points (FixedPoint), attractors
// (Attractor), and the N-free parts of the finite-N theory at that period
// (BoardNoise, NewEscape).
type Model struct {
	System
	// Period is the refresh period T, MinPeriod ≤ T ≤ MaxPeriod and
	// T ≤ MaxPeriodPerLoad·λ.
	Period float64
}

// MinPeriod and MaxPeriod bound the refresh period of the map. Below
// MinPeriod a period holds so few arrivals per server that the map's
// quadrature loses the mean time in system (it falls below the mean size
// 1 at T = 0.001); the cost of one evaluation grows with T (about T^1.1
// between 1,100 and 3,000, see doc.go), so MaxPeriod bounds it, and
// Attractor, which iterates thousands of periods, has the lower bound
// MaxAttractorPeriod (conservative since the window evolution; it could
// be raised).
const (
	MinPeriod          = 0.01
	MaxPeriod          = 1e6
	MaxAttractorPeriod = 5000
)

// MaxPeriodPerLoad bounds T/λ. The map's time integral of E[q] sums terms
// of order T² per server (arrivals, services, and what the floor at 0
// gives back) to a mean queue of order λ·T when the load is light, so its
// rounding error on the mean time in system is about 1.4e-16·T/λ: 7e-10 at
// this bound (measured at k = 5, T = 100: the waiting time λ·0.79 is
// right to 0.1% at λ = 1e-5, 2% off at λ = 1e-6, and the mean time in
// system falls below the mean size 1 at λ = 1e-8). It is set lower, 1e5:
// TestDomainInvariants found that from an empty board at λ ≤ 1e-3 and
// T ≥ 1,000 (T/λ ≥ 1e6) one period loses the whole board (its window
// underflows; not yet understood), and refuses rather than fails.
const MaxPeriodPerLoad = 1e5

// Validate checks the model; the *param.Error names the field.
func (m *Model) Validate() error {
	if err := m.System.Validate(); err != nil {
		return err
	}
	return checkPeriod("Period", m.Period, m.Load)
}

// checkPeriod checks a refresh period T of the map at load λ (validated)
// against its bounds, naming field.
func checkPeriod(field string, T, load float64) error {
	if !param.Finite(T) || T < MinPeriod || T > MaxPeriod {
		return param.Errorf(field, "T = %v, want %v ≤ T ≤ %v mean service times (below, a period holds too few arrivals for the map's quadrature; above, one evaluation costs minutes)", T, MinPeriod, MaxPeriod)
	}
	if T > MaxPeriodPerLoad*load {
		return param.Errorf(field, "T = %.4g at λ = %v, want T ≤ %g·λ = %.4g: at lighter loads or longer periods the map's mean time in system is lost to rounding (its error is about 1.4e-16·T/λ)", T, load, MaxPeriodPerLoad, MaxPeriodPerLoad*load)
	}
	return nil
}

// MapK is the k of the refresh-period map that describes the system: K
// with own tallies, 1 with a shared tally or partitioned dispatchers.
func (s *System) MapK() int {
	if s.Tally == Own {
		return s.K
	}
	return 1
}

// Scale is (1 − λ)², the factor that makes refresh periods comparable
// across loads: the edge is reported as T*·(1 − λ)².
func (s *System) Scale() float64 { return (1 - s.Load) * (1 - s.Load) }

// Mean is Σ b·p_b, the mean queue length of a board distribution p.
func Mean(p []float64) float64 {
	var s float64
	for b, x := range p {
		s += float64(b) * x
	}
	return s
}

// PeriodCost is the cost model of one evaluation of the map of k
// dispatchers at load λ and period T, in work units of about 10 ns on
// one core: the passes of a period (about T/m of them) each cost
// k·S·(S + k), S = m + 8√m the most service events of a pass, m =
// min(T, k/λ) its longest executed part (the boundary weights: k + 1 rows
// over S + k levels, each a sum over S service counts). Measured at
// λ = 0.9 from an empty board (one period): 3.7 ms at k = 5, T = 400 (the
// model says 2.6 ms), 8 ms at T = 3,000 (19), 22 ms at k = 50, T = 400,
// 170 ms at k = 200, T = 400 (370), 0.3 s at k = 1,000, T = 50 (1.2),
// 9 s at k = 1,000, T = 400 (8.7): within a factor 5, mostly above.
func PeriodCost(k int, load, T float64) float64 {
	m := math.Min(T, float64(k)/load)
	S := m + 8*math.Sqrt(m)
	return float64(k) * S * (S + float64(k)) * math.Max(1, T/m)
}

// MaxWork bounds the work of one computation by the cost model
// PeriodCost: 1e11 units, about a quarter of an hour on one core.
// Attractor, FixedPoint (their most periods times the cost of one) and
// Edge (edgeEvaluations at the top of its search) refuse more before
// any work: the default `fluid map` (k = 5, T = 400, 3,000 periods) is
// 8e8, and k = 1,000 at T = 400 is 2.6e12.
const MaxWork = 1e11

// checkWork refuses a computation of the given number of map evaluations
// at period T whose cost exceeds MaxWork, naming field.
func (s *System) checkWork(field string, evaluations int, T float64) error {
	w := float64(evaluations) * PeriodCost(s.MapK(), s.Load, T)
	if w <= MaxWork {
		return nil
	}
	return param.Errorf(field, "%d map evaluations at k = %d, λ = %v, T = %.4g cost about %.2g work units (PeriodCost, about 10 ns each: %.3g hours on one core), above the bound %g (about 15 minutes): fewer evaluations, fewer dispatchers or a shorter period", evaluations, s.MapK(), s.Load, T, w, w*1e-8/3600, float64(MaxWork))
}
