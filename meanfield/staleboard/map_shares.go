package staleboard

import (
	"math"
	"math/bits"
	"sort"
)

// The share evolution of a period: dispatchers with unequal shares α_r of
// the arrivals. Dispatcher r needs N·F(v) jobs at rate α_r·λ·N for its
// pass through level v, so its passes last L^r_v = F(v)/(α_r·λ) and the k
// schedules no longer line up. A server whose board reads b receives one
// job from r in every pass v ≥ b of r, at a uniform time in that pass,
// independently across dispatchers.
//
// The period is cut at every pass boundary of every dispatcher. Within one
// of these intervals, of length τ from s, a dispatcher r whose job of the
// current pass has not come yet ("pending") sends it with probability π_r
// = τ/(e_r − s), e_r the end of its pass, at a uniform time; so given the
// set A of pending dispatchers that send in the interval, the arrivals'
// times are iid uniform and the interleaving recursion of the phase
// evolution applies with a = |A| arrivals. A server's state is therefore
// (its pending set P, its server state): after the interval the state is
// (P \ A, R_|A|) with probability Π_{r∈A} π_r·Π_{r∈P∖A} (1 − π_r), R_a the
// server's law given a arrivals. When r starts a pass, every server it has
// reached becomes pending for it again.
//
// A class b is reached by r from t^r_b on: the classes reached by every
// dispatcher share all future arrivals and are carried as one aggregate;
// a class reached by some only is carried on its own (the class's future
// depends on when the others reach it), and a class reached by none dies
// on its own chain until the first reaches it. Up to 2^k pending sets per
// group: k ≤ MaxShareDispatchers.

// MaxShareDispatchers bounds the dispatchers of a system with unequal
// shares: a server's state carries the set of dispatchers whose job of
// the current pass is still to come (2^k sets).
const MaxShareDispatchers = 6

// sharesGroup is a set of servers with the same reached dispatchers: the
// law over (pending set, server state), block P at blocks[P].
type sharesGroup struct {
	reached uint32
	blocks  [][]float64
}

// passStart is the start of dispatcher r's pass v at time t.
type passStart struct {
	t    float64
	r, v int
	end  float64 // t + L^r_v
}

// applyShares evaluates Φ_T on the state law x (checked, of total mass)
// by the share evolution into res: every dispatcher's pass starts in time
// order (sharesSchedule), the groups carried between them (sharesRun),
// and the next state summed from the groups and the classes no
// dispatcher reached (sharesRun.finish).
func (m *Map) applyShares(x []float64, mass float64, res *MapResult) {
	next0, counts0 := res.Next[:0], res.Counts[:0]
	*res = MapResult{Next: next0, Counts: counts0}
	board, _ := m.server.counts(nil, x)
	top := boardTop(board)
	starts := m.sharesSchedule(board, top, mass)
	run := newSharesRun(m, x, board, top, res)
	for i := 0; i <= len(starts); i++ {
		next := m.Period
		if i < len(starts) {
			next = math.Min(starts[i].t, m.Period)
		}
		run.advance(next)
		if i == len(starts) || starts[i].t >= m.Period {
			break
		}
		run.start(starts[i])
	}
	run.finish()
}

// sharesSchedule is every dispatcher's schedule up to T on the board
// (top its last non-zero class, mass its total): r's pass v lasts
// F(v)/(α_r·λ), and the passes start at t^r_v. The starts are in time
// order (ties by dispatcher, then level).
func (m *Map) sharesSchedule(board []float64, top int, mass float64) []passStart {
	var starts []passStart
	cum := make([]float64, top+1)
	acc := 0.0
	for b := 0; b <= top; b++ {
		acc += board[b]
		cum[b] = acc
	}
	for r := range m.K {
		t := 0.0
		for v := 0; ; v++ {
			F := mass
			if v <= top {
				F = cum[v]
			}
			L := F / (m.shares[r] * m.Load)
			starts = append(starts, passStart{t: t, r: r, v: v, end: t + L})
			if t+L >= m.Period || (L == 0 && v > top) {
				break
			}
			t += L
		}
	}
	sort.SliceStable(starts, func(i, j int) bool { return starts[i].t < starts[j].t })
	return starts
}

// sharesRun is the state of one period of the share evolution: the
// aggregate (classes reached by every dispatcher), the classes reached by
// some only, and each dispatcher's current pass.
type sharesRun struct {
	m     *Map
	x     []float64 // the state law at the refresh
	board []float64 // its count marginal
	top   int
	res   *MapResult
	all   uint32 // the set of every dispatcher
	agg   *sharesGroup
	// partial holds the classes reached by some dispatchers; first says
	// which classes a dispatcher has reached.
	partial  map[int]*sharesGroup
	first    []bool
	integral float64
	now      float64
	ends     []float64 // the end of each dispatcher's current pass
	levelOf  []int     // each dispatcher's current pass
}

