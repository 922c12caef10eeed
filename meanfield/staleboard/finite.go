package staleboard

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Finite-N edge search: P(T) = the probability of tipping within H
// periods rises to 1 as T falls to the N = ∞ edge T*. From T*, a grid of
// periods T*·(1 + j·finiteStep) is scanned upward until P < ½ for every
// requested N, then each N's bracket is bisected finiteBisections times,
// and the edge is read off by interpolating logit P across the last
// bracket. The escape analyses are shared by every N of a (k, λ, tally)
// and continue one from the other, so the result depends only on the grid.
const (
	finiteStep       = 0.025
	finiteMaxSteps   = 80
	finiteBisections = 3
)

// FiniteSettings control FiniteEdge and FiniteEdgeTable. A nil pointer
// or a zero field means the documented default.
type FiniteSettings struct {
	// EdgeSettings are those of the N = ∞ edge each search starts from
	// (FiniteEdgeResult.Infinite; Confirm confirms it), and of the run:
	// Workers is the number of systems computed at once, Progress is told
	// of every finished entry, and a cancelled Context stops the
	// computation within a map evaluation (the entries not finished end
	// Interrupted, keeping their N = ∞ edge if it finished). With no N = ∞
	// edge the search starts at Floor.
	EdgeSettings
	// Method is the finite-N theory: EscapeChain (the default) or
	// NoisyMap.
	Method FiniteMethod
	// Reps is the most noisy-map runs at one period (NoisyMap only),
	// 1..MaxNoisyReps; the search adds them a batch at a time where the
	// ½-point needs them, and stops at noisyBudget·Reps runs in all.
	// Default DefaultNoisyReps.
	Reps int
	// Seed seeds the noisy-map runs (NoisyMap only): run i uses the
	// stream (Seed, i) at every period. Results depend on it, not on
	// Workers.
	Seed uint64
	// RareServers is the expected number of servers below which a class
	// of the balanced board fluctuates as a Poisson count rather than as
	// a Gaussian (NoisyMap only), positive. Default DefaultRareServers.
	RareServers float64
}

// reps is Reps or its default.
func (s *FiniteSettings) reps() int { return param.Or(s.Reps, DefaultNoisyReps) }

// rareServers is RareServers or its default.
func (s *FiniteSettings) rareServers() float64 { return param.Or(s.RareServers, DefaultRareServers) }

// Validate checks the settings beyond the edge search's; the
// *param.Error names the field.
func (s *FiniteSettings) Validate() error {
	switch {
	case s.Method != EscapeChain && s.Method != NoisyMap:
		return param.Errorf("Method", "%d, want EscapeChain or NoisyMap", s.Method)
	case s.Reps < 0 || s.Reps > MaxNoisyReps:
		return param.Errorf("Reps", "%d runs per period, want 1..%d", s.Reps, MaxNoisyReps)
	case !(s.RareServers >= 0) || math.IsInf(s.RareServers, 1):
		return param.Errorf("RareServers", "%v, want a positive number of servers", s.RareServers)
	}
	return nil
}

// FiniteEdgeResult is the finite-N tipping edge T*(N, H): the refresh
// period at which a system of N servers started balanced tips into the
// herd within H refresh periods with probability ½ (see TipProbability).
//
// Its Status is EdgeFound once the edge is bracketed; NoEdge when the
// probability is below ½ already at the floor (no edge at N either; Period
// and Scaled are then the floor), AboveRange when it stays ≥ ½ over the
// whole search (Period and Lo are then a lower bound, Hi is +Inf), and
// Interrupted when the Context was cancelled first. Evaluations counts the
// map evaluations of the escape analyses (the N = ∞ edge's are its own);
// Elapsed is the wall time of the search, shared by the entries of a
// system.
type FiniteEdgeResult struct {
	outcome.Outcome
	// FiniteModel is the model, its Horizon filled in.
	FiniteModel
	// Period is T*(N, H) and Scaled = T*(N, H)·(1−λ)²; Lo and Hi bracket it
	// (probability ≥ ½ at Lo, < ½ at Hi), and Period interpolates logit P
	// across the bracket.
	Period, Scaled float64
	Lo, Hi         float64
	// Line is the rule-of-thumb reference 0.9(k − 2) of the N = ∞ edge.
	Line float64
	// Infinite is the N = ∞ edge the search starts from (shared by the
	// entries of a system; nil if the Context stopped it).
	Infinite *EdgeResult
	// Escapes counts the escape analyses (see Escape) the search computed,
	// shared by every N of the system.
	Escapes int
	// Method is the theory that computed the edge.
	Method FiniteMethod
	// Curve is the tipping probability within the horizon at the periods
	// the search computed, in increasing T (monotone in T with NoisyMap;
	// the escape chain's is not, see the package documentation), each
	// with its mean time to tip.
	Curve []CurvePoint
	// Error is the Monte Carlo standard error of Period (NoisyMap only,
	// from its logistic fit; 0 for the escape chain, which is
	// deterministic, and when the fit failed).
	Error float64
	// MeanTime is the mean time to tip at Period, in refresh periods,
	// interpolated on the curve's mean times (NoisyMap only; 0 for the
	// escape chain, whose curve has none).
	MeanTime float64
}

