package bestofd

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// PeriodicUpdate is the N → ∞ model of one dispatcher reading a board of
// job counts refreshed every T, without tallies (Mitzenmacher's periodic
// update model, "How useful is old information?", IEEE TPDS 11(1), 2000).
// Between refreshes the board is fixed, so a server whose board reads b
// receives Poisson arrivals at the constant rate
//
//	best of d:     r_b = λ·[P(B ≥ b)^d − P(B > b)^d] / P(B = b),
//	least loaded:  r_b = λ / P(B = b_min) for the lowest class, 0 otherwise,
//
// and evolves as its own chain (count, and the job phases for H2 sizes)
// for time T. The period map takes the distribution of server states at
// one refresh to the next; its attractor (fixed point or cycle) gives the
// mean time in system by Little's law.
type PeriodicUpdate struct {
	// D is the number of servers sampled, 1..MaxD; 0 means least loaded
	// (all of them).
	D int
	// Load is λ, 0 < λ < 1; Period the refresh period T > 0.
	Load, Period float64
	// Discipline of the servers (default FCFS).
	Discipline farm.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes farm.Sizes
	// MaxQueue truncates the count (default 32 + 2·λ·T, doubled while
	// more than 1e-5 of the arrivals are lost); MaxGiants the giants a PS
	// server can hold (default MaxQueue, i.e. no separate limit, while the
	// chain has at most 2¹⁹ states — up to T ≈ 400 at λ = 0.9 — and about
	// 2¹⁹/MaxQueue beyond; doubled while giants are lost). Arrivals beyond
	// are lost and reported (AttractorResult.Lost). The work does not grow
	// with the truncation: it follows the states that hold mass.
	MaxQueue, MaxGiants int
	// MinClass is the smallest board-class mass that receives arrivals
	// under least loaded (default 1e-12: classes below are numerical dust,
	// whose rate λ/P would be meaningless).
	MinClass float64
}

// AttractorResult is the attractor of the period map. Its Status is
// FixedPoint or Cycle; NotSettled when plain iteration found neither
// within MaxIter periods (the values are then averages over its last
// Window periods, not an attractor's); IterationLimit when the work
// budget ran out first (likewise, over the periods iterated);
// TruncationLimit when the largest automatic truncation still dropped
// more than 1e-5 of the arrivals; or Interrupted (the averages of the
// periods of plain iteration finished, or the last period). Evaluations
// counts the period-map evaluations.
type AttractorResult struct {
	outcome.Outcome
	Cycle int // period of the attractor (1: fixed point; 0 if none)
	// Iterations counts the period-map evaluations (as Evaluations);
	// States the server states of the final truncation.
	Iterations int
	States     int
	// Sojourn is the mean time in system, MeanQueue the time-average
	// count and BoardMean the mean board value at a refresh: those of the
	// fixed point, averages over the cycle, or over the Averaged periods
	// of an orbit that did not settle.
	Sojourn, MeanQueue, BoardMean float64
	// Averaged is the number of periods averaged (1 for a fixed point);
	// Spread, Min and Max describe the mean time in system of each of
	// them: its standard deviation, smallest and largest value.
	Averaged         int
	Spread, Min, Max float64
	// Lost is the largest fraction of arrivals dropped by the truncation
	// in one of the periods reported.
	Lost float64
	// Board is the board distribution P(B = b) at a refresh (the first
	// point of the cycle; the last board for an orbit that did not settle).
	Board []float64
	// Work counts the state updates done (one server state in one
	// uniformised step, the unit of the cost), and Estimate is the
	// estimate made before the run (see EstimateWork).
	Work, Estimate float64

	lostTop, lostGiants float64
}

// Validate checks the parameters (*param.Error names the bad field).
func (m *PeriodicUpdate) Validate() error {
	if m.D < 0 || m.D > MaxD {
		return param.Errorf("D", "best of d = %d, want 1..%d (or 0 for least loaded)", m.D, MaxD)
	}
	if !param.Finite(m.Load) || m.Load < MinLoad || m.Load >= 1 {
		return param.Errorf("Load", "λ = %v, want %v ≤ λ < 1", m.Load, MinLoad)
	}
	if !param.Finite(m.Period) || m.Period < 0.01 || m.Period > MaxPeriod {
		return param.Errorf("Period", "T = %v, want 0.01 ≤ T ≤ %v (the default truncation 32 + 2λT must fit %d jobs; the cost of a period is bounded separately, see AttractorSettings.MaxWork)", m.Period, MaxPeriod, maxQueue)
	}
	if !m.Discipline.Valid() {
		return param.Errorf("Discipline", "unknown discipline %d", int(m.Discipline))
	}
	if _, err := scvOf(m.Sizes); err != nil {
		return err
	}
	if m.MaxQueue < 0 || m.MaxQueue > maxQueue {
		return param.Errorf("MaxQueue", "truncation %d, want 0 (automatic) or 1..%d", m.MaxQueue, maxQueue)
	}
	if m.MaxGiants < 0 || m.MaxGiants > maxQueue {
		return param.Errorf("MaxGiants", "truncation %d, want 0 (automatic) or 1..%d", m.MaxGiants, maxQueue)
	}
	if !param.Finite(m.MinClass) || m.MinClass < 0 || (m.MinClass > 0 && m.MinClass < 1e-15) || m.MinClass >= 1 {
		return param.Errorf("MinClass", "%v, want 0 (default 1e-12) or in [1e-15, 1): a class with less mass is carried over as numerical dust, so it cannot receive the arrivals", m.MinClass)
	}
	return nil
}

