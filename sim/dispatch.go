package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// dispatchers is the state of the k dispatchers and their policy, which
// sends each job to a server. Only the fields of the policy in use are
// allocated.
type dispatchers struct {
	rng         *rng
	policy      farm.PolicyKind
	replacement bool // sampled policies: with replacement
	// liveBestOfTwo is policy JSQd with D = 2, which the engine routes
	// itself (the same draws as route).
	liveBestOfTwo bool
	n             int     // servers
	k             int     // dispatchers
	queueLen      []int32 // the engine's live queue lengths (read only)

	// RoundRobin: the next server of each dispatcher.
	nextRR []int
	// JSQ: the servers sorted by live queue length.
	live *levels
	// Board policies: the queue lengths at the last refresh.
	board []int32
	// Tally and Partitioned: per dispatcher, its servers sorted by board +
	// own sends since the refresh; SharedTally and BoardJSQ: one such for
	// all (board + everyone's sends; board only).
	boardLevels []*levels
	// TallyJSQd: per dispatcher, its sends to each server since the
	// refresh.
	tally [][]int32
	// Sampled policies: scratch for the D sampled servers; without
	// replacement and for D > dedupScan, seen[i] == gen marks server i as
	// already sampled for the current job.
	sample []int
	seen   []uint32
	gen    uint32
	// LeastWork: when each server's work runs out.
	workUntil []float64
	// JIQ: the engine's tokens.
	tokens *tokenPools
}

// newDispatchers allocates the state of c's policy.
func newDispatchers(c *config, r *rng, queueLen []int32, tokens *tokenPools) dispatchers {
	n, k := c.Servers, c.Dispatchers
	d := dispatchers{rng: r, policy: c.Policy.Kind, replacement: c.Policy.Replacement, n: n, k: k, queueLen: queueLen, tokens: tokens}
	if c.Policy.UsesBoard() {
		d.board = make([]int32, n)
	}
	d.liveBestOfTwo = c.Policy.Kind == farm.JSQd && c.Policy.D == 2
	if c.Policy.Sampled() {
		d.sample = make([]int, c.Policy.D)
		if !c.Policy.Replacement && c.Policy.D > dedupScan {
			d.seen = make([]uint32, n)
		}
	}
	switch c.Policy.Kind {
	case farm.RoundRobin:
		d.nextRR = make([]int, k)
		for r := range d.nextRR {
			d.nextRR[r] = r * n / k
		}
	case farm.JSQ:
		d.live = newLevels(0, n)
		d.live.build(queueLen) // all empty; the start's jobs raise it
	case farm.LeastWork:
		d.workUntil = make([]float64, n)
	case farm.Tally:
		d.boardLevels = make([]*levels, k)
		for r := range d.boardLevels {
			d.boardLevels[r] = newLevels(0, n)
		}
	case farm.SharedTally, farm.BoardJSQ:
		d.boardLevels = []*levels{newLevels(0, n)}
	case farm.Partitioned:
		d.boardLevels = make([]*levels, k)
		for r := range d.boardLevels {
			lo, hi := r*n/k, (r+1)*n/k
			d.boardLevels[r] = newLevels(lo, hi-lo)
		}
	case farm.TallyJSQd:
		d.tally = make([][]int32, k)
		for r := range d.tally {
			d.tally[r] = make([]int32, n)
		}
	}
	return d
}

// joined tells the policy that a job joined server i (JSQ's live counts).
func (d *dispatchers) joined(i int) {
	if d.live != nil {
		d.live.inc(i)
	}
}

// addWork tells the policy that work size joined server i at now
// (least-work's remaining work).
func (d *dispatchers) addWork(i int, size, now float64) {
	if d.workUntil != nil {
		// The builtin max (inlined, unlike math.Max) is math.Max here:
		// neither operand is ever NaN or −0.
		d.workUntil[i] = max(d.workUntil[i], now) + size
	}
}

// left tells the policy that a job left server i (JSQ's live counts).
func (d *dispatchers) left(i int) {
	if d.live != nil {
		d.live.dec(i)
	}
}

// refresh copies the queue lengths to the board (board policies) and
// resets the tallies.
func (d *dispatchers) refresh() {
	copy(d.board, d.queueLen)
	for _, l := range d.boardLevels {
		l.build(d.board)
	}
	for _, t := range d.tally {
		clear(t)
	}
}

