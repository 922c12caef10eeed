package bestofd

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
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

// periodMap applies one refresh period. Each board class is evolved by
// uniformisation: with Λ ≥ r_b + the largest service rate, the state after
// time T is Σ_k Pois(ΛT; k)·v_k with v_{k+1} = v_k·(I + G/Λ), and the
// time-integral of any linear function of the state is
// Σ_k (its value at v_k)·P(Pois(ΛT) > k)/Λ.
//
// The work follows the mass. Each step updates only the states that can
// hold mass (a range of states; for PS, on each level a range of giant
// counts), and drops the states at the ends of every range that hold less
// than trimMass: a step costs about the number of states above trimMass,
// however large the truncation (M, J). The Poisson weights of a class of
// mass p_b are cut where they fall below poissonCut/p_b of the mode's
// (and never looser than 1e-12): the steps, and the error, scale with the
// mass that matters. The PS transitions are written out; the others are
// flattened into one table. The classes are independent: they run in
// parallel, in numChunks fixed chunks (class b in chunk b mod numChunks,
// each chunk summed in class order and the chunks in chunk order), so the
// result does not depend on the number of cores.
type periodMap struct {
	m         *PeriodicUpdate
	ch        *serverChain
	meanQueue float64
	lost      float64 // largest fraction of arrivals lost in one period
	lostTop   float64 // … to the count truncation
	lostGiant float64 // … to the giant truncation
	maxSvc    float64
	lvStart   []int // first state index of each level
	size      []int // states of each level
	tr        []transition
	lostG     []float64 // probability that an arrival to the state is a giant that does not fit
	lvl       []float64 // level of each state
	q, tail   []float64 // the board and its tail
	rate      []float64 // arrival rate of each board class
	chunks    [numChunks]chunk
	work      []*evolver // one per worker
}

// chunk accumulates the classes b ≡ c (mod numChunks).
type chunk struct {
	dst                           []float64
	meanQueue, lostTop, lostGiant float64
}

// evolver is the work space of one worker: the uniformised vectors, the
// position range [from, to) holding mass on each level and the next
// step's ranges, and the Poisson weights.
type evolver struct {
	pm                   *periodMap
	v, w                 []float64
	from, to, nfrom, nto []int
	wts, tl, left        []float64
	svcS, svcG           []float64 // PS: per level n, μ_s/(nΛ) and μ_g/(nΛ) for the class being evolved
}

// transition is the outflow of one state: up to two arrival targets (with
// their probabilities, given an arrival) and two service targets (with
// their rates). Unused entries point at the state itself with weight 0.
type transition struct {
	a   [2]int32
	sv  [2]int32
	pa  [2]float64
	rs  [2]float64
	out float64 // total service rate
	arr float64 // total probability that an arrival moves the state
}

const (
	// maxAutoStates bounds the states of a PS chain without a giant
	// limit ((M+1)(M+2)/2: 347,361 at T = 400, the longest default
	// truncation); beyond, the default limit is the most giants that fit.
	// The work per step follows the states that hold mass, not J; the
	// memory follows J.
	maxAutoStates = 1 << 19
	// trimMass is the mass (a fraction of all servers) below which a state
	// at an end of a level's range is dropped. The mass dropped in a
	// period is below 1e-14 in the cases measured (well below the fixed
	// point's tolerance 1e-10), and the mean time in system moves by
	// about 1e-12 relative against 1e-24.
	trimMass = 1e-18
	// poissonCut bounds the mass, relative to the mode's weight times the
	// class mass, of the Poisson weights cut on either side.
	poissonCut = 1e-18
	// numChunks is the number of chunks the classes are split into.
	numChunks = 8
)

// autoGiants is the default giant limit of a PS chain truncated at M
// jobs: none (M) if the chain fits in maxAutoStates states, otherwise
// about maxAutoStates/M (at least 6).
func autoGiants(M int) int {
	if (M+1)*(M+2)/2 <= maxAutoStates {
		return M
	}
	return max(6, maxAutoStates/(M+1))
}

