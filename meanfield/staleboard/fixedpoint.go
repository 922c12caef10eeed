package staleboard

import (
	"errors"
	"math"
	"time"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/outcome"
)

// supportFunc is the refresh map on the fixed support 0..len−1, as a
// fixedpoint.Func. Mass that the map sends above the support is lost (and
// recorded), never renormalised.
type supportFunc struct {
	m    *Map
	lost float64 // largest mass lost in one evaluation
	// last is the last evaluation (its storage, res, is reused by the
	// next: an evaluation allocates nothing once the buffers have grown).
	last *MapResult
	res  MapResult
	// strict makes eval fail with errLeftSupport once an evaluation loses
	// more than 1e-12 (lastIn keeps the input that did).
	strict bool
	lastIn []float64
	// grown is the support the evaluation that failed strict asks for:
	// twice the support of its output, plus margin.
	grown int
	// recent holds the mean times in system of the last evaluations
	// (a ring of length cap(recent), filled if non-nil); series, if not
	// nil, all of them (appended).
	recent []float64
	series []float64
	nEval  int
	// work is the cost of the evaluations so far by supportCost, and
	// budget, if positive, the most they may cost: the evaluation that
	// would pass it fails with errWorkBudget instead (lastIn keeps its
	// input).
	work, budget float64
}

// errWorkBudget says the evaluations would cost more than MaxWork.
var errWorkBudget = errors.New("staleboard: the map evaluations would cost more than the work bound")

// bestdLevelCost is the cost, in PeriodCost's units of about 10 ns, of
// one board level of the best-of-d map without tallies per √T + 10: each
// level's M/M/1 transient is a Skellam window of about √T terms. Measured
// (one evaluation of a board spread evenly over L levels, L = 1,000 to
// 16,000, T = 500 and 5,000, λ = 0.9 and 0.999999): 150–375 ns per level
// and √T, so 40 units bounds it.
const bestdLevelCost = 40

// supportCost is the cost of one evaluation at x on the support: the
// least-board map's PeriodCost (its passes), or for best of d without
// tallies, whose cost grows with the board's levels rather than with k,
// bestdLevelCost per supported level and √T + 10; for best of d with a
// tally 0, its evaluation counting its work as it goes (countedWork).
func (s *supportFunc) supportCost(x []float64) float64 {
	m := s.m
	if m.levelPriced() {
		return bestdLevelCost * float64(support(x, 0)) * (math.Sqrt(m.Period) + 10)
	}
	if m.countsWork() {
		return 0 // counted as it is done (countedWork)
	}
	return PeriodCost(m.K, m.Load, m.Period)
}

// errLeftSupport says the distribution outgrew the fixed support.
var errLeftSupport = errors.New("staleboard: the distribution outgrew its support")

// take writes into dst the evaluation r (of dst's input, padded) on the
// support, counting the mass r puts beyond it with r's own loss, and
// returns that loss.
func (s *supportFunc) take(dst []float64, r *MapResult) float64 {
	lost := r.Lost
	for i := range dst {
		dst[i] = entry(r.Next, i)
	}
	for i := len(dst); i < len(r.Next); i++ {
		lost += r.Next[i]
	}
	s.lost = math.Max(s.lost, lost)
	return lost
}

// apply evaluates the map at x into r within the budget (if positive):
// an evaluation priced (supportCost) past what is left is not made, one
// that counts its work as it goes stops where it would pass it; both
// fail with errWorkBudget, lastIn keeping x. s.work adds the evaluation's
// cost.
func (s *supportFunc) apply(x []float64, r *MapResult) error {
	if s.budget > 0 {
		w := s.supportCost(x)
		if s.work+w > s.budget {
			s.lastIn = append(s.lastIn[:0], x...)
			return errWorkBudget
		}
		s.work += w
		s.m.setWorkCap(math.Max(s.budget-s.work, 1))
		defer s.m.setWorkCap(0)
	}
	err := s.m.applyInto(x, r)
	s.work += s.m.countedWork()
	if errors.Is(err, errWorkBudget) {
		s.lastIn = append(s.lastIn[:0], x...)
	}
	return err
}

func (s *supportFunc) eval(dst, x []float64) error {
	r := &s.res
	if err := s.apply(x, r); err != nil {
		return err
	}
	lost := s.take(dst, r)
	s.last = r
	if s.series != nil {
		s.series = append(s.series, r.Sojourn)
	}
	if cap(s.recent) > 0 {
		if len(s.recent) < cap(s.recent) {
			s.recent = append(s.recent, r.Sojourn)
		} else {
			s.recent[s.nEval%cap(s.recent)] = r.Sojourn
		}
	}
	s.nEval++
	return s.check(x, r, lost)
}

