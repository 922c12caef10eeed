package sim

// levels keeps a group of servers sorted by an integer value (a queue
// length, or board + tally) so that the minimum, a uniformly random server
// at the minimum, and a change of one server's value by ±1 all cost O(1).
//
// order lists the servers by value; start[v] is the first position of
// value v (start[v+1] − start[v] servers have value v). Raising server i
// from v to v+1 swaps it with the last server of value v and moves the
// boundary start[v+1] down by one; lowering is the mirror image. This is
// what lets the tally policy pick min(board + tally) at N = 1,600
// without scanning.
type levels struct {
	base  int     // first server of the group
	order []int32 // local server indices sorted by value
	pos   []int32 // position of each local server in order
	val   []int32 // value of each local server
	start []int32 // start[v]: first position with value ≥ v; len ≥ max+2
	min   int     // smallest value present
}

func newLevels(base, n int) *levels {
	return &levels{base: base, order: make([]int32, n), pos: make([]int32, n), val: make([]int32, n), start: make([]int32, 0, 64)}
}

// build sorts the group by values (one per server of the group, indexed
// from base) with a counting sort; O(n + max value).
func (l *levels) build(values []int32) {
	n := len(l.order)
	vals := values[l.base : l.base+n]
	top := int32(0)
	for _, v := range vals {
		top = max(top, v)
	}
	l.start = l.start[:0]
	for range int(top) + 2 {
		l.start = append(l.start, 0)
	}
	for _, v := range vals {
		l.start[v+1]++
	}
	for v := 1; v < len(l.start); v++ {
		l.start[v] += l.start[v-1]
	}
	// Place servers (stable: ascending server index within a value).
	for i, v := range vals {
		p := l.start[v]
		l.order[p] = int32(i)
		l.pos[i] = p
		l.start[v]++
	}
	// Restore start[v] to the first position of value v.
	for v := len(l.start) - 1; v > 0; v-- {
		l.start[v] = l.start[v-1]
	}
	l.start[0] = 0
	copy(l.val, vals)
	l.min = 0
	for l.min < int(top) && l.start[l.min] == l.start[l.min+1] {
		l.min++
	}
}

// pickMin returns a uniformly random server (global index) of the lowest
// value.
func (l *levels) pickMin(r *rng) int {
	a, b := l.start[l.min], l.start[l.min+1]
	return l.base + int(l.order[a+int32(r.intn(int(b-a)))])
}

// inc raises the value of server i (global index) by one.
func (l *levels) inc(i int) {
	li := int32(i - l.base)
	v := l.val[li]
	if int(v)+2 >= len(l.start) {
		l.start = append(l.start, int32(len(l.order)))
	}
	last := l.start[v+1] - 1
	p := l.pos[li]
	j := l.order[last]
	l.order[p], l.order[last] = j, li
	l.pos[j], l.pos[li] = p, last
	l.start[v+1] = last
	l.val[li] = v + 1
	if int(v) == l.min && l.start[v] == l.start[v+1] {
		l.min++
	}
}

// dec lowers the value of server i (global index), which must be > 0, by
// one.
func (l *levels) dec(i int) {
	li := int32(i - l.base)
	v := l.val[li]
	first := l.start[v]
	p := l.pos[li]
	j := l.order[first]
	l.order[p], l.order[first] = j, li
	l.pos[j], l.pos[li] = p, first
	l.start[v] = first + 1
	l.val[li] = v - 1
	if int(v)-1 < l.min {
		l.min = int(v) - 1
	}
}