// AttractorSettings control Attractor. A nil pointer or a zero field means
// the documented default.
type AttractorSettings struct {
	// Run: the Context is checked between the board classes of every
	// period (a stopped run returns Status Interrupted); Workers evolve
	// the classes of a period in parallel (default GOMAXPROCS, at most 8;
	// the result does not depend on it); Progress is told after every
	// period of the state updates done out of the estimate (raised to
	// what was done when the run outgrows it), with the note "period k".
	outcome.Run
	// MaxIter bounds the periods of plain iteration. Default 2000.
	MaxIter int
	// MaxWork bounds the state updates (see AttractorResult.Work): a model
	// whose estimate (EstimateWork) exceeds it is refused before any work,
	// and a run that spends it stops with Status IterationLimit. Default
	// DefaultMaxWork.
	MaxWork float64
	// Window is the number of periods averaged when the orbit does not
	// settle, at most MaxIter. Default min(100, MaxIter).
	Window int
}

// DefaultMaxWork is the default work budget of Attractor: 10¹¹ state
// updates, about ten minutes of one core at the measured 6 ns each. It
// admits best of two at T = 2,000 with exponential sizes (estimated
// 3.6·10¹⁰) or PS servers and SCV 30 (9.2·10¹⁰), not SCV 4 (9.4·10¹¹:
// more giants per server).
const DefaultMaxWork = 1e11

func (s *AttractorSettings) defaults() (AttractorSettings, error) {
	var set AttractorSettings
	if s != nil {
		set = *s
	}
	set.MaxIter = param.Or(set.MaxIter, 2000)
	set.MaxWork = param.Or(set.MaxWork, DefaultMaxWork)
	set.Window = param.Or(set.Window, min(100, max(set.MaxIter, 1)))
	if set.MaxIter < 1 || set.MaxIter > 1_000_000 {
		return set, param.Errorf("MaxIter", "%d periods, want 1..1,000,000", set.MaxIter)
	}
	if !param.Finite(set.MaxWork) || set.MaxWork < 0 {
		return set, param.Errorf("MaxWork", "%v state updates, want 0 (default %.0e) or more", set.MaxWork, float64(DefaultMaxWork))
	}
	if set.Window < 1 || set.Window > set.MaxIter {
		return set, param.Errorf("Window", "%d periods, want 1..MaxIter (%d)", set.Window, set.MaxIter)
	}
	if set.Workers < 0 {
		return set, param.Errorf("Workers", "%d, want 0 (every core) or more", set.Workers)
	}
	if set.Workers == 0 {
		set.Workers = runtime.GOMAXPROCS(0)
	}
	return set, nil
}

