package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The calendar against a linear scan under random operations.
func TestCalendar(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const n = 50
	c := newCalendar(n, true)
	ref := make([]float64, n)
	for i := range ref {
		ref[i] = math.Inf(1)
	}
	for range 20000 {
		i := rnd.IntN(n)
		if rnd.IntN(3) == 0 {
			c.remove(i)
			ref[i] = math.Inf(1)
		} else {
			v := rnd.Float64()
			c.set(i, v)
			ref[i] = v
		}
		best, bv := -1, math.Inf(1)
		for j, v := range ref {
			if v < bv {
				best, bv = j, v
			}
		}
		if s, v := c.min(); s != best || v != bv {
			t.Fatalf("calendar min (%d, %v), scan (%d, %v)", s, v, best, bv)
		}
	}
}

// The FCFS calendar (not indexed: push, replaceMin, popMin) against a
// linear scan, and against the indexed calendar under the same
// operations: the same heap slot by slot, also with ties (times on a
// grid of 8 values), so that the engine's event order does not depend on
// which one it uses.
func TestCalendarFCFS(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const n = 50
	for _, grid := range []bool{false, true} {
		c, ix := newCalendar(n, false), newCalendar(n, true)
		busy := make([]bool, n)
		now := 0.0
		for range 20000 {
			draw := func() float64 {
				if grid {
					return now + float64(1+rnd.IntN(8))
				}
				return now + rnd.Float64()
			}
			if i := rnd.IntN(n); !busy[i] && rnd.IntN(2) == 0 {
				v := draw()
				c.push(i, v)
				ix.set(i, v)
				busy[i] = true
			} else if s, v := c.min(); s >= 0 {
				now = v
				if rnd.IntN(3) == 0 {
					c.popMin()
					ix.remove(s)
					busy[s] = false
				} else {
					v := draw()
					c.replaceMin(v)
					ix.set(s, v)
				}
			}
			if !slices.Equal(c.heap, ix.heap) {
				t.Fatalf("grid %v: heaps differ: %v vs %v", grid, c.heap, ix.heap)
			}
			if grid {
				continue
			}
			best, bv := -1, math.Inf(1)
			for j, e := range c.heap {
				if e.t < bv {
					best, bv = j, e.t
				}
			}
			if s, v := c.min(); best >= 0 && (s != int(c.heap[best].s) || v != bv) {
				t.Fatalf("calendar min (%d, %v), scan (%d, %v)", s, v, c.heap[best].s, bv)
			}
		}
	}
}

// The level buckets against brute force: the minimum, membership of the
// picked server, and uniformity of the pick among the minimisers.
func TestLevels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	r := newRNG(5, 0)
	const n = 40
	for _, base := range []int{0, 7} {
		vals := make([]int32, base+n)
		for i := range n {
			vals[base+i] = int32(rnd.IntN(4))
		}
		l := newLevels(base, n)
		l.build(vals)
		for step := range 20000 {
			i := base + rnd.IntN(n)
			if rnd.IntN(2) == 0 || vals[i] == 0 {
				l.inc(i)
				vals[i]++
			} else {
				l.dec(i)
				vals[i]--
			}
			if step%1000 == 0 {
				l.build(vals)
			}
			lo := int32(math.MaxInt32)
			for _, v := range vals[base:] {
				lo = min(lo, v)
			}
			if int32(l.min) != lo {
				t.Fatalf("step %d: min %d, want %d", step, l.min, lo)
			}
			if p := l.pickMin(r); vals[p] != lo || p < base || p >= base+n {
				t.Fatalf("step %d: picked %d with value %d, min %d", step, p, vals[p], lo)
			}
			for j := range n {
				if l.val[j] != vals[base+j] || l.order[l.pos[j]] != int32(j) {
					t.Fatalf("step %d: server %d inconsistent", step, j)
				}
			}
		}
	}
	// Uniform among ties: 4 of 8 servers at the minimum, 40,000 picks;
	// each count is Binomial(40000, 1/4): sd 87, so ±500 is > 5 sd.
	vals := []int32{0, 1, 0, 2, 0, 1, 0, 3}
	l := newLevels(0, len(vals))
	l.build(vals)
	counts := map[int]int{}
	for range 40000 {
		counts[l.pickMin(r)]++
	}
	for _, i := range []int{0, 2, 4, 6} {
		if math.Abs(float64(counts[i])-10000) > 500 {
			t.Errorf("tie pick counts %v", counts)
		}
	}
}

// The FCFS ring keeps arrival order as it grows and wraps; the PS heap
// completes the jobs present at time 0 in order of size, at the times of
// processor sharing: the k-th smallest x_(k) leaves at
// t_k = t_(k−1) + (x_(k) − x_(k−1))·(n − k + 1).
func TestServerQueues(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	s := server{jobs: make([]job, initialQueue)}
	var n int
	var arrived, left int64
	for step := range 20000 {
		if n == 0 || rnd.IntN(5) < 3-step/10000*2 { // grow first, then drain
			s.enqueueFCFS(n, job{arrival: float64(arrived), size: 1}, float64(step))
			n++
			arrived++
			continue
		}
		j, _, _ := s.dequeueFCFS(n, float64(step))
		n--
		if j.arrival != float64(left) {
			t.Fatalf("FCFS step %d: job %v left, want %d", step, j.arrival, left)
		}
		left++
	}

	const jobs = 50
	ps := server{jobs: make([]job, initialQueue)}
	sizes := make([]float64, jobs)
	var next float64
	for k := range jobs {
		sizes[k] = rnd.ExpFloat64()
		next = ps.enqueuePS(k, job{size: sizes[k]}, 0)
	}
	slices.Sort(sizes)
	var now, prev float64
	for k := range jobs {
		want := now + (sizes[k]-prev)*float64(jobs-k)
		if math.Abs(next-want) > 1e-9*want {
			t.Fatalf("PS completion %d at %v, want %v", k, next, want)
		}
		now, prev = next, sizes[k]
		j, wait, nx := ps.dequeuePS(jobs-k, now)
		if j.size != sizes[k] || math.Abs(wait-(now-j.size)) > 1e-12*now {
			t.Fatalf("PS completion %d: size %v wait %v, want size %v", k, j.size, wait, sizes[k])
		}
		next = nx
	}
}