// newSharesRun is the start of a period from the state law x.
func newSharesRun(m *Map, x, board []float64, top int, res *MapResult) *sharesRun {
	k := m.K
	all := uint32(1)<<k - 1
	return &sharesRun{m: m, x: x, board: board, top: top, res: res, all: all,
		agg:     &sharesGroup{reached: all, blocks: make([][]float64, 1<<k)},
		partial: map[int]*sharesGroup{}, first: make([]bool, top+1),
		ends: make([]float64, k), levelOf: make([]int, k)}
}

// advance carries every group from now to next, the partial ones by
// class (a fixed order for the sums of the integral and the lost mass:
// the same numbers from every run).
func (u *sharesRun) advance(next float64) {
	tau := next - u.now
	if tau <= 0 {
		return
	}
	u.integral += u.m.sharesInterval(u.agg, u.now, tau, u.ends, u.res)
	for _, b := range u.classes() {
		u.integral += u.m.sharesInterval(u.partial[b], u.now, tau, u.ends, u.res)
	}
	u.now = next
}

// classes are the classes of the partial groups, in increasing order.
func (u *sharesRun) classes() []int {
	keys := make([]int, 0, len(u.partial))
	for b := range u.partial {
		keys = append(keys, b)
	}
	sort.Ints(keys)
	return keys
}

// start begins dispatcher ps.r's pass ps.v: the servers it has reached
// become pending for it again, and it reaches class v (which joins the
// aggregate once every dispatcher has reached it).
func (u *sharesRun) start(ps passStart) {
	m := u.m
	r, bit := ps.r, uint32(1)<<ps.r
	u.ends[r], u.levelOf[r] = ps.end, ps.v
	makePending(u.agg, bit)
	for b, g := range u.partial {
		if b <= ps.v && g.reached&bit != 0 {
			makePending(g, bit)
		}
	}
	b := ps.v
	if b > u.top || u.board[b] == 0 {
		return
	}
	g, ok := u.partial[b]
	if !ok && !u.first[b] {
		// The class has died on its own chain until now.
		law, integ, lost := m.deathChain(u.x, b, b, ps.t)
		u.integral += integ
		u.res.Lost += lost
		g = &sharesGroup{blocks: make([][]float64, 1<<m.K)}
		g.blocks[0] = append([]float64(nil), law...)
		u.partial[b] = g
		u.first[b] = true
	}
	if g == nil {
		return
	}
	g.reached |= bit
	makePending(g, bit)
	if g.reached == u.all {
		for p, blk := range g.blocks {
			addBlock(u.agg, p, blk)
		}
		delete(u.partial, b)
	}
}

// finish sums the next state into res: the aggregate, the classes
// reached by some dispatchers (by class), and the classes no dispatcher
// reached, which die over the whole period; then the board, the mean time
// in system and the branch label.
func (u *sharesRun) finish() {
	m, res := u.m, u.res
	out := make([]float64, 0)
	addLaw := func(v []float64) {
		out = growKeep(out, len(v))
		for j, w := range v {
			out[j] += w
		}
	}
	for _, blk := range u.agg.blocks {
		addLaw(blk)
	}
	for _, b := range u.classes() {
		for _, blk := range u.partial[b].blocks {
			addLaw(blk)
		}
	}
	for b := 0; b <= u.top; b++ {
		if u.board[b] > 0 && !u.first[b] {
			law, integ, lost := m.deathChain(u.x, b, b, m.Period)
			u.integral += integ
			res.Lost += lost
			addLaw(law)
		}
	}
	res.Lost += m.trimLevels(&out)
	res.Next = append(res.Next[:0], out...)
	res.Counts, res.BoardMean = m.server.counts(res.Counts, res.Next)
	res.MeanQueue = u.integral / m.Period
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
	// The pass in progress at T of the dispatcher with the largest share
	// (the label of the branch reported; the map has one border per
	// dispatcher).
	res.Pass = u.levelOf[0]
	for r := range m.K {
		if m.shares[r] > m.shares[0] {
			res.Pass = u.levelOf[r]
		}
	}
}

// makePending moves every block of g without bit to the block with it.
func makePending(g *sharesGroup, bit uint32) {
	for p := range g.blocks {
		if uint32(p)&bit != 0 || g.blocks[p] == nil {
			continue
		}
		addBlock(g, p|int(bit), g.blocks[p])
		g.blocks[p] = nil
	}
}