// Attractor finds where the period map settles from the empty system:
// first Anderson acceleration toward a fixed point, accepted if plain
// iteration from a small perturbation returns to it (fixedpoint.Attracting);
// otherwise plain iteration classified by fixedpoint.Classify (Tol 1e-9,
// at most MaxIter periods: a fixed point, or a cycle of up to
// max(8, 2⌈1/(1 − λ)⌉) periods — least loaded on a board herds, and the
// herd takes about 1/(1 − λ) periods to drain — or not settled, reported
// as the average over the last Window periods with their spread). The
// truncation grows (twice the count, or twice the giants, whichever
// loses them) while more than 1e-5 of the arrivals are lost to it. (The
// arrivals lost are those that would have stayed longest, so the mean
// time in system can move by more than that fraction: at SCV 30, a limit
// of 12 giants per PS server lost 4e-8 of the arrivals and moved it by
// 7.6e-6. By default PS servers have no giant limit below MaxQueue.)
//
// The cost is estimated before any work (EstimateWork) and refused above
// MaxWork. Each map evaluation evolves the board classes independently,
// in parallel (the result does not depend on the number of workers);
// under least loaded every class but the lowest receives no arrivals, so
// they evolve together as one vector. Best of two at T = 100, λ = 0.9
// takes about 0.3 s of CPU time with exponential sizes, 2.5 s with PS
// servers and H2 sizes of SCV 30, and 6.5 s with SCV 4, where servers
// hold dozens of giants.
func Attractor(m *PeriodicUpdate, s *AttractorSettings) (*AttractorResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	set, err := s.defaults()
	if err != nil {
		return nil, err
	}
	est := EstimateWork(m, set.MaxIter)
	if est > set.MaxWork {
		return nil, param.Errorf("Period", "T = %v (%v servers, %v sizes, %s) needs about %.2g state updates (about %s of one core), more than the budget of %.2g (AttractorSettings.MaxWork)", m.Period, m.Discipline, m.Sizes, m.policyName(), est, cpuTime(est), set.MaxWork)
	}
	start := time.Now()
	scv, _ := scvOf(m.Sizes)
	M := m.MaxQueue
	autoM := M == 0
	if autoM {
		M = 32 + int(2*m.Load*m.Period)
	}
	J := m.MaxGiants
	autoJ := J == 0
	if autoJ {
		J = autoGiants(M)
	}
	const lostTol = 1e-5
	var work float64
	for {
		var ch *serverChain
		switch {
		case scv == 1:
			ch = newServerChain(m.Discipline, scv, M)
		case m.Discipline == farm.PS:
			ch = newPSLevels(scv, M, J)
		default:
			ch = newServerChain(m.Discipline, scv, M)
		}
		res := m.attractor(ch, &set, est, work)
		work = res.Work
		if res.err != nil {
			return nil, res.err
		}
		switch {
		case res.Status == outcome.Interrupted || res.Status == outcome.IterationLimit || res.Lost <= lostTol || !autoM || M > 20_000:
			if autoM && res.Lost > lostTol && res.Status != outcome.Interrupted {
				// The largest truncation still drops too many arrivals: the
				// numbers are not the model's.
				res.Status = outcome.TruncationLimit
			}
			res.Estimate = est
			res.Elapsed = time.Since(start)
			return &res.AttractorResult, nil
		case res.lostTop > lostTol/2:
			M *= 2
			if autoJ {
				J = max(J, autoGiants(M))
			}
		}
		if res.lostGiants > lostTol/2 {
			J *= 2
		}
	}
}

// policyName names the dispatch policy of m.
func (m *PeriodicUpdate) policyName() string {
	if m.D == 0 {
		return "least loaded"
	}
	return fmt.Sprintf("best of %d", m.D)
}

// attempt is one truncation's attractor, or the error that ended it.
type attempt struct {
	AttractorResult
	err error
}

// attractor finds the attractor on the chain ch; work is the state
// updates spent on smaller truncations, est the whole run's estimate.
func (m *PeriodicUpdate) attractor(ch *serverChain, set *AttractorSettings, est, work float64) *attempt {
	pm := newPeriodMap(m, ch, set.Workers)
	pm.run = set.Run
	o := &orbit{pm: pm, set: set, est: est, before: work, load: m.Load}
	x0 := make([]float64, ch.n)
	x0[ch.level[0][0]] = 1
	var att *fixedpoint.Attractor
	r, err := fixedpoint.Solve(o.apply, x0, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: 1e-10, MaxIter: min(100, set.MaxIter), Simplex: true})
	if err != nil {
		return o.end(err)
	}
	if r.Status == outcome.Converged {
		ok, _, err := fixedpoint.Attracting(o.apply, r.X, 8)
		if err != nil {
			return o.end(err)
		}
		if ok {
			att = &fixedpoint.Attractor{Outcome: outcome.Outcome{Status: outcome.FixedPoint}, Period: 1, Points: [][]float64{r.X}}
		}
	}
	if att == nil {
		o.record = true
		att, err = fixedpoint.Classify(o.apply, x0, &fixedpoint.ClassifySettings{Tol: 1e-9, MaxIter: set.MaxIter, MaxPeriod: cycleLimit(m.Load, ch.n)})
		if err != nil {
			return o.end(err)
		}
	}
	if att.Status == outcome.NotSettled {
		return o.unsettled()
	}
	return o.settled(att)
}

// cycleLimit is the longest cycle Classify looks for:
// max(8, 2⌈1/(1 − λ)⌉), within the memory of its ring of iterates (at
// most 2²⁵ numbers, 256 MB).
func cycleLimit(load float64, states int) int {
	p := max(8, 2*int(math.Ceil(1/(1-load))))
	return max(8, min(p, (1<<25)/states))
}

// cpuTime is a number of state updates as a rough CPU time.
func cpuTime(updates float64) string {
	d := time.Duration(updates * updateSeconds * float64(time.Second))
	if d > 10*time.Minute {
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}