func newPeriodMap(m *PeriodicUpdate, ch *serverChain) *periodMap {
	pm := &periodMap{m: m, ch: ch, tr: make([]transition, ch.n), lostG: make([]float64, ch.n)}
	for _, r := range ch.svcOut {
		pm.maxSvc = math.Max(pm.maxSvc, r)
	}
	for _, st := range ch.level {
		pm.lvStart = append(pm.lvStart, st[0])
		pm.size = append(pm.size, len(st))
	}
	pm.lvStart = append(pm.lvStart, ch.n)
	pm.q, pm.tail, pm.rate = make([]float64, ch.M+1), make([]float64, ch.M+2), make([]float64, ch.M+1)
	pm.lvl = make([]float64, ch.n)
	for s := range ch.n {
		pm.lvl[s] = float64(ch.lvl[s])
		t := &pm.tr[s]
		t.a, t.sv = [2]int32{int32(s), int32(s)}, [2]int32{int32(s), int32(s)}
		t.out = ch.svcOut[s]
		var na int
		if ch.lvl[s] < ch.M {
			for j, to := range ch.arrTo[s] {
				if to == s {
					pm.lostG[s] += ch.arrP[s][j] // a giant that does not fit: stays
					continue
				}
				if na == 2 || ch.lvl[to] != ch.lvl[s]+1 {
					panic("bestofd: periodic update: unexpected arrival transition")
				}
				t.a[na], t.pa[na] = int32(to), ch.arrP[s][j]
				t.arr += ch.arrP[s][j]
				na++
			}
		}
		if len(ch.svcTo[s]) > 2 {
			panic("bestofd: periodic update: more than two service transitions")
		}
		for j, to := range ch.svcTo[s] {
			if ch.lvl[to] != ch.lvl[s]-1 {
				panic("bestofd: periodic update: unexpected service transition")
			}
			t.sv[j], t.rs[j] = int32(to), ch.svcR[s][j]
		}
	}
	for c := range pm.chunks {
		pm.chunks[c].dst = make([]float64, ch.n)
	}
	for range min(runtime.GOMAXPROCS(0), numChunks) {
		L := len(ch.level)
		pm.work = append(pm.work, &evolver{pm: pm, v: make([]float64, ch.n), w: make([]float64, ch.n),
			from: make([]int, L), to: make([]int, L), nfrom: make([]int, L), nto: make([]int, L),
			svcS: make([]float64, L), svcG: make([]float64, L)})
	}
	return pm
}

// poissonWeights sets ev.wts to the Pois(mu) probabilities from k0 on
// (where they exceed cut times the mode's), normalised, and ev.tl to the
// tails P(N > k) for each.
func (ev *evolver) poissonWeights(mu, cut float64) (k0 int) {
	mode := math.Floor(mu)
	// Relative to the mode: w(k−1) = w(k)·k/μ, w(k+1) = w(k)·μ/(k+1).
	lo, below := mode, 1.0
	left := ev.left[:0]
	for lo > 0 {
		below *= lo / mu
		if below <= cut {
			break
		}
		left = append(left, below)
		lo--
	}
	w := ev.wts[:0]
	for i := len(left) - 1; i >= 0; i-- {
		w = append(w, left[i])
	}
	w = append(w, 1)
	for k, above := mode+1, 1.0; ; k++ {
		above *= mu / k
		if above <= cut {
			break
		}
		w = append(w, above)
	}
	var sum float64
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] /= sum
	}
	tl := ev.tl[:0]
	for range w {
		tl = append(tl, 0)
	}
	var s float64
	for i := len(w) - 1; i >= 0; i-- {
		tl[i] = s // P(N > k0 + i)
		s += w[i]
	}
	ev.wts, ev.tl, ev.left = w, tl, left
	return int(mode) - len(left)
}

