package bestofd

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/fluidlb/fluid/outcome"
)

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
	// periodLost, periodLostTop and periodLostGiant are those of the last
	// period alone.
	periodLost, periodLostTop, periodLostGiant float64
	maxSvc                                     float64
	lvStart                                    []int // first state index of each level
	size                                       []int // states of each level
	tr                                         []transition
	lostG                                      []float64  // probability that an arrival to the state is a giant that does not fit
	lvl                                        []float64  // level of each state
	q, tail                                    []float64  // the board and its tail
	jobs                                       []classJob // the evolutions of one period
	chunks                                     [numChunks]chunk
	work                                       []*evolver // one per worker
	// run is checked between evolutions: once stopped, apply returns
	// errStopped.
	run     outcome.Run
	stopped atomic.Bool
	// updates counts the state updates (one state in one uniformised
	// step) of the last apply, totalUpdates those of every apply.
	updates, totalUpdates int64
}

// classJob is one evolution of a period: the servers whose board reads
// lo…hi (except skip), under Poisson arrivals at rate rate each; mass is
// their fraction of all servers.
type classJob struct {
	lo, hi, skip int
	rate, mass   float64
}

// chunk accumulates the jobs j ≡ c (mod numChunks).
type chunk struct {
	dst                           []float64
	meanQueue, lostTop, lostGiant float64
	updates                       int64
	used                          bool // some job was evolved into dst
}

// errStopped is the error of a map evaluation cut short because the run
// was stopped (its context done) or its work budget spent.
var errStopped = errors.New("bestofd: period map stopped")

