package bestofd

import (
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
	// chain has at most 2¹⁹ states, which covers every default MaxQueue;
	// doubled while giants are lost). Arrivals beyond are lost and
	// reported (AttractorResult.Lost). The work does not grow with the
	// truncation: it follows the states that hold mass.
	MaxQueue, MaxGiants int
	// MinClass is the smallest board-class mass that receives arrivals
	// under least loaded (default 1e-12: classes below are numerical dust,
	// whose rate λ/P would be meaningless).
	MinClass float64
}

// AttractorResult is the attractor of the period map. Its Status is
// FixedPoint, Cycle, or NotSettled when MaxIter periods found neither (the
// values are then those of the last iterate); Evaluations counts the
// period-map evaluations (Iterations).
type AttractorResult struct {
	outcome.Outcome
	Cycle int // period of the attractor (1: fixed point)
	// Iterations counts the period-map evaluations; States the server
	// states of the final truncation.
	Iterations int
	States     int
	// Sojourn is the mean time in system (average over the cycle),
	// MeanQueue the time-average count, BoardMean the mean board value.
	Sojourn, MeanQueue, BoardMean float64
	// Lost is the largest fraction of arrivals dropped by the truncation
	// in one period.
	Lost float64
	// Board is the board distribution P(B = b) at a refresh (the first
	// point of the cycle).
	Board []float64

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
		return param.Errorf("Period", "T = %v, want 0.01 ≤ T ≤ %v (the cost grows like T²: at T = 400 about 6 s with exponential sizes, minutes with H2 sizes)", m.Period, MaxPeriod)
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
	if !param.Finite(m.MinClass) || m.MinClass < 0 || m.MinClass >= 1 {
		return param.Errorf("MinClass", "%v, want 0 (default) or in (0, 1)", m.MinClass)
	}
	return nil
}

// AttractorSettings control Attractor. A nil pointer or a zero field means
// the documented default.
type AttractorSettings struct {
	// MaxIter bounds the periods iterated. Default 2000.
	MaxIter int
}

// Attractor finds where the period map settles from the empty system:
// first Anderson acceleration toward a fixed point, accepted if plain
// iteration from a small perturbation returns to it (fixedpoint.Attracting);
// otherwise plain iteration classified by fixedpoint.Classify (Tol 1e-9,
// at most MaxIter periods: a fixed point, a cycle, or not settled). The
// truncation grows (twice the count, or twice the giants, whichever
// loses them) while more than 1e-5 of the arrivals are lost to it. (The
// arrivals lost are those that would have stayed longest, so the mean
// time in system can move by more than that fraction: at SCV 30, a limit
// of 12 giants per PS server lost 4e-8 of the arrivals and moved it by
// 7.6e-6. By default PS servers have no giant limit below MaxQueue.)
//
// Each map evaluation evolves the board classes independently, in
// parallel on up to GOMAXPROCS cores (the result does not depend on their
// number). Best of two at T = 100, λ = 0.9 takes about 0.3 s of CPU time
// with exponential sizes, 2.5 s with PS servers and H2 sizes of SCV 30,
// and 6.5 s with SCV 4, where servers hold dozens of giants.
func Attractor(m *PeriodicUpdate, s *AttractorSettings) (*AttractorResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	maxIter := 2000
	if s != nil && s.MaxIter != 0 {
		maxIter = s.MaxIter
	}
	if maxIter < 1 {
		return nil, param.Errorf("MaxIter", "%d periods, want at least 1", maxIter)
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
	for {
		gi := J
		if scv == 1 || m.Discipline == farm.FCFS {
			gi = 0
		}
		res, err := m.attractor(newServerChain(m.Discipline, scv, M, gi), maxIter)
		if err != nil {
			return nil, err
		}
		switch {
		case res.Lost <= lostTol || !autoM || M > 20_000:
			res.Elapsed = time.Since(start)
			return res, nil
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

func (m *PeriodicUpdate) attractor(ch *serverChain, maxIter int) (*AttractorResult, error) {
	pm := newPeriodMap(m, ch)
	x0 := make([]float64, ch.n)
	x0[ch.level[0][0]] = 1
	var att *fixedpoint.Attractor
	r, err := fixedpoint.Solve(pm.apply, x0, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: 1e-10, MaxIter: min(100, maxIter), Simplex: true})
	if err != nil {
		return nil, err
	}
	iters := r.Iterations
	if r.Status == outcome.Converged {
		ok, evals, err := fixedpoint.Attracting(pm.apply, r.X, 8)
		if err != nil {
			return nil, err
		}
		iters += evals
		if ok {
			att = &fixedpoint.Attractor{Outcome: outcome.Outcome{Status: outcome.FixedPoint}, Period: 1, Points: [][]float64{r.X}}
		}
	}
	if att == nil {
		att, err = fixedpoint.Classify(pm.apply, x0, &fixedpoint.ClassifySettings{Tol: 1e-9, MaxIter: maxIter})
		if err != nil {
			return nil, err
		}
		iters += att.Iterations
	}
	M := ch.M
	res := &AttractorResult{Outcome: outcome.Outcome{Status: att.Status, Evaluations: iters}, Cycle: att.Period, Iterations: iters, States: ch.n}
	pts := att.Points
	if att.Status == outcome.NotSettled {
		pts = pts[:1]
	}
	pm.lost, pm.lostTop, pm.lostGiant = 0, 0, 0
	dst := make([]float64, ch.n)
	for _, x := range pts {
		if err := pm.apply(dst, x); err != nil {
			return nil, err
		}
		res.MeanQueue += pm.meanQueue / float64(len(pts))
		q := make([]float64, M+1)
		ch.levelSums(q, x)
		for b, v := range q {
			res.BoardMean += float64(b) * v / float64(len(pts))
		}
	}
	res.Lost, res.lostTop, res.lostGiants = pm.lost, pm.lostTop, pm.lostGiant
	res.Sojourn = res.MeanQueue / m.Load
	res.Board = make([]float64, M+1)
	ch.levelSums(res.Board, pts[0])
	return res, nil
}