// apply writes the state distribution at the next refresh.
func (pm *periodMap) apply(dst, x []float64) error {
	ch, m := pm.ch, pm.m
	M := ch.M
	q := pm.q
	ch.levelSums(q, x)
	var total float64
	for _, v := range q {
		total += v
	}
	if !(total > 0) {
		return fmt.Errorf("bestofd: periodic update: the state has no mass")
	}
	tail := pm.tail
	tail[M+1] = 0
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
	for b := range q {
		pb := q[b] / total
		switch {
		case pb <= 0:
		case m.D == 0 && b == lowest:
			pm.rate[b] = m.Load / pb
		case m.D == 0:
			pm.rate[b] = 0
		default:
			d := float64(m.D)
			pm.rate[b] = m.Load * (math.Pow(tail[b], d) - math.Pow(tail[b+1], d)) / pb
		}
	}
	// The chunks, on the workers.
	var next atomic.Int32
	run := func(ev *evolver) {
		for {
			c := int(next.Add(1)) - 1
			if c >= numChunks {
				return
			}
			ev.chunk(c, x, total)
		}
	}
	if len(pm.work) == 1 {
		run(pm.work[0])
	} else {
		var wg sync.WaitGroup
		for _, ev := range pm.work {
			wg.Go(func() { run(ev) })
		}
		wg.Wait()
	}
	copy(dst, pm.chunks[0].dst)
	pm.meanQueue = pm.chunks[0].meanQueue
	lostTop, lostGiant := pm.chunks[0].lostTop, pm.chunks[0].lostGiant
	for c := 1; c < numChunks; c++ {
		k := &pm.chunks[c]
		for s, v := range k.dst {
			dst[s] += v
		}
		pm.meanQueue += k.meanQueue
		lostTop += k.lostTop
		lostGiant += k.lostGiant
	}
	per := m.Load * m.Period
	pm.lost = math.Max(pm.lost, (lostTop+lostGiant)/per)
	pm.lostTop = math.Max(pm.lostTop, lostTop/per)
	pm.lostGiant = math.Max(pm.lostGiant, lostGiant/per)
	return nil
}

// chunk evolves the board classes b ≡ c (mod numChunks) of x (total mass
// total) into chunk c's accumulators.
func (ev *evolver) chunk(c int, x []float64, total float64) {
	pm := ev.pm
	k := &pm.chunks[c]
	clear(k.dst)
	k.meanQueue, k.lostTop, k.lostGiant = 0, 0, 0
	for b := c; b <= pm.ch.M; b += numChunks {
		pb := pm.q[b] / total
		if pb <= 0 {
			continue
		}
		if pb < 1e-15 {
			// Numerical dust: carried over unchanged (an error below
			// 1e-15 in ‖·‖₁) rather than evolved.
			for _, s := range pm.ch.level[b] {
				k.dst[s] += x[s] / total
			}
			continue
		}
		mq, lt, lg := ev.evolve(k.dst, x, b, pm.rate[b], 1/total, pb)
		k.meanQueue += mq
		k.lostTop += lt
		k.lostGiant += lg
	}
}

// evolve adds to dst the state after one period of the servers of board
// class b (x restricted to level b, times scale; mass pb), under arrivals
// at rate r; it returns the time-average count they contribute and the
// arrivals they lose to the count and to the giant truncation.
func (ev *evolver) evolve(dst, x []float64, b int, r, scale, pb float64) (meanQueue, lostTop, lostGiant float64) {
	pm := ev.pm
	lam := r + pm.maxSvc
	if lam <= 0 {
		lam = 1
	}
	k0 := ev.poissonWeights(lam*pm.m.Period, math.Min(poissonCut/pb, 1e-12))
	for s := pm.lvStart[b]; s < pm.lvStart[b+1]; s++ {
		ev.v[s] = x[s] * scale
	}
	var area, topArea, giantArea float64
	if pm.ch.ps != nil {
		area, topArea, giantArea = ev.evolvePS(dst, b, k0, r, lam)
	} else {
		area, topArea, giantArea = ev.evolveLevels(dst, b, k0, r, lam)
	}
	return area / pm.m.Period, topArea, giantArea
}