// evolver is the work space of one worker: the uniformised vectors, the
// position range [from, to) holding mass on each level and the next
// step's ranges, and the Poisson weights.
type evolver struct {
	pm                   *periodMap
	v, w                 []float64
	from, to, nfrom, nto []int
	wts, tl, left        []float64
	svcS, svcG           []float64 // PS: per level n, μ_s/(nΛ) and μ_g/(nΛ) for the class being evolved
	updates              int64     // state updates of the evolution in progress
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

// newPeriodMap builds the period map of m on the chain ch, evolving on
// workers goroutines (at most numChunks; the result does not depend on
// their number).
func newPeriodMap(m *PeriodicUpdate, ch *serverChain, workers int) *periodMap {
	pm := &periodMap{m: m, ch: ch}
	for _, r := range ch.svcOut {
		pm.maxSvc = math.Max(pm.maxSvc, r)
	}
	for _, st := range ch.level {
		pm.lvStart = append(pm.lvStart, st[0])
		pm.size = append(pm.size, len(st))
	}
	pm.lvStart = append(pm.lvStart, ch.n)
	pm.q, pm.tail = make([]float64, ch.M+1), make([]float64, ch.M+2)
	if ch.ps == nil {
		// evolvePS writes the PS transitions out; only the other chains
		// read the flattened table.
		pm.buildTable()
	}
	for c := range pm.chunks {
		pm.chunks[c].dst = make([]float64, ch.n)
	}
	for range max(1, min(workers, numChunks)) {
		L := len(ch.level)
		pm.work = append(pm.work, &evolver{pm: pm, v: make([]float64, ch.n), w: make([]float64, ch.n),
			from: make([]int, L), to: make([]int, L), nfrom: make([]int, L), nto: make([]int, L),
			svcS: make([]float64, L), svcG: make([]float64, L)})
	}
	return pm
}

// buildTable flattens the chain's transitions into pm.tr (with the
// levels pm.lvl and the lost-giant probabilities pm.lostG) for
// evolveLevels.
func (pm *periodMap) buildTable() {
	ch := pm.ch
	pm.tr, pm.lostG, pm.lvl = make([]transition, ch.n), make([]float64, ch.n), make([]float64, ch.n)
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
	pm.jobs = pm.jobs[:0]
	if m.D == 0 {
		pm.leastLoadedJobs(total)
	} else {
		d := float64(m.D)
		for b := range q {
			j := classJob{lo: b, hi: b, skip: -1, mass: q[b] / total}
			if j.mass > 0 {
				j.rate = m.Load * (math.Pow(tail[b], d) - math.Pow(tail[b+1], d)) / j.mass
			}
			pm.jobs = append(pm.jobs, j)
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
	if pm.stopped.Load() {
		return errStopped
	}
	copy(dst, pm.chunks[0].dst)
	pm.meanQueue = pm.chunks[0].meanQueue
	lostTop, lostGiant := pm.chunks[0].lostTop, pm.chunks[0].lostGiant
	pm.updates = pm.chunks[0].updates
	for c := 1; c < numChunks; c++ {
		k := &pm.chunks[c]
		if !k.used {
			continue // nothing but zeros: adding them changes no bit
		}
		for s, v := range k.dst {
			dst[s] += v
		}
		pm.meanQueue += k.meanQueue
		lostTop += k.lostTop
		lostGiant += k.lostGiant
		pm.updates += k.updates
	}
	pm.totalUpdates += pm.updates
	per := m.Load * m.Period
	pm.periodLost, pm.periodLostTop, pm.periodLostGiant = (lostTop+lostGiant)/per, lostTop/per, lostGiant/per
	pm.lost = math.Max(pm.lost, (lostTop+lostGiant)/per)
	pm.lostTop = math.Max(pm.lostTop, lostTop/per)
	pm.lostGiant = math.Max(pm.lostGiant, lostGiant/per)
	return nil
}

// leastLoadedJobs sets the jobs of a least-loaded period: the lowest
// board class holding more than MinClass of the servers receives every
// arrival, at rate λ/P(B = b_min); every other class receives none, so
// their servers only complete jobs, under one generator, and the map is
// linear in them: they evolve as one vector, whatever the number of
// classes.
func (pm *periodMap) leastLoadedJobs(total float64) {
	m, q := pm.m, pm.q
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
	rest := classJob{lo: 0, hi: len(q) - 1, skip: lowest}
	for b, v := range q {
		if b != lowest {
			rest.mass += v / total
		}
	}
	if lowest >= 0 {
		p := q[lowest] / total
		pm.jobs = append(pm.jobs, classJob{lo: lowest, hi: lowest, skip: -1, rate: m.Load / p, mass: p})
	} else {
		pm.jobs = append(pm.jobs, classJob{})
	}
	pm.jobs = append(pm.jobs, rest)
}

// chunk evolves the jobs j ≡ c (mod numChunks) of x (total mass total)
// into chunk c's accumulators, in job order.
func (ev *evolver) chunk(c int, x []float64, total float64) {
	pm := ev.pm
	k := &pm.chunks[c]
	if k.used {
		clear(k.dst)
	}
	k.meanQueue, k.lostTop, k.lostGiant, k.updates, k.used = 0, 0, 0, 0, false
	for j := c; j < len(pm.jobs); j += numChunks {
		job := pm.jobs[j]
		if job.mass <= 0 {
			continue
		}
		if pm.run.Stopped() {
			pm.stopped.Store(true)
			return
		}
		k.used = true
		if job.mass < 1e-15 {
			// Numerical dust: carried over unchanged (an error below
			// 1e-15 in ‖·‖₁) rather than evolved.
			for b := job.lo; b <= job.hi; b++ {
				if b == job.skip {
					continue
				}
				for s := pm.lvStart[b]; s < pm.lvStart[b+1]; s++ {
					k.dst[s] += x[s] / total
				}
			}
			continue
		}
		mq, lt, lg := ev.evolve(k.dst, x, job, 1/total)
		k.meanQueue += mq
		k.lostTop += lt
		k.lostGiant += lg
		k.updates += ev.updates
	}
}

// evolve adds to dst the state after one period of the servers of the
// job's board classes (x restricted to their levels, times scale), under
// arrivals at the job's rate; it returns the time-average count they
// contribute and the arrivals they lose to the count and to the giant
// truncation, and counts its state updates in ev.updates.
func (ev *evolver) evolve(dst, x []float64, job classJob, scale float64) (meanQueue, lostTop, lostGiant float64) {
	pm := ev.pm
	r := job.rate
	lam := r + pm.maxSvc
	if lam <= 0 {
		lam = 1
	}
	k0 := ev.poissonWeights(lam*pm.m.Period, math.Min(poissonCut/job.mass, 1e-12))
	for b := job.lo; b <= job.hi; b++ {
		if b == job.skip {
			continue
		}
		for s := pm.lvStart[b]; s < pm.lvStart[b+1]; s++ {
			ev.v[s] = x[s] * scale
		}
	}
	ev.updates = 0
	var area, topArea, giantArea float64
	if pm.ch.ps != nil {
		area, topArea, giantArea = ev.evolvePS(dst, job.lo, job.hi, k0, r, lam)
	} else {
		area, topArea, giantArea = ev.evolveLevels(dst, job.lo, job.hi, k0, r, lam)
	}
	return area / pm.m.Period, topArea, giantArea
}
