package staleboard

import (
	"math"
	"time"

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

// edgeGroup computes the entries members of models, which share k, λ and
// tally: the N = ∞ edge once, then every finite N from one search. It
// calls finished with the index of every entry it has finished.
func edgeGroup(models []Model, members []int, set *EdgeSettings, out []*EdgeResult, finished func(i int)) error {
	base := models[members[0]]
	base.Servers = 0
	inf, err := edge(&base, set)
	if err != nil {
		return err
	}
	var finite []int
	for _, i := range members {
		if models[i].Servers == 0 {
			out[i] = inf
			finished(i)
		} else {
			finite = append(finite, i)
		}
	}
	if len(finite) == 0 {
		return nil
	}
	start := time.Now()
	scale := base.Scale()
	// The search starts at the N = ∞ edge (every system tips there), or at
	// the floor when there is none.
	t0 := inf.Period
	if inf.Status != outcome.EdgeFound {
		t0 = set.Floor / scale
	}
	type point struct {
		T float64
		e *Escape
	}
	var grid []point
	escapes, evals := 0, 0
	escapeAt := func(T float64, from []float64) (*Escape, error) {
		if err := set.canceled(); err != nil {
			return nil, err
		}
		m := base
		m.Period = T
		e, err := NewEscape(&m, from)
		if err != nil {
			return nil, err
		}
		escapes++
		evals += e.Evaluations
		return e, nil
	}
	prob := func(e *Escape, i int) float64 { return e.TipProbability(models[i].Servers, set.Horizon) }
	// bracket[i] is the grid index whose period first gives P < ½.
	bracket := map[int]int{}
	from := inf.board
	// p0[i] is P at t0: 1 at the N = ∞ edge, where the balanced fixed
	// point ends; computed at the floor when there is no N = ∞ edge, and
	// an entry whose P is below ½ there has no edge either.
	p0 := map[int]float64{}
	noEdge := map[int]bool{}
	if inf.Status != outcome.EdgeFound {
		e, err := escapeAt(t0, from)
		if err != nil {
			return err
		}
		if e.Balanced != nil {
			from = e.Balanced
		}
		for _, i := range finite {
			if p0[i] = prob(e, i); p0[i] < 0.5 {
				noEdge[i] = true
				bracket[i] = -1
			}
		}
	}
	for j := 1; j <= finiteMaxSteps && len(bracket) < len(finite); j++ {
		T := t0 * (1 + finiteStep*float64(j))
		e, err := escapeAt(T, from)
		if err != nil {
			return err
		}
		if e.Balanced != nil {
			from = e.Balanced
		}
		grid = append(grid, point{T, e})
		for _, i := range finite {
			if _, ok := bracket[i]; !ok && prob(e, i) < 0.5 {
				bracket[i] = len(grid) - 1
			}
		}
	}
	for _, i := range finite {
		res := &EdgeResult{K: base.K, Load: base.Load, Tally: base.Tally, Line: inf.Line, Collision: math.NaN(),
			Servers: models[i].Servers, Horizon: set.Horizon, Infinite: inf}
		if noEdge[i] {
			res.Status = outcome.NoEdge
			// As for N = ∞: no edge, Period and Scaled the floor.
			res.Period, res.Lo, res.Hi = t0, t0, t0
			res.Scaled = res.Period * scale
			out[i] = res
			continue
		}
		g, ok := bracket[i]
		if !ok {
			// No grid period brings the tipping probability below ½: report
			// the top of the grid as a lower bound.
			res.Period, res.Lo, res.Hi = grid[len(grid)-1].T, grid[len(grid)-1].T, math.Inf(1)
			res.Scaled = res.Period * scale
			res.Status = outcome.AboveRange
			out[i] = res
			continue
		}
		lo, plo := t0, 1.0
		if p, ok := p0[i]; ok {
			plo = p
		}
		var loBoard []float64 = inf.board
		if g > 0 {
			lo, plo, loBoard = grid[g-1].T, prob(grid[g-1].e, i), grid[g-1].e.Balanced
		}
		hi, phi := grid[g].T, prob(grid[g].e, i)
		for range finiteBisections {
			mid := 0.5 * (lo + hi)
			e, err := escapeAt(mid, loBoard)
			if err != nil {
				return err
			}
			if p := prob(e, i); p >= 0.5 {
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
		res.Scaled = res.Period * scale
		out[i] = res
	}
	elapsed := time.Since(start)
	for _, i := range finite {
		out[i].Escapes, out[i].Evaluations, out[i].Elapsed = escapes, evals, elapsed
		finished(i)
	}
	return nil
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
	// Horizon is H in refresh periods. Default DefaultHorizon.
	Horizon int
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
// Servers servers (> 0), started at the balanced state at refresh period
// Period, tips into the herd within the horizon (see Escape for the
// theory and its approximations).
func TipProbability(m *Model, s *TipSettings) (*TipResult, error) {
	if err := m.validatePeriod(); err != nil {
		return nil, err
	}
	if m.Servers == 0 {
		return nil, param.Errorf("Servers", "N = 0: a tipping probability needs a finite number of servers")
	}
	var set TipSettings
	if s != nil {
		set = *s
	}
	set.Horizon = param.Or(set.Horizon, DefaultHorizon)
	if set.Horizon < 1 || set.Horizon > MaxHorizon {
		return nil, param.Errorf("Horizon", "%d refresh periods, want 1..%d", set.Horizon, MaxHorizon)
	}
	start := time.Now()
	base := *m
	base.Servers = 0
	e, err := NewEscape(&base, set.Start)
	if err != nil {
		return nil, err
	}
	return &TipResult{Outcome: outcome.Outcome{Status: outcome.Converged, Evaluations: e.Evaluations, Elapsed: time.Since(start)},
		Horizon: set.Horizon, Escape: e, Probability: e.TipProbability(m.Servers, set.Horizon), PerPeriod: e.TipProbability(m.Servers, 1)}, nil
}
