package staleboard

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
)

// The best-of-d evolution of a period (System.Choices = d ≥ 1). Each
// dispatcher sends each of its jobs to the lowest of d uniformly sampled
// servers by its perceived level, the board value b plus its own tally on
// that server (Tally Own), or the board alone (Tally None); ties at
// random. At N → ∞, with S(v) the fraction of servers whose perceived
// level is ≥ v, a job goes to perceived level v with probability
// S(v)^d − S(v+1)^d, so a server at perceived level v receives a
// dispatcher's jobs at rate
//
//	ν(v) = (λ/k)·[S(v)^d − S(v+1)^d]/P(v) = (λ/k)·Σ_{j<d} S(v)^j·S(v+1)^{d−1−j}
//
// (the factorised form has no cancellation when P(v) ≪ S(v)).
//
// Without tallies every dispatcher reads the frozen board all period: a
// server of board b receives a Poisson stream of constant rate
// ρ_b = k·ν(b) at the board's S, and the next board is the mixture of the
// M/M/1 transients from b over T (mm1.go): exact at N → ∞, in closed form.
//
// With tallies, dispatcher r's tally on a server of board b is a pure-birth
// process with rate ν_r(b + t_r, s) at the dispatchers' common perceived
// law S(·, s), which moves as the pure-arrival best-of-d fluid
//
//	dS(v)/ds = (λ/k)·[S(v−1)^d − S(v)^d],  S(·, 0) the board,
//
// and given b the k tallies are independent (propagation of chaos). The
// server's count is driven by their superposition, whose intensity depends
// on every t_r: the exact server state (q, t_1..t_k) is out of reach. The
// map replaces the superposition A(s) = Σ_r t_r(s) by its Markovian
// projection, a birth process on A whose rate given A = a is the
// dispatchers' mean rate given a, E[Σ_r ν(b + t_r, s) | A(s) = a]
// (map_tally_proj.go): A keeps its exact one-time laws, so the count's
// spread is kept; neglected are how the rate depends on the split of a
// between the tallies and A's memory beyond its current value. It is exact
// for one dispatcher. The regular rounding (map_tally_bestd.go, the map
// before it, kept as the tests' reference) keeps only the superposition's
// mean, C_b(s) = k·E[t(s) | b], and replaces its fluctuations by the
// regularity best of d on one's own tally enforces: on a grid of ticks of
// length h ≈ k/λ the arrivals by tick j are ⌊C_b(t_j)⌋ or ⌈C_b(t_j)⌉, a
// rounding of the exact mean by a carry c_j ∈ {0, 1} with P(c_j = 1) =
// frac C_b(t_j), carried from tick to tick as a two-state Markov chain,
// placed at independent uniform times within their tick, the end level by
// the reflection principle as in the least-board map's passes. It
// understates the count's spread and so the waiting (13–18% low against
// the simulator in the balanced state; see the package documentation).

// bestdMap is the best-of-d evolution's configuration and work space.
type bestdMap struct {
	d     int
	tally bool
	mm    mm1Space
	surv  []float64
	ts    tallySpace
	ps    projSpace
	// rk4 selects the projection's RK4 evolution (map_tally_proj.go, the
	// tests' reference) instead of SSPRK(10,4) (map_tally_ssp.go).
	rk4 bool
	// rounding selects the regular rounding (map_tally_bestd.go) instead
	// of the projected superposition (map_tally_proj.go and
	// map_tally_ssp.go), the default: the
	// rounding is 13–18% low against the simulator in the balanced state
	// and misplaces the edge; kept as the tests' reference of a model
	// that neglects the superposition's spread.
	rounding bool
	// noMerge keeps every class's joint law apart (tests: the reference
	// of the merging).
	noMerge bool
	// stepScale scales the projection's time step (tests; 0: 1).
	stepScale float64
	// merged counts the classes merged in the last projected period
	// (tests).
	merged int
	// workCap, if positive, is the most work (PeriodCost's units) the
	// next projected evaluation may do (0: the work bound, workBudget):
	// it stops once its counted work (projCellCost a cell and step)
	// passes it and sets overCap; workUsed is the work it counted.
	workCap, workUsed float64
	// sspCells and sspRows are the SSP evolution's two work counts
	// (cells and rows of the joint laws, summed over the steps), for
	// measurements.
	sspCells, sspRows, sspTally float64
	overCap                     bool
}