// evolveLevels runs the uniformised steps of evolve for the chains other
// than PS with H2 sizes (at most two states per level), from the
// transition table. The states that can hold mass are a range [a, z) of
// state indices: the levels reached from the previous step's range, less
// the states at either end holding under trimMass. It returns the
// integrals of the count, and of the arrivals lost to the top level and
// as giants, over the period (times Λ).
func (ev *evolver) evolveLevels(dst []float64, b, k0 int, r, lam float64) (area, topArea, giantArea float64) {
	pm := ev.pm
	M, lvOf := pm.ch.M, pm.ch.lvl
	wts, tl := ev.wts, ev.tl
	kmax := k0 + len(wts) - 1
	il, ra := 1/lam, r/lam
	v, w, tr, lostG, lvl := ev.v, ev.w, pm.tr, pm.lostG, pm.lvl
	a, z := trimRange(v, 0, pm.lvStart[b], pm.lvStart[b+1])
	for k := 0; ; k++ {
		var pk, wk float64 = 1, 0
		if k >= k0 {
			pk, wk = tl[k-k0], wts[k-k0]
		}
		if k == kmax {
			for s := a; s < z; s++ {
				dst[s] += wk * v[s]
				v[s] = 0
			}
			break
		}
		var top float64
		for s := max(a, pm.lvStart[M]); s < z; s++ {
			top += v[s]
		}
		// v ← v·(I + G/Λ) into w (zero on entry), leaving v zero.
		var c, lg float64
		for s := a; s < z; s++ {
			vs := v[s]
			v[s] = 0
			c += lvl[s] * vs
			lg += lostG[s] * vs
			dst[s] += wk * vs
			t := &tr[s]
			va, vl := vs*ra, vs*il
			w[t.a[0]] += va * t.pa[0]
			w[t.a[1]] += va * t.pa[1]
			w[t.sv[0]] += vl * t.rs[0]
			w[t.sv[1]] += vl * t.rs[1]
			w[s] += vs - va*t.arr - vl*t.out
		}
		area += c * pk * il
		topArea += r * top * pk * il
		giantArea += r * lg * pk * il
		v, w = w, v
		if a < z {
			a, z = pm.lvStart[max(lvOf[a]-1, 0)], pm.lvStart[min(lvOf[z-1]+1, M)+1]
			a, z = trimRange(v, 0, a, z)
		}
	}
	return area, topArea, giantArea
}

// evolvePS runs the uniformised steps of evolve for a PS chain with H2
// sizes. On each level the states that can hold mass are a range of giant
// counts [from, to): those reached from the previous step's ranges, less
// the states at either end holding under trimMass. The transitions are
// written out: state (i, j) of level n = i + j (position j) moves to
// (i+1, j) and, if j < J, to (i, j+1) on an arrival (a giant arriving to
// J giants is lost), and to (i−1, j) at rate μ_s·i/n and to (i, j−1) at
// rate μ_g·j/n.
func (ev *evolver) evolvePS(dst []float64, b, k0 int, r, lam float64) (area, topArea, giantArea float64) {
	pm := ev.pm
	ps, M := pm.ch.ps, pm.ch.M
	wts, tl := ev.wts, ev.tl
	kmax := k0 + len(wts) - 1
	il, ra := 1/lam, r/lam
	st := psStep{pS: ps.ph[0] * ra, pG: ps.ph[1] * ra} // moves per unit mass: small, giant arrival
	v, w := ev.v, ev.w
	from, to, nfrom, nto := ev.from, ev.to, ev.nfrom, ev.nto
	from[b], to[b] = trimRange(v, pm.lvStart[b], 0, pm.size[b])
	// The service moves per unit mass and job on each level, once per
	// class rather than at every step (two divisions per level and step
	// were a tenth of the time).
	for n := 1; n <= M; n++ {
		ev.svcS[n], ev.svcG[n] = ps.mu[0]*il/float64(n), ps.mu[1]*il/float64(n)
	}
	lo, hi := b, b
	for k := 0; ; k++ {
		var pk float64 = 1
		st.wk = 0
		if k >= k0 {
			pk, st.wk = tl[k-k0], wts[k-k0]
		}
		if k == kmax {
			ev.flushPS(dst, v, from, to, lo, hi, st.wk)
			break
		}
		// v ← v·(I + G/Λ) into w (zero on entry), leaving v zero.
		var c, lg, top float64
		for n := lo; n <= hi; n++ {
			f, e := from[n], to[n]
			if f >= e {
				continue
			}
			if n > 0 && n < M {
				// An inner level (nearly all the work): the loop below
				// with its tests on n and j taken out and its targets
				// sliced to one length, so that the compiler drops the
				// bounds checks.
				m, g := stepInnerLevelPS(ps, v, w, dst, pm.lvStart[n-1:n+2], f, e, n, st.wk, st.pS, st.pG, ev.svcS[n], ev.svcG[n])
				c += float64(n) * m
				lg += g
				continue
			}
			var mass float64
			mass, lg = ev.stepEdgeLevelPS(v, w, dst, n, f, e, st, lg)
			c += float64(n) * mass
			if n == M {
				top = mass
			}
		}
		area += c * pk * il
		topArea += r * top * pk * il
		giantArea += r * lg * pk * il
		nlo, nhi := ev.nextRangesPS(from, to, nfrom, nto, lo, hi)
		v, w = w, v
		from, nfrom = nfrom, from
		to, nto = nto, to
		lo, hi = trimLevelsPS(v, pm.lvStart, from, to, nlo, nhi)
	}
	return area, topArea, giantArea
}

