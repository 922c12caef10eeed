package sim

// calendar is the event calendar of the servers' next completions: an
// indexed binary min-heap of server numbers keyed by time, with the
// position of each server kept so that a server's time can be changed or
// removed in O(log N) (the pattern of container/heap's priority-queue
// example, written out for speed: no interface calls, no allocation).
type calendar struct {
	key  []float64 // next completion time of each server
	heap []int32   // servers in heap order
	pos  []int32   // position of each server in heap, −1 if idle
}

func newCalendar(n int) *calendar {
	c := &calendar{key: make([]float64, n), heap: make([]int32, 0, n), pos: make([]int32, n)}
	for i := range c.pos {
		c.pos[i] = -1
	}
	return c
}

// min returns the server with the earliest completion; ok is false when no
// server is busy.
func (c *calendar) min() (server int, t float64, ok bool) {
	if len(c.heap) == 0 {
		return 0, 0, false
	}
	s := c.heap[0]
	return int(s), c.key[s], true
}

// set schedules server i's next completion at t (inserting or moving it).
func (c *calendar) set(i int, t float64) {
	p := c.pos[i]
	if p < 0 {
		c.key[i] = t
		p = int32(len(c.heap))
		c.heap = append(c.heap, int32(i))
		c.pos[i] = p
		c.up(int(p))
		return
	}
	old := c.key[i]
	c.key[i] = t
	if t < old {
		c.up(int(p))
	} else {
		c.down(int(p))
	}
}

// remove takes server i out of the calendar (it went idle).
func (c *calendar) remove(i int) {
	p := int(c.pos[i])
	if p < 0 {
		return
	}
	last := len(c.heap) - 1
	if p != last {
		c.swap(p, last)
	}
	c.heap = c.heap[:last]
	c.pos[i] = -1
	if p != last {
		c.down(p)
		c.up(p)
	}
}

func (c *calendar) swap(a, b int) {
	h := c.heap
	h[a], h[b] = h[b], h[a]
	c.pos[h[a]] = int32(a)
	c.pos[h[b]] = int32(b)
}

func (c *calendar) up(j int) {
	h, key := c.heap, c.key
	for j > 0 {
		p := (j - 1) / 2
		if key[h[p]] <= key[h[j]] {
			break
		}
		c.swap(p, j)
		j = p
	}
}

func (c *calendar) down(j int) {
	h, key := c.heap, c.key
	n := len(h)
	for {
		l := 2*j + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && key[h[r]] < key[h[l]] {
			m = r
		}
		if key[h[j]] <= key[h[m]] {
			return
		}
		c.swap(j, m)
		j = m
	}
}