// addBlock adds the law v to block p of g.
func addBlock(g *sharesGroup, p int, v []float64) {
	if v == nil {
		return
	}
	b := growKeep(g.blocks[p], len(v))
	for i, w := range v {
		b[i] += w
	}
	g.blocks[p] = b
}

// sharesInterval propagates the group g through [s, s + τ), ends[r] the
// end of dispatcher r's current pass, and returns the interval's time
// integral of the count (the Poisson truncation is added to res.Lost).
func (m *Map) sharesInterval(g *sharesGroup, s, tau float64, ends []float64, res *MapResult) float64 {
	k := m.K
	nb := make([][]float64, 1<<k)
	var integral float64
	for p, x := range g.blocks {
		if x == nil {
			continue
		}
		var pend []int
		var pi []float64
		for r := range k {
			if p&(1<<r) != 0 {
				pend = append(pend, r)
				pi = append(pi, math.Min(1, tau/(ends[r]-s)))
			}
		}
		R, integ, lost := m.sharesRecursion(x, pi, tau)
		integral += integ
		res.Lost += lost
		// Distribute over the subsets A of the pending set that send.
		np := len(pend)
		for a := 0; a < 1<<np; a++ {
			w := 1.0
			rest := p
			for j, r := range pend {
				if a&(1<<j) != 0 {
					w *= pi[j]
					rest &^= 1 << r
				} else {
					w *= 1 - pi[j]
				}
			}
			if w == 0 {
				continue
			}
			law := R[bits.OnesCount(uint(a))]
			dst := growKeep(nb[rest], len(law))
			for i, v := range law {
				dst[i] += w * v
			}
			nb[rest] = dst
		}
	}
	for p := range nb {
		if nb[p] != nil {
			m.trimLevels(&nb[p])
		}
	}
	g.blocks = nb
	return integral
}

// sharesRecursion propagates the law x through an interval of length τ in
// which each of len(pi) pending dispatchers sends with probability pi[j]
// at a uniform time: R[a] is the law after the interval given a arrivals
// (the interleaving recursion summed over Poisson(μτ) service events), the
// integral ∫₀^τ E[count] dt over all outcomes (Gauss–Legendre on the
// Poisson-binomial law of the arrivals by t, with probabilities
// pi[j]·t/τ), and the mass lost to the Poisson truncation.
func (m *Map) sharesRecursion(x []float64, pi []float64, tau float64) ([][]float64, float64, float64) {
	sv := m.server
	amax := len(pi)
	mu := sv.mu
	pois, lost := m.poissonTerms(nil, mu*tau)
	S := len(pois) - 1
	nl := sv.levels(len(x))
	n := sv.offset(nl + amax)
	prev, cur := make([][]float64, amax+1), make([][]float64, amax+1)
	R := make([][]float64, amax+1)
	for a := range cur {
		prev[a], cur[a], R[a] = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	var mass float64
	for _, v := range x {
		mass += v
	}
	// W(a, s) = ∫₀^τ PB(a; t)·Pois(s; μt) dt at Gauss–Legendre nodes.
	var W [][]float64
	if !m.noIntegral {
		W = make([][]float64, amax+1)
		for a := range W {
			W[a] = make([]float64, S+1)
		}
		xs, wl := m.legendreChecked(quadNodes(amax+S, mu*tau))
		pb := make([]float64, amax+1)
		for i, z := range xs {
			t := 0.5 * tau * (z + 1)
			wi := 0.5 * tau * wl[i]
			poissonBinomial(pb, pi, t/tau)
			lp := math.Exp(-mu * t)
			for s := 0; s <= S; s++ {
				if s > 0 {
					lp *= mu * t / float64(s)
				}
				for a := range pb {
					W[a][s] += wi * pb[a] * lp
				}
			}
		}
	}
	var integral float64
	for s := 0; s <= S; s++ {
		for a := 0; a <= amax; a++ {
			mean := sv.latticePoint(cur[a], x, prev, cur, a, s, nl, R[a], math.Max(0, pois[s]))
			if W != nil && W[a][s] > 0 {
				integral += W[a][s] * mean
			}
		}
		prev, cur = cur, prev
	}
	return R, integral, lost * mass
}

// poissonBinomial fills pb[a] = P(a of the events happen), event j with
// probability pi[j]·f, independently.
func poissonBinomial(pb, pi []float64, f float64) {
	clear(pb)
	pb[0] = 1
	for j, p := range pi {
		q := p * f
		for a := j + 1; a >= 1; a-- {
			pb[a] = pb[a]*(1-q) + pb[a-1]*q
		}
		pb[0] *= 1 - q
	}
}