// overWork reports whether the projected evaluation's counted work has
// passed its cap (workCap, or the work bound, workBudget: no evaluation
// does more than the bound, whoever calls it); if so it sets overCap and
// empties res, the evaluation's result.
func (bd *bestdMap) overWork(res *MapResult) bool {
	limit := workBudget
	if bd.workCap > 0 {
		limit = bd.workCap
	}
	if bd.workUsed <= limit {
		return false
	}
	bd.overCap = true
	*res = MapResult{Next: res.Next[:0]}
	return true
}

// choiceRate is Σ_{j<d} a^j·c^{d−1−j} = (a^d − c^d)/(a − c): the rate at
// which best of d sends to a level whose survival is a, the next c, per
// unit of the arrival rate and of the level's mass.
func choiceRate(a, c float64, d int) float64 {
	// a ≥ c ≥ 0 (survivals): a^{d−1}·Σ_{i<d} (c/a)^i, every term ≤ 1.
	if d == 1 {
		return 1
	}
	if a <= 0 {
		return 0
	}
	r := math.Min(c/a, 1)
	var s, pr float64 = 0, 1
	for range d {
		s += pr
		pr *= r
		if pr < 1e-300 {
			break
		}
	}
	return math.Pow(a, float64(d-1)) * s
}

// applyBestd evaluates Φ_T(p) for best of d (p checked, top its last
// non-zero class, mass its total) into res.
func (m *Map) applyBestd(p []float64, top int, mass float64, res *MapResult) {
	if m.bestd.tally {
		if m.bestd.rounding {
			m.applyTallyBestd(p, top, mass, res)
			return
		}
		if m.bestd.rk4 {
			m.applyTallyProj(p, top, mass, res)
			return
		}
		m.applyTallyProjSSP(p, top, mass, res)
		return
	}
	b := m.bestd
	T := m.Period
	S := growTo(&b.surv, top+2)
	S[top+1] = 0
	for v := top; v >= 0; v-- {
		S[v] = S[v+1] + p[v]
	}
	next := res.Next[:0]
	*res = MapResult{Next: next}
	var integ float64
	for v := 0; v <= top; v++ {
		if p[v] == 0 {
			continue
		}
		rho := m.Load * choiceRate(S[v]/mass, S[v+1]/mass, b.d) / mass
		var in float64
		next, in = b.mm.mm1Law(next, p[v], v, rho, T)
		integ += in
	}
	m.finishBestd(res, next, mass, integ)
}

// growTo returns (*buf)[:n], grown as needed (contents unspecified).
func growTo(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// checkEdgeChoices refuses best of d for the edge: the edge solver follows
// the least-board map's balanced branches to the border collision where a
// pass boundary reaches T, and best of d has no passes. Without tallies
// there is no edge (one state from either start); with tallies the
// lowest period at which the balanced state survives is found by a
// bisection on Attractor from the empty board, tens of periods a step (at
// k = 5, λ = 0.9, best of two: between T = 281.25 and 284.375 by the
// regular rounding, about 30 s of CPU a step, and between 312.5 and 325
// by the projected superposition, as in the simulator, a few minutes a
// step; see the package documentation).
func (s *System) checkEdgeChoices() error {
	if s.Choices == 0 {
		return nil
	}
	return param.Errorf("Choices", "best of %d: the edge solver finds the border collision of the least-board map's passes, and best of d has none; without tallies it has no edge (one state from either start), and with tallies the lowest period at which the balanced state survives is found only by iterating the map (Attractor) over T, tens of periods for each step of a bisection", s.Choices)
}

// finishBestd completes a best-of-d period into res from the next board
// law (of total mass mass before truncation) and the time integral of the
// mean count: the truncation's and the law's missing mass in Lost, the
// board mean, and the mean count and time in system over the period.
func (m *Map) finishBestd(res *MapResult, next []float64, mass, integ float64) {
	res.Lost = trimTop(&next, m.trimTol())
	var sum float64
	for _, x := range next {
		sum += x
	}
	res.Lost += math.Max(0, mass-sum-res.Lost)
	res.Next = next
	res.BoardMean = Mean(next)
	res.MeanQueue = integ / m.Period
	res.Sojourn = res.MeanQueue / m.Load
	if m.noIntegral {
		res.MeanQueue, res.Sojourn = math.NaN(), math.NaN()
	}
}