// route chooses the server for a job at dispatcher r at time now; −1
// means blocked. random reports a JIQ job sent without a token. The
// tally policies count the send; JIQ uses up or revokes the server's
// token.
func (d *dispatchers) route(r int, now float64) (i int, random bool) {
	rng := d.rng
	switch d.policy {
	case farm.Random:
		return rng.intn(d.n), false
	case farm.RoundRobin:
		i = d.nextRR[r]
		d.nextRR[r] = i + 1
		if d.nextRR[r] == d.n {
			d.nextRR[r] = 0
		}
		return i, false
	case farm.JSQ:
		return d.live.pickMin(rng), false
	case farm.JSQd: // D = 2 is routed by the engine itself (liveBestOfTwo)
		d.draw()
		return d.best(func(i int) int32 { return d.queueLen[i] }), false
	case farm.LeastWork:
		return d.leastWork(now), false
	case farm.BoardJSQ:
		return d.boardLevels[0].pickMin(rng), false
	case farm.BoardJSQd:
		if len(d.sample) == 2 {
			a, b := d.pair()
			return d.better(a, b, d.board[a], d.board[b]), false
		}
		d.draw()
		return d.best(func(i int) int32 { return d.board[i] }), false
	case farm.Tally, farm.Partitioned:
		l := d.boardLevels[r]
		i = l.pickMin(rng)
		l.inc(i)
		return i, false
	case farm.SharedTally:
		i = d.boardLevels[0].pickMin(rng)
		d.boardLevels[0].inc(i)
		return i, false
	case farm.TallyJSQd:
		t := d.tally[r]
		if len(d.sample) == 2 {
			a, b := d.pair()
			i = d.better(a, b, d.board[a]+t[a], d.board[b]+t[b])
		} else {
			d.draw()
			i = d.best(func(i int) int32 { return d.board[i] + t[i] })
		}
		t[i]++
		return i, false
	case farm.JIQBlocking, farm.JIQQueueing:
		if i = d.tokens.take(r); i >= 0 {
			return i, false
		}
		if d.policy == farm.JIQBlocking {
			return -1, false
		}
		i = rng.intn(d.n)
		d.tokens.revoke(i)
		return i, true
	}
	panic("sim: unknown policy")
}

// dedupScan is the largest D for which sampling without replacement
// checks a draw against the earlier ones by a scan; above, by marks (a
// variable for the tests, which check that both give the same run).
var dedupScan = 16

// draw samples the policy's D servers into d.sample. Without replacement
// it redraws any server already drawn for this job (rejection: the same
// draws, whether duplicates are found by a scan or by marks).
func (d *dispatchers) draw() {
	s := d.sample
	if d.seen != nil {
		d.gen++
		if d.gen == 0 { // wrapped: forget every mark
			clear(d.seen)
			d.gen = 1
		}
		for a := range s {
			for {
				i := d.rng.intn(d.n)
				if d.seen[i] != d.gen {
					d.seen[i] = d.gen
					s[a] = i
					break
				}
			}
		}
		return
	}
	for a := range s {
		for {
			s[a] = d.rng.intn(d.n)
			if d.replacement {
				break
			}
			dup := false
			for b := range a {
				if s[b] == s[a] {
					dup = true
					break
				}
			}
			if !dup {
				break
			}
		}
	}
}

// pair is draw for D = 2, written out for the most common policy (best of
// two): the same draws, the same servers.
func (d *dispatchers) pair() (a, b int) {
	a = d.rng.intn(d.n)
	b = d.rng.intn(d.n)
	for !d.replacement && b == a {
		b = d.rng.intn(d.n)
	}
	return a, b
}

// better is best for the pair a, b of values va, vb: the same choice from
// the same draws.
func (d *dispatchers) better(a, b int, va, vb int32) int {
	if vb == va {
		if d.rng.intn(2) == 0 {
			return b
		}
		return a
	}
	return a + (b-a)*b2i(vb < va) // no branch on the comparison
}

// best returns the sampled server of least value, ties uniformly at random.
func (d *dispatchers) best(val func(int) int32) int {
	s := d.sample
	m := minPicker[int32]{best: s[0], val: val(s[0]), ties: 1}
	for _, i := range s[1:] {
		m.offer(d.rng, i, val(i))
	}
	return m.best
}

// minPicker keeps a running minimum with ties broken uniformly at random
// (reservoir sampling: the j-th equal value replaces the pick with
// probability 1/j).
type minPicker[V int32 | float64] struct {
	best int
	val  V
	ties int
}

func (m *minPicker[V]) offer(r *rng, i int, v V) {
	switch {
	case m.ties == 0 || v < m.val:
		m.best, m.val, m.ties = i, v, 1
	case v == m.val:
		m.ties++
		if r.intn(m.ties) == 0 {
			m.best = i
		}
	}
}

// leastWork returns the server with the least remaining work at now, ties
// (idle servers) uniformly at random.
func (d *dispatchers) leastWork(now float64) int {
	var m minPicker[float64]
	for i, u := range d.workUntil {
		m.offer(d.rng, i, math.Max(u-now, 0))
	}
	return m.best
}
