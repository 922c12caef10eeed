package sim

import "math"

// calendar is the event calendar of the servers' next completions: a
// binary min-heap of servers keyed by time; indexed (under processor
// sharing), it keeps the position of each server so that a server's time
// can be changed or removed in O(log N) (the pattern of container/heap's
// priority-queue example, written out for speed: no interface calls, no
// allocation).
//
// Each heap slot holds the time beside the server, so that a sift reads
// one array; a sift moves a hole and writes the moving entry once, at its
// place. This gives exactly the heap that swapping entries would — the
// same comparisons in the same order — so the order of simultaneous
// completions, and with it every run, is what it was with swaps.
type calendar struct {
	// heap holds the busy servers in heap order, and one more entry
	// after them (heap[:len(heap)+1]), a sentinel at +Inf, so that a
	// sift compares two children without asking whether the right one
	// exists.
	heap []calEntry
	// pos is the position of each server in heap, −1 if idle; nil when
	// the calendar is not indexed: then only push, replaceMin and popMin
	// may change it (FCFS servers, whose completion time changes only
	// when they complete a job: the earliest), and a sift writes one
	// array, not two.
	pos []int32
}

// calEntry is one busy server and the time of its next completion.
type calEntry struct {
	t float64
	s int32
}

var sentinel = calEntry{t: math.Inf(1), s: -1}

// newCalendar returns the empty calendar of n servers, indexed (set and
// remove may be used) or not.
func newCalendar(n int, indexed bool) *calendar {
	c := &calendar{heap: make([]calEntry, 1, n+1)}
	c.heap[0] = sentinel
	c.heap = c.heap[:0]
	if indexed {
		c.pos = make([]int32, n)
		for i := range c.pos {
			c.pos[i] = -1
		}
	}
	return c
}

// min returns the server with the earliest completion and its time;
// when no server is busy, −1 and +Inf (the sentinel).
func (c *calendar) min() (server int, t float64) {
	e := c.heap[:1][0]
	return int(e.s), e.t
}

// push schedules the completion of server i, idle until now, at t.
func (c *calendar) push(i int, t float64) {
	n := len(c.heap)
	c.heap = c.heap[:n+1]
	c.heap[:n+2][n+1] = sentinel
	c.up(n, calEntry{t, int32(i)})
}

// replaceMin moves the earliest completion's server to t ≥ its time.
func (c *calendar) replaceMin(t float64) {
	c.down(0, calEntry{t, c.heap[0].s})
}

// popMin takes the earliest completion's server out (it went idle).
func (c *calendar) popMin() {
	if c.pos != nil {
		c.remove(int(c.heap[0].s))
		return
	}
	last := len(c.heap) - 1
	e := c.heap[last]
	c.heap[last] = sentinel
	c.heap = c.heap[:last]
	if last > 0 {
		c.down(0, e)
	}
}

// set schedules server i's next completion at t (inserting or moving it);
// the calendar must be indexed.
func (c *calendar) set(i int, t float64) {
	p := int(c.pos[i])
	if p < 0 {
		c.push(i, t)
		return
	}
	if t < c.heap[p].t {
		c.up(p, calEntry{t, int32(i)})
	} else {
		c.down(p, calEntry{t, int32(i)})
	}
}

// remove takes server i out of the calendar (it went idle); the
// calendar must be indexed.
func (c *calendar) remove(i int) {
	p := int(c.pos[i])
	if p < 0 {
		return
	}
	c.pos[i] = -1
	last := len(c.heap) - 1
	e := c.heap[last]
	c.heap[last] = sentinel
	c.heap = c.heap[:last]
	if p != last {
		c.down(p, e)
		c.up(int(c.pos[e.s]), e)
	}
}

// up places e, which goes at slot j or above, moving the entries above j
// that are later than e down by one level.
func (c *calendar) up(j int, e calEntry) {
	h := c.heap
	for j > 0 {
		p := (j - 1) / 2
		if h[p].t <= e.t {
			break
		}
		h[j] = h[p]
		if c.pos != nil {
			c.pos[h[j].s] = int32(j)
		}
		j = p
	}
	h[j] = e
	if c.pos != nil {
		c.pos[e.s] = int32(j)
	}
}

// down places e, which goes at slot j or below, moving the earlier of
// the children up while it is earlier than e. The earlier child is
// chosen by arithmetic (b2i), not a branch: which child is earlier is a
// coin toss the processor would mispredict at every other level.
func (c *calendar) down(j int, e calEntry) {
	n := len(c.heap)
	h := c.heap[:n+1] // with the sentinel
	for {
		l := 2*j + 1
		if l >= n {
			break
		}
		m := l + b2i(h[l+1].t < h[l].t)
		if e.t <= h[m].t {
			break
		}
		h[j] = h[m]
		if c.pos != nil {
			c.pos[h[j].s] = int32(j)
		}
		j = m
	}
	h[j] = e
	if c.pos != nil {
		c.pos[e.s] = int32(j)
	}
}

// b2i is 1 for true, 0 for false (a SETcc instruction, no branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
