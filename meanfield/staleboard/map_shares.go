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
// by the share evolution into res.
func (m *Map) applyShares(x []float64, mass float64, res *MapResult) {
	sv := m.server
	k, T := m.K, m.Period
	next0, counts0 := res.Next[:0], res.Counts[:0]
	*res = MapResult{Next: next0, Counts: counts0}
	board, _ := sv.counts(nil, x)
	top := boardTop(board)
	// Every dispatcher's schedule up to T: passes start at t^r_v.
	var starts []passStart
	cum := make([]float64, top+1)
	acc := 0.0
	for b := 0; b <= top; b++ {
		acc += board[b]
		cum[b] = acc
	}
	ends := make([]float64, k) // end of each dispatcher's current pass
	for r := range k {
		t := 0.0
		for v := 0; ; v++ {
			F := mass
			if v <= top {
				F = cum[v]
			}
			L := F / (m.shares[r] * m.Load)
			starts = append(starts, passStart{t: t, r: r, v: v, end: t + L})
			if t+L >= T || (L == 0 && v > top) {
				break
			}
			t += L
		}
	}
	sort.SliceStable(starts, func(i, j int) bool { return starts[i].t < starts[j].t })
	all := uint32(1)<<k - 1
	agg := &sharesGroup{reached: all, blocks: make([][]float64, 1<<k)}
	partial := map[int]*sharesGroup{} // classes reached by some dispatchers
	first := make([]bool, top+1)      // class reached by a dispatcher already
	var integral float64
	now := 0.0
	levelOf := make([]int, k) // each dispatcher's current pass
	for i := 0; i <= len(starts); i++ {
		next := T
		if i < len(starts) {
			next = math.Min(starts[i].t, T)
		}
		if tau := next - now; tau > 0 {
			integral += m.sharesInterval(agg, now, tau, ends, res)
			for _, g := range partial {
				integral += m.sharesInterval(g, now, tau, ends, res)
			}
			now = next
		}
		if i == len(starts) || starts[i].t >= T {
			break
		}
		ps := starts[i]
		r, bit := ps.r, uint32(1)<<ps.r
		ends[r], levelOf[r] = ps.end, ps.v
		// Servers r has reached become pending for r again.
		makePending(agg, bit)
		for b, g := range partial {
			if b <= ps.v && g.reached&bit != 0 {
				makePending(g, bit)
			}
		}
		// r reaches class v.
		b := ps.v
		if b > top || board[b] == 0 {
			continue
		}
		g, ok := partial[b]
		if !ok && !first[b] {
			law, integ, lost := m.deathChain(x, b, b, ps.t)
			integral += integ
			res.Lost += lost
			g = &sharesGroup{blocks: make([][]float64, 1<<k)}
			g.blocks[0] = append([]float64(nil), law...)
			partial[b] = g
			first[b] = true
		}
		if g == nil {
			continue
		}
		g.reached |= bit
		makePending(g, bit)
		if g.reached == all {
			for p, blk := range g.blocks {
				addBlock(agg, p, blk)
			}
			delete(partial, b)
		}
	}
	// The classes no dispatcher reached die over the whole period; the
	// others' groups are summed.
	out := make([]float64, 0)
	addLaw := func(v []float64) {
		out = growKeep(out, len(v))
		for j, w := range v {
			out[j] += w
		}
	}
	for _, blk := range agg.blocks {
		addLaw(blk)
	}
	keys := make([]int, 0, len(partial))
	for b := range partial {
		keys = append(keys, b)
	}
	sort.Ints(keys)
	for _, b := range keys {
		for _, blk := range partial[b].blocks {
			addLaw(blk)
		}
	}
	for b := 0; b <= top; b++ {
		if board[b] > 0 && !first[b] {
			law, integ, lost := m.deathChain(x, b, b, T)
			integral += integ
			res.Lost += lost
			addLaw(law)
		}
	}
	res.Lost += m.trimLevels(&out)
	res.Next = append(res.Next[:0], out...)
	res.Counts, res.BoardMean = sv.counts(res.Counts, res.Next)
	res.MeanQueue = integral / T
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
	// The pass in progress at T of the dispatcher with the largest share
	// (the label of the branch reported; the map has one border per
	// dispatcher).
	res.Pass = levelOf[0]
	for r := range k {
		if m.shares[r] > m.shares[0] {
			res.Pass = levelOf[r]
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
