package bestofd

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/solver"
	"github.com/fluidlb/fluid/spec"
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
	Discipline spec.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes spec.Sizes
	// MaxQueue truncates the count (default 32 + 2·λ·T, doubled while
	// more than 1e-5 of the arrivals are lost); MaxGiants the giants a PS
	// server can hold (default 6, doubled with it). Arrivals beyond are
	// lost and reported (AttractorResult.Lost).
	MaxQueue, MaxGiants int
	// MinClass is the smallest board-class mass that receives arrivals
	// under least loaded (default 1e-12: classes below are numerical dust,
	// whose rate λ/P would be meaningless).
	MinClass float64
}

// AttractorResult is the attractor of the period map.
type AttractorResult struct {
	Kind  fixedpoint.Kind
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
	// Status is Converged for a fixed point or a cycle, NotSettled when
	// MaxIter periods found neither (the values are then those of the
	// last iterate).
	Status solver.Status

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
		return param.Errorf("Period", "T = %v, want 0.01 ≤ T ≤ %v (the cost grows like T^2.3: about 30 s at T = 400)", m.Period, MaxPeriod)
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
// loses them) while more than 1e-5 of the arrivals are lost to it (the
// mean time in system is then off by about that fraction at most).
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
	scv, _ := scvOf(m.Sizes)
	M := m.MaxQueue
	autoM := M == 0
	if autoM {
		M = 32 + int(2*m.Load*m.Period)
	}
	J := m.MaxGiants
	if J == 0 {
		J = 6
	}
	const lostTol = 1e-5
	for {
		gi := J
		if scv == 1 || m.Discipline == spec.FCFS {
			gi = 0
		}
		res, err := m.attractor(newServerChain(m.Discipline, scv, M, gi), maxIter)
		if err != nil {
			return nil, err
		}
		switch {
		case res.Lost <= lostTol || !autoM || M > 20_000:
			return res, nil
		case res.lostTop > lostTol/2:
			M *= 2
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
	if r.Status == fixedpoint.Converged {
		ok, evals, err := fixedpoint.Attracting(pm.apply, r.X, 8)
		if err != nil {
			return nil, err
		}
		iters += evals
		if ok {
			att = &fixedpoint.Attractor{Kind: fixedpoint.FixedPoint, Period: 1, Points: [][]float64{r.X}}
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
	res := &AttractorResult{Kind: att.Kind, Cycle: att.Period, Iterations: iters, States: ch.n, Status: solver.Converged}
	if att.Kind == fixedpoint.NotSettled {
		res.Status = solver.NotSettled
	}
	pts := att.Points
	if att.Kind == fixedpoint.NotSettled {
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

// periodMap applies one refresh period. Each board class is evolved by
// uniformisation: with Λ ≥ r_b + the largest service rate, the state after
// time T is Σ_k Pois(ΛT; k)·v_k with v_{k+1} = v_k·(I + G/Λ), and the
// time-integral of any linear function of the state is
// Σ_k (its value at v_k)·P(Pois(ΛT) > k)/Λ. The Poisson weights are taken
// in log space and cut below 1e-18 on either side of the mode; the state
// is only updated on the levels it can have reached (one level per step
// from its start).
type periodMap struct {
	m         *PeriodicUpdate
	ch        *serverChain
	v, w      []float64 // current and next uniformised vectors
	meanQueue float64
	lost      float64 // largest fraction of arrivals lost in one period
	lostTop   float64 // … to the count truncation
	lostGiant float64 // … to the giant truncation
	maxSvc    float64
	lvStart   []int // first state index of each level
}

func newPeriodMap(m *PeriodicUpdate, ch *serverChain) *periodMap {
	pm := &periodMap{m: m, ch: ch, v: make([]float64, ch.n), w: make([]float64, ch.n)}
	for _, r := range ch.svcOut {
		pm.maxSvc = math.Max(pm.maxSvc, r)
	}
	for _, st := range ch.level {
		pm.lvStart = append(pm.lvStart, st[0])
	}
	pm.lvStart = append(pm.lvStart, ch.n)
	return pm
}

// poissonWeights returns the Pois(mu) probabilities from k0 to k1 (where
// they exceed 1e-18 relative to the mode) and the tail P(N > k) for each.
func poissonWeights(mu float64) (k0 int, w, tail []float64) {
	mode := math.Floor(mu)
	lw := func(k float64) float64 {
		lg, _ := math.Lgamma(k + 1)
		return -mu + k*math.Log(mu) - lg
	}
	top := lw(mode)
	lo, hi := mode, mode
	for lo > 0 && lw(lo-1)-top > math.Log(1e-18) {
		lo--
	}
	for lw(hi+1)-top > math.Log(1e-18) {
		hi++
	}
	k0 = int(lo)
	var sum float64
	for k := lo; k <= hi; k++ {
		v := math.Exp(lw(k))
		w = append(w, v)
		sum += v
	}
	// Normalise away the cut-off mass (at most ~1e-16 relative).
	for i := range w {
		w[i] /= sum
	}
	tail = make([]float64, len(w))
	var s float64
	for i := len(w) - 1; i >= 0; i-- {
		tail[i] = s // P(N > k0 + i)
		s += w[i]
	}
	return k0, w, tail
}

// apply writes the state distribution at the next refresh.
func (pm *periodMap) apply(dst, x []float64) error {
	ch, m := pm.ch, pm.m
	M := ch.M
	q := make([]float64, M+1)
	ch.levelSums(q, x)
	var total float64
	for _, v := range q {
		total += v
	}
	if !(total > 0) {
		return fmt.Errorf("bestofd: periodic update: the state has no mass")
	}
	tail := make([]float64, M+2)
	for b := M; b >= 0; b-- {
		tail[b] = tail[b+1] + q[b]/total
	}
	minClass := m.MinClass
	if minClass == 0 {
		minClass = 1e-12
	}
	lowest := -1
	for b := range q {
		if q[b]/total > minClass {
			lowest = b
			break
		}
	}
	clear(dst)
	pm.meanQueue = 0
	var lostTop, lostGiant float64
	for b := 0; b <= M; b++ {
		pb := q[b] / total
		if pb <= 0 {
			continue
		}
		if pb < 1e-15 {
			// Numerical dust: carried over unchanged (an error below
			// 1e-15 in ‖·‖₁) rather than evolved.
			for _, s := range ch.level[b] {
				dst[s] += x[s] / total
			}
			continue
		}
		var rate float64
		switch {
		case m.D == 0 && b == lowest:
			rate = m.Load / pb
		case m.D == 0:
			rate = 0
		default:
			d := float64(m.D)
			rate = m.Load * (math.Pow(tail[b], d) - math.Pow(tail[b+1], d)) / pb
		}
		mq, lt, lg := pm.evolve(dst, x, b, rate, 1/total)
		pm.meanQueue += mq
		lostTop += lt
		lostGiant += lg
	}
	per := m.Load * m.Period
	pm.lost = math.Max(pm.lost, (lostTop+lostGiant)/per)
	pm.lostTop = math.Max(pm.lostTop, lostTop/per)
	pm.lostGiant = math.Max(pm.lostGiant, lostGiant/per)
	return nil
}

// evolve adds to dst the state after one period of the servers of board
// class b (x restricted to level b, times scale), under arrivals at rate
// r; it returns the time-average count they contribute and the arrivals
// they lose to the count and to the giant truncation.
func (pm *periodMap) evolve(dst, x []float64, b int, r, scale float64) (meanQueue, lostTop, lostGiant float64) {
	ch, T := pm.ch, pm.m.Period
	M := ch.M
	lam := r + pm.maxSvc
	if lam <= 0 {
		lam = 1
	}
	k0, wts, tl := poissonWeights(lam * T)
	v, w := pm.v, pm.w
	clear(v)
	for _, s := range ch.level[b] {
		v[s] = x[s] * scale
	}
	lo, hi := b, b // levels that may hold mass
	var area, topArea, giantArea float64
	kmax := k0 + len(wts) - 1
	for k := 0; k <= kmax; k++ {
		a, z := pm.lvStart[lo], pm.lvStart[hi+1]
		// Count and loss rate at step k, weighted by P(N > k)/Λ.
		var pk float64
		switch {
		case k < k0:
			pk = 1
		default:
			pk = tl[k-k0]
		}
		if pk > 0 {
			var c, lt, lg float64
			for s := a; s < z; s++ {
				c += float64(ch.lvl[s]) * v[s]
				if ch.lvl[s] == M {
					lt += r * v[s]
				} else {
					for j, t := range ch.arrTo[s] {
						if t == s {
							lg += r * v[s] * ch.arrP[s][j]
						}
					}
				}
			}
			area += c * pk / lam
			topArea += lt * pk / lam
			giantArea += lg * pk / lam
		}
		if k >= k0 {
			wk := wts[k-k0]
			for s := a; s < z; s++ {
				dst[s] += wk * v[s]
			}
		}
		if k == kmax {
			break
		}
		// v ← v·(I + G/Λ) on the reachable levels.
		nlo, nhi := max(lo-1, 0), min(hi+1, M)
		na, nz := pm.lvStart[nlo], pm.lvStart[nhi+1]
		for s := na; s < nz; s++ {
			w[s] = 0
		}
		for s := a; s < z; s++ {
			vs := v[s]
			if vs == 0 {
				continue
			}
			stay := 1 - ch.svcOut[s]/lam
			if ch.lvl[s] < M {
				for j, t := range ch.arrTo[s] {
					p := r * ch.arrP[s][j] / lam
					if t == s {
						continue // a lost giant: stays
					}
					w[t] += vs * p
					stay -= p
				}
			}
			w[s] += vs * stay
			for j, t := range ch.svcTo[s] {
				w[t] += vs * ch.svcR[s][j] / lam
			}
		}
		for s := a; s < z; s++ {
			v[s] = 0
		}
		v, w = w, v
		lo, hi = nlo, nhi
		// Drop edge levels holding less than 1e-22 (at most ~1e-19 over a
		// period, far below every tolerance here): the distribution of
		// the count after k steps is concentrated, and the work follows
		// it.
		levelMass := func(l int) float64 {
			var s float64
			for i := pm.lvStart[l]; i < pm.lvStart[l+1]; i++ {
				s += v[i]
			}
			return s
		}
		for lo < hi && levelMass(lo) < 1e-22 {
			for i := pm.lvStart[lo]; i < pm.lvStart[lo+1]; i++ {
				v[i] = 0
			}
			lo++
		}
		for hi > lo && levelMass(hi) < 1e-22 {
			for i := pm.lvStart[hi]; i < pm.lvStart[hi+1]; i++ {
				v[i] = 0
			}
			hi--
		}
	}
	// Leave the work vectors clean for the next class.
	clear(pm.v)
	clear(pm.w)
	return area / T, topArea, giantArea
}