// FiniteEdge computes the finite-N edge of the model: from the N = ∞ edge
// T* (every system tips there) up a grid of periods until the tipping
// probability within the horizon falls below ½, then by bisection and
// logit interpolation (package documentation, "Finite N").
func FiniteEdge(m *FiniteModel, s *FiniteSettings) (*FiniteEdgeResult, error) {
	out, err := FiniteEdgeTable([]FiniteModel{*m}, s)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// finiteReach is how far above the top of the N = ∞ search the finite-N
// grid may reach, in multiples of it.
const finiteReach = 1 + finiteStep*finiteMaxSteps

// FiniteEdgeTable computes FiniteEdge for every model, on up to
// s.Workers goroutines. Models of the same system share the N = ∞ edge
// and one search (run by one goroutine), so results are in the order of
// models and do not depend on the number of workers. Every model is
// validated before any work starts.
func FiniteEdgeTable(models []FiniteModel, s *FiniteSettings) ([]*FiniteEdgeResult, error) {
	for i := range models {
		if err := models[i].Validate(); err != nil {
			return nil, err
		}
	}
	systems := make([]System, len(models))
	for i := range models {
		systems[i] = models[i].System
	}
	var es *EdgeSettings
	var fs FiniteSettings
	if s != nil {
		es, fs = &s.EdgeSettings, *s
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	sets, err := edgeTableSettings(systems, es, finiteReach)
	if err != nil {
		return nil, err
	}
	groups, order := groupSystems(systems)
	var run outcome.Run
	if es != nil {
		run = es.Run
	}
	var finished atomic.Int64
	out := make([]*FiniteEdgeResult, len(models))
	infs := make([]*EdgeResult, len(groups))
	err = parallel.For(len(groups), run.Workers, order, func(g int) error {
		set := sets[groups[g][0]]
		if err := set.canceled(); err != nil {
			return err
		}
		inf, err := edge(&systems[groups[g][0]], set)
		if err != nil {
			return err
		}
		infs[g] = inf
		if fs.Method == NoisyMap {
			for _, i := range groups[g] {
				r, err := noisyEdge(&models[i], set, &fs, inf)
				if err != nil {
					return err
				}
				out[i] = r
			}
		} else {
			sr := &finiteSearch{models: models, set: set, inf: inf}
			if err := sr.run(groups[g], out); err != nil {
				return err
			}
		}
		for range groups[g] {
			run.Report(finished.Add(1), int64(len(models)), "")
		}
		return nil
	})
	if err != nil && !run.Stopped() {
		return nil, err
	}
	for g, members := range groups {
		for _, i := range members {
			if out[i] == nil {
				out[i] = &FiniteEdgeResult{FiniteModel: models[i], Line: line(models[i].K), Infinite: infs[g]}
				out[i].Horizon = models[i].horizon()
				out[i].Status = outcome.Interrupted
			}
		}
	}
	return out, nil
}

// finiteSearch is the finite-N edge search of the models of one system,
// from its N = ∞ edge inf: the escape analyses on the grid of periods,
// shared by every model, and their count.
type finiteSearch struct {
	models  []FiniteModel
	set     *EdgeSettings
	inf     *EdgeResult
	grid    []gridPoint
	escapes int
	evals   int
}

// gridPoint is the escape analysis at one period of the search.
type gridPoint struct {
	T float64
	e *Escape
}

// run computes the entries members of models into out.
func (sr *finiteSearch) run(members []int, out []*FiniteEdgeResult) error {
	start := time.Now()
	scale := sr.inf.Scale()
	// The search starts at the N = ∞ edge (every system tips there), or at
	// the floor when there is none.
	t0 := sr.inf.Period
	if sr.inf.Status != outcome.EdgeFound {
		t0 = sr.set.Floor / scale
	}
	// p0[i] is P at t0: 1 at the N = ∞ edge, where the balanced fixed
	// point ends; computed at the floor when there is no N = ∞ edge, and
	// an entry whose P is below ½ there has no edge either (bracket −1).
	p0 := map[int]float64{}
	bracket := map[int]int{}
	from := sr.inf.board
	if sr.inf.Status != outcome.EdgeFound {
		e, err := sr.escapeAt(t0, from)
		if err != nil {
			return err
		}
		if e.Balanced != nil {
			from = e.Balanced
		}
		for _, i := range members {
			if p0[i] = sr.prob(e, i); p0[i] < 0.5 {
				bracket[i] = -1
			}
		}
	}
	if err := sr.scan(t0, from, members, bracket); err != nil {
		return err
	}
	for _, i := range members {
		res := &FiniteEdgeResult{FiniteModel: sr.models[i], Line: sr.inf.Line, Infinite: sr.inf}
		res.Horizon = sr.models[i].horizon()
		out[i] = res
		switch g := bracket[i]; {
		case g < 0:
			// As for N = ∞: no edge, Period and Scaled the floor.
			res.Status = outcome.NoEdge
			res.Period, res.Lo, res.Hi = t0, t0, t0
		case g == len(sr.grid):
			// No grid period brings the tipping probability below ½: the
			// top of the grid is a lower bound.
			last := sr.grid[len(sr.grid)-1].T
			res.Status = outcome.AboveRange
			res.Period, res.Lo, res.Hi = last, last, math.Inf(1)
		default:
			plo, ok := p0[i]
			if !ok {
				plo = 1
			}
			if err := sr.bisect(res, i, g, t0, plo); err != nil {
				return err
			}
		}
		res.Scaled = res.Period * scale
		res.Curve = sr.curve(i)
	}
	elapsed := time.Since(start)
	for _, i := range members {
		out[i].Escapes, out[i].Evaluations, out[i].Elapsed = sr.escapes, sr.evals, elapsed
	}
	return nil
}

// scan computes the escape analyses on the grid T = t0·(1 + j·finiteStep),
// continuing each from the last balanced board (from at first), until
// every member's tipping probability has fallen below ½: bracket[i] is
// the grid index whose period first gives P < ½, or len(grid) if none
// does within finiteMaxSteps.
func (sr *finiteSearch) scan(t0 float64, from []float64, members []int, bracket map[int]int) error {
	for j := 1; j <= finiteMaxSteps && len(bracket) < len(members); j++ {
		T := t0 * (1 + finiteStep*float64(j))
		e, err := sr.escapeAt(T, from)
		if err != nil {
			return err
		}
		if e.Balanced != nil {
			from = e.Balanced
		}
		sr.grid = append(sr.grid, gridPoint{T, e})
		for _, i := range members {
			if _, ok := bracket[i]; !ok && sr.prob(e, i) < 0.5 {
				bracket[i] = len(sr.grid) - 1
			}
		}
	}
	for _, i := range members {
		if _, ok := bracket[i]; !ok {
			bracket[i] = len(sr.grid)
		}
	}
	return nil
}

// bisect narrows member i's bracket, from grid point g (the first with
// P < ½) and the one below it (t0 with probability plo when g = 0), by
// finiteBisections bisections, and sets res's bracket and edge.
func (sr *finiteSearch) bisect(res *FiniteEdgeResult, i, g int, t0, plo float64) error {
	lo, loBoard := t0, sr.inf.board
	if g > 0 {
		lo, plo, loBoard = sr.grid[g-1].T, sr.prob(sr.grid[g-1].e, i), sr.grid[g-1].e.Balanced
	}
	hi, phi := sr.grid[g].T, sr.prob(sr.grid[g].e, i)
	for range finiteBisections {
		mid := 0.5 * (lo + hi)
		e, err := sr.escapeAt(mid, loBoard)
		if err != nil {
			return err
		}
		if p := sr.prob(e, i); p >= 0.5 {
			lo, plo = mid, p
			if e.Balanced != nil {
				loBoard = e.Balanced
			}
		} else {
			hi, phi = mid, p
		}
	}
	res.Status = outcome.EdgeFound
	res.Lo, res.Hi = lo, hi
	res.Period = lo + (hi-lo)*logitFraction(plo, phi)
	return nil
}

// curve is member i's tipping probability at the grid's periods (the
// escape chain's, not monotone in T near T*).
func (sr *finiteSearch) curve(i int) []CurvePoint {
	scale := sr.inf.Scale()
	out := make([]CurvePoint, len(sr.grid))
	for j, g := range sr.grid {
		p := sr.prob(g.e, i)
		out[j] = CurvePoint{Period: g.T, Scaled: g.T * scale, Probability: p, Raw: p, MeanTime: math.Inf(1)}
	}
	return out
}

// escapeAt is the escape analysis at T, its balanced fixed point solved
// from the board from, counted.
func (sr *finiteSearch) escapeAt(T float64, from []float64) (*Escape, error) {
	if err := sr.set.canceled(); err != nil {
		return nil, err
	}
	e, err := newEscape(&Model{System: sr.inf.System, Period: T}, from, sr.set.canceled)
	if err != nil {
		return nil, err
	}
	sr.escapes++
	sr.evals += e.Evaluations
	return e, nil
}

// prob is member i's probability of tipping within its horizon by the
// analysis e.
func (sr *finiteSearch) prob(e *Escape, i int) float64 {
	return e.TipProbability(sr.models[i].Servers, sr.models[i].horizon())
}

// logitFraction is where logit p crosses logit ½ = 0 between the bracket
// ends, as a fraction of the bracket: probabilities are clipped to
// [1e-12, 1 − 1e-12].
func logitFraction(plo, phi float64) float64 {
	logit := func(p float64) float64 {
		p = math.Min(math.Max(p, 1e-12), 1-1e-12)
		return math.Log(p / (1 - p))
	}
	a, b := logit(plo), logit(phi)
	if a <= b {
		return 0.5
	}
	return math.Min(1, math.Max(0, a/(a-b)))
}

// TipSettings control TipProbability. A nil pointer or a zero field means
// the documented default.
type TipSettings struct {
	// Start, if not nil, is a starting board for the balanced fixed point
	// (to follow one branch across neighbouring periods).
	Start []float64
}

// TipResult is the finite-N tipping probability at one refresh period.
// Its Status is Converged; Evaluations counts the map evaluations of the
// escape analysis.
type TipResult struct {
	outcome.Outcome
	// Horizon is H; Probability the probability of tipping within H
	// periods from the balanced state, PerPeriod the same for one period.
	Horizon                int
	Probability, PerPeriod float64
	// Escape is the N-independent analysis behind them.
	Escape *Escape
}

// TipProbability computes the probability that the model's system of
// Servers servers, started at the balanced state at refresh period
// Period, tips into the herd within the horizon (see Escape for the
// theory and its approximations).
func TipProbability(m *TipModel, s *TipSettings) (*TipResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var set TipSettings
	if s != nil {
		set = *s
	}
	start := time.Now()
	e, err := NewEscape(m.mapModel(), set.Start)
	if err != nil {
		return nil, err
	}
	h := m.horizon()
	return &TipResult{Outcome: outcome.Outcome{Status: outcome.Converged, Evaluations: e.Evaluations, Elapsed: time.Since(start)},
		Horizon: h, Escape: e, Probability: e.TipProbability(m.Servers, h), PerPeriod: e.TipProbability(m.Servers, 1)}, nil
}