// psStep holds the per-step constants of evolvePS: the Poisson weight of
// the step and the arrival moves per unit mass.
type psStep struct {
	wk, pS, pG float64
}

// flushPS adds the last step's weight wk times v to dst on the ranges of
// levels lo…hi, leaving v zero.
func (ev *evolver) flushPS(dst, v []float64, from, to []int, lo, hi int, wk float64) {
	pm := ev.pm
	for n := lo; n <= hi; n++ {
		st := pm.lvStart[n]
		for s := st + from[n]; s < st+to[n]; s++ {
			dst[s] += wk * v[s]
			v[s] = 0
		}
	}
}

// stepEdgeLevelPS is evolvePS's step for the positions [f, e) of level 0
// or M (the general loop, with the tests on the level kept): it moves v's
// mass on the level into w, adds the step's weight of it to dst, and
// returns the mass on the level and lg plus the giant arrivals lost (per
// unit Λ).
func (ev *evolver) stepEdgeLevelPS(v, w, dst []float64, n, f, e int, st psStep, lg float64) (mass, lgOut float64) {
	pm := ev.pm
	ps, M := pm.ch.ps, pm.ch.M
	J := ps.J
	s0 := pm.lvStart[n]
	vn, wn := v[s0:s0+pm.size[n]], w[s0:s0+pm.size[n]]
	dn := dst[s0 : s0+pm.size[n]]
	var wu, wd []float64    // w on levels n+1 and n−1
	var sS, sG float64      // service moves per unit mass and job
	keep, keepJ := 1.0, 1.0 // 1 − arrival moves per unit mass (j < J, j = J)
	if n > 0 {
		wd = w[pm.lvStart[n-1]:pm.lvStart[n]]
		sS, sG = ev.svcS[n], ev.svcG[n]
	}
	if n < M {
		wu = w[pm.lvStart[n+1]:pm.lvStart[n+2]]
		keep, keepJ = 1-st.pS-st.pG, 1-st.pS
	}
	// Position j+1 of level n+1 receives giant arrivals from j and small
	// ones from j+1; position j of level n−1 small services from j and
	// giant ones from j+1: the first of each pair is carried to the next
	// position (cu, cd), so that each target is written once.
	var cu, cd float64
	fi, fj := float64(n-f), float64(f) // small and giant jobs at (n, j)
	for j := f; j < e; j++ {
		x := vn[j]
		vn[j] = 0
		mass += x
		if st.wk != 0 {
			dn[j] += st.wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		var stay float64
		if wu != nil {
			wu[j] += x*st.pS + cu
			if j < J {
				cu = x * st.pG
				stay = x*keep - xs - xg
			} else {
				cu = 0
				lg += x * ps.ph[1]
				stay = x*keepJ - xs - xg
			}
		} else {
			stay = x - xs - xg
		}
		if j > 0 {
			wd[j-1] += xg + cd
		}
		cd = xs
		wn[j] += stay
		fi--
		fj++
	}
	if cu != 0 {
		wu[e] += cu
	}
	if cd != 0 {
		wd[e-1] += cd
	}
	return mass, lg
}

// nextRangesPS writes into nfrom, nto the positions each level can hold
// after a step from the ranges from, to of levels lo…hi — the hull of the
// positions reached — and returns the levels that can hold mass.
func (ev *evolver) nextRangesPS(from, to, nfrom, nto []int, lo, hi int) (nlo, nhi int) {
	pm := ev.pm
	nlo, nhi = max(lo-1, 0), min(hi+1, pm.ch.M)
	for n := nlo; n <= nhi; n++ {
		f, e := math.MaxInt, math.MinInt
		if n-1 >= lo && from[n-1] < to[n-1] {
			f, e = from[n-1], to[n-1]+1 // small and giant arrivals
		}
		if n >= lo && n <= hi && from[n] < to[n] {
			f, e = min(f, from[n]), max(e, to[n])
		}
		if n+1 <= hi && from[n+1] < to[n+1] {
			f, e = min(f, from[n+1]-1), max(e, to[n+1]) // giant and small services
		}
		nfrom[n], nto[n] = max(f, 0), min(e, pm.size[n])
		if nfrom[n] >= nto[n] {
			nfrom[n], nto[n] = 0, 0
		}
	}
	return nlo, nhi
}

// trimLevelsPS trims the range of every level lo…hi of v (see trimRange)
// and returns the levels left with a non-empty range at either end.
func trimLevelsPS(v []float64, lvStart, from, to []int, lo, hi int) (int, int) {
	for n := lo; n <= hi; n++ {
		from[n], to[n] = trimRange(v, lvStart[n], from[n], to[n])
	}
	for lo < hi && from[lo] >= to[lo] {
		lo++
	}
	for hi > lo && from[hi] >= to[hi] {
		hi--
	}
	return lo, hi
}

// stepInnerLevelPS is evolvePS's step for the positions [f, e) of an
// inner level n (0 < n < M) whose states, and those of levels n ± 1,
// start at st[1] and st[2], st[0]: the same operations in the same order
// as the general loop, so the same numbers. It returns the mass on the
// level and the giant arrivals lost (per unit Λ).
func stepInnerLevelPS(ps *psChain, v, w, dst []float64, st []int, f, e, n int, wk, pS, pG, sS, sG float64) (mass, lg float64) {
	J := ps.J
	stD, st0, stU := st[0], st[1], st[2]
	keep, keepJ := 1-pS-pG, 1-pS
	var cu, cd float64
	fi, fj := float64(n-f), float64(f) // small and giant jobs at (n, j)
	j := f
	if j == 0 { // no giant to serve, no state below to receive one
		x := v[st0]
		v[st0] = 0
		mass += x
		if wk != 0 {
			dst[st0] += wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		var stay float64
		w[stU] += x*pS + cu
		if J > 0 {
			cu = x * pG
			stay = x*keep - xs - xg
		} else {
			lg += x * ps.ph[1]
			stay = x*keepJ - xs - xg
		}
		cd = xs
		w[st0] += stay
		fi--
		fj++
		j++
	}
	if eJ := min(e, J); j < eJ { // 0 < j < J
		vs := v[st0+j : st0+eJ]
		ws := w[st0+j : st0+eJ][:len(vs)]
		ds := dst[st0+j : st0+eJ][:len(vs)]
		us := w[stU+j : stU+eJ][:len(vs)]
		dd := w[stD+j-1 : stD+eJ-1][:len(vs)]
		for i, x := range vs {
			vs[i] = 0
			mass += x
			if wk != 0 {
				ds[i] += wk * x
			}
			xs, xg := x*sS*fi, x*sG*fj
			us[i] += x*pS + cu
			cu = x * pG
			stay := x*keep - xs - xg
			dd[i] += xg + cd
			cd = xs
			ws[i] += stay
			fi--
			fj++
		}
		j = eJ
	}
	if j < e { // j = J ≥ 1: a giant arriving is lost
		x := v[st0+j]
		v[st0+j] = 0
		mass += x
		if wk != 0 {
			dst[st0+j] += wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		w[stU+j] += x*pS + cu
		cu = 0
		lg += x * ps.ph[1]
		stay := x*keepJ - xs - xg
		w[stD+j-1] += xg + cd
		cd = xs
		w[st0+j] += stay
	}
	if cu != 0 {
		w[stU+e] += cu
	}
	if cd != 0 {
		w[stD+e-1] += cd
	}
	return mass, lg
}

// trimRange drops the states below trimMass at both ends of the positions
// [f, e) of the level starting at st, and returns the range left.
func trimRange(v []float64, st, f, e int) (int, int) {
	for f < e && v[st+f] < trimMass {
		v[st+f] = 0
		f++
	}
	for e > f && v[st+e-1] < trimMass {
		v[st+e-1] = 0
		e--
	}
	return f, e
}