// check returns errLeftSupport, recording the input x and the support its
// output r asks for, when s is strict and the evaluation lost more than
// 1e-12.
func (s *supportFunc) check(x []float64, r *MapResult, lost float64) error {
	if !s.strict || lost <= 1e-12 {
		return nil
	}
	s.lastIn = append(s.lastIn[:0], x...)
	s.grown = max(2*len(x), 2*support(r.Next, 1e-18)+32)
	return errLeftSupport
}

// pad returns p extended with zeros to length n ≥ len(p).
func pad(p []float64, n int) []float64 {
	out := make([]float64, n)
	copy(out, p)
	return out
}

// support returns the length of p up to its last entry above tol.
func support(p []float64, tol float64) int {
	n := len(p)
	for n > 1 && p[n-1] <= tol {
		n--
	}
	return n
}

// entry is v[i], or 0 past the end of v (distributions of different
// supports compared entry by entry).
func entry(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// FixedPointSettings control FixedPoint. A nil pointer or a zero field
// means the documented default.
type FixedPointSettings struct {
	// Start is the board the solve starts from (a count law; with H2
	// sizes lifted with fresh phases, Map.State). Default: the empty board
	// (every queue at 0).
	Start []float64
	// Solve configures the solver. Default: Anderson acceleration with Tol
	// 1e-10, MaxIter 2000, Simplex and Stagnation 100.
	Solve *fixedpoint.Settings
}

// FixedPointResult is a fixed point of the refresh-period map. Its Status
// is Converged when Board is a fixed point to the solver's tolerance (for
// instance not where no balanced state exists and the iteration runs
// toward the herd), IterationLimit also when the evaluations' cost
// reached MaxWork (as in Attractor), TruncationLimit when it converged on
// the longest
// support (queue lengths below 65,536) while losing more than 1e-12 of
// mass an evaluation, otherwise how the solve ended; Evaluations counts
// every map evaluation, those of solves cut short to grow the support
// included. Only a Converged result's Board and Map are the map's fixed
// point: any other is the last iterate, not an answer.
type FixedPointResult struct {
	outcome.Outcome
	// Board is p*, the board distribution at each refresh (the last
	// iterate when the solve did not converge); with H2 sizes the map's
	// state, the joint law of count and phases (Map.Counts gives the
	// board).
	Board []float64
	// Map is Φ_T applied at Board (mean time in system, board mean,
	// branch).
	Map *MapResult
	// Solve reports the solver's work.
	Solve *fixedpoint.Result
	// Lost is the largest mass lost in one map evaluation during the solve.
	Lost float64
}

// FixedPoint solves p = Φ_T(p) by Anderson acceleration on a support long
// enough that the truncation loses less than 1e-12 per evaluation (up to
// 65,536 levels): for best of d without tallies the first evaluation that
// loses more stops the solve, which goes on from that iterate on a
// support twice as long as the evaluation's output needs; for the other
// maps a converged solve that lost more goes on from its answer on a
// support twice as long.
func FixedPoint(m *Model, s *FixedPointSettings) (*FixedPointResult, error) {
	return fixedPoint(m, s, false)
}

// fixedPoint is FixedPoint, by the reference evolution when ref is set
// (tests).
func fixedPoint(m *Model, s *FixedPointSettings, ref bool) (*FixedPointResult, error) {
	mp, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	mp.reference = ref
	t0 := time.Now()
	set := FixedPointSettings{}
	if s != nil {
		set = *s
	}
	start := set.Start
	if start == nil {
		start = []float64{1}
	}
	if _, err := checkBoard(start); err != nil {
		return nil, err
	}
	start = mp.State(start)
	solve := *defaultSolve()
	if set.Solve != nil {
		solve = *set.Solve
	}
	if err := m.checkWork("Solve", max(solve.MaxIter, 1), m.Period); err != nil {
		return nil, err
	}
	// A first plain application sizes the support.
	// The solves need the next board only; the result's map application
	// adds the mean time in system.
	fast := mp.boardOnly()
	r, err := fast.Apply(start)
	if err != nil {
		return nil, err
	}
	n := max(2*support(r.Next, 1e-18)+32, len(start))
	x := pad(start, n)
	evals := 0
	work := (&supportFunc{m: fast}).supportCost(start)
	for {
		// Strict for best of d without tallies, whose evaluations the work
		// bound prices by the board's levels: an evaluation that loses more
		// than 1e-12 stops the solve, which goes on from that input on a
		// longer support. Without it an iterate that outgrows the support
		// loses mass on every evaluation, the simplex projection puts it
		// back, and the solve wanders near a fixed point of the truncated
		// map that is not the map's (k = 5, λ = 0.9, T = 2,000: it lost
		// 0.41 an evaluation and stalled at a mean time in system of 208
		// where the fixed point has 343). The other maps are priced by
		// PeriodCost whatever the support, and growing theirs after every
		// lossy evaluation chased Anderson's wanderings at k = 5,
		// λ = 0.999999, T = 5,000 to 55,086 levels and over ten minutes,
		// where the solve on the first support stalls in 2 s (Stalled,
		// which its callers read): they grow their support after a
		// converged solve that lost mass.
		boardLevels := mp.levelPriced()
		f := &supportFunc{m: fast, strict: boardLevels && n < maxFixedPointSupport, work: work, budget: workBudget}
		// The solves share MaxIter (the bound checkWork admitted): a solve
		// on a longer support has what its predecessors left.
		run := solve
		if solve.MaxIter > 0 {
			run.MaxIter = max(solve.MaxIter-evals, 1)
		}
		res, err := fixedpoint.Solve(f.eval, x, &run)
		evals += f.nEval
		work = f.work
		if errors.Is(err, errLeftSupport) {
			n = min(f.grown, maxFixedPointSupport)
			x = pad(f.lastIn, n)
			continue
		}
		if !boardLevels && err == nil && res.Status == outcome.Converged && f.lost > 1e-12 && n < maxFixedPointSupport {
			n = min(2*n, maxFixedPointSupport)
			x = pad(res.X, n)
			continue
		}
		if errors.Is(err, errWorkBudget) {
			// The last iterate, its map application (one period more than
			// the bound) and Status IterationLimit: no fixed point.
			final := &supportFunc{m: mp}
			if err := final.eval(make([]float64, n), f.lastIn); err != nil {
				return nil, err
			}
			lim := outcome.Outcome{Status: outcome.IterationLimit, Evaluations: evals + 1, Elapsed: time.Since(t0)}
			return &FixedPointResult{Outcome: lim, Board: f.lastIn, Map: final.last,
				Solve: &fixedpoint.Result{Outcome: lim, X: f.lastIn, Residual: math.Inf(1)}, Lost: math.Max(f.lost, final.lost)}, nil
		}
		if err != nil {
			return nil, err
		}
		final := &supportFunc{m: mp}
		if err := final.eval(make([]float64, n), res.X); err != nil {
			return nil, err
		}
		evals++
		// The loss of the solve that delivered the answer (those cut short
		// on a shorter support are discarded).
		lost := math.Max(f.lost, final.lost)
		status := res.Status
		if status == outcome.Converged && lost > 1e-12 {
			// Only at the longest support: the truncation, not the
			// solver, limits the answer.
			status = outcome.TruncationLimit
		}
		return &FixedPointResult{Outcome: outcome.Outcome{Status: status, Evaluations: evals, Elapsed: time.Since(t0)},
			Board: res.X, Map: final.last, Solve: res, Lost: lost}, nil
	}
}

// defaultSolve returns FixedPoint's default solver settings.
func defaultSolve() *fixedpoint.Settings {
	return &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: 1e-10, MaxIter: 2000, Simplex: true, Stagnation: 100}
}

// maxFixedPointSupport is the longest support FixedPoint grows to: queue
// lengths up to 65,535 (a variable for the test that shortens it).
var maxFixedPointSupport = 1 << 16

// Spectrum returns the spectrum of the map's Jacobian on zero-sum
// perturbations at the board p (usually a fixed point): Arnoldi on 24
// Krylov vectors above 40 supported classes, the dense Jacobian below.
func (m *Map) Spectrum(p []float64) (*fixedpoint.Spectrum, error) {
	if _, err := checkBoard(p); err != nil {
		return nil, err
	}
	f := &supportFunc{m: m.boardOnly()}
	return fixedpoint.ComputeSpectrum(f.eval, pad(p, len(p)), &fixedpoint.SpectrumSettings{DenseLimit: 40, Krylov: 24})
}
