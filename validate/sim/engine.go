package sim

import (
	"math"

	"github.com/fluidlb/fluid/internal/model"
)

// job is one job in a server's queue.
type job struct {
	arr  float64 // arrival time
	size float64
	tag  float64 // PS: finish tag in the server's virtual time
	id   int64   // arrival number; −1 for the jobs of the start
}

// server is one server's queue: a ring buffer in arrival order (FCFS) or
// a min-heap on finish tags (PS) in q[:n].
type server struct {
	q     []job
	head  int
	start float64 // FCFS: when the head job entered service
	v     float64 // PS: virtual time (service received by every job present)
	last  float64 // PS: when v was last advanced
}

// batches is the number of batch means of a single replication.
const batches = 10

// acc accumulates per-job measurements of one batch.
type acc struct {
	all, served, blocked, random, waited float64
	sojourn, slowdown, wait              float64
}

// engine simulates one replication.
type engine struct {
	c       Config
	r       *rng
	n       int
	now     float64
	invRate float64 // mean interarrival time 1/(λN)

	srv       []server
	cnt       []int32 // jobs at each server
	cal       *calendar
	busyUntil []float64 // when each server's work runs out (least-work)

	cumAlpha []float64 // nil: equal shares
	rr       []int
	board    []int32
	live     *levels   // JSQ: live counts
	lv       []*levels // board (+ tally) levels: one per dispatcher, or one shared
	tally    [][]int32 // TallyJSQd: own sends since the refresh
	sample   []int     // scratch for sampled policies

	// JIQ tokens.
	tokens  [][]int32
	tokAt   []int32 // dispatcher holding server i's token, −1 if none
	tokIdx  []int32
	cumBeta []float64

	// Sizes.
	h2p, h2g, h2s  float64
	parXm, parNegA float64

	// Events.
	nextArr, nextRefresh, nextExch, nextSnap float64
	exchRate                                 float64

	// Measurement.
	nextID     int64
	w, m       int64
	done       int64
	warmTime   float64 // arrival time of the first measured job (+Inf before)
	acc        [batches]acc
	events     int64
	boards     []float64 // board mean at every refresh (t = 0 included)
	boardTimes []float64
	snap       []int32
	samples    []Sample
	nextSample float64
	corrSum    float64
	corrN      int
	progress   func(int64)
}

func newEngine(c Config, rep int) *engine {
	n := c.Servers
	e := &engine{
		c: c, r: newRNG(c.Seed, rep), n: n,
		invRate: 1 / (c.Load * float64(n)),
		srv:     make([]server, n), cnt: make([]int32, n), cal: newCalendar(n),
		w: int64(c.Warmup), m: int64(c.Jobs), warmTime: math.Inf(1),
		nextRefresh: math.Inf(1), nextExch: math.Inf(1), nextSnap: math.Inf(1), nextSample: math.Inf(1),
		progress: c.Progress,
	}
	for i := range e.srv {
		e.srv[i].q = make([]job, 4)
	}
	k := c.Dispatchers
	if !equalShares(c.Alpha) {
		e.cumAlpha = cumulative(c.Alpha)
	}
	switch c.Sizes.Kind {
	case H2:
		e.h2p, e.h2g, e.h2s = model.H2Params(c.Sizes.SCV)
	case Pareto:
		e.parXm, e.parNegA = (c.Sizes.Shape-1)/c.Sizes.Shape, -1/c.Sizes.Shape
	}
	if c.Policy.Kind == LeastWork {
		e.busyUntil = make([]float64, n)
	}
	if c.Period > 0 {
		e.board = make([]int32, n)
	}
	switch c.Policy.Kind {
	case RoundRobin:
		e.rr = make([]int, k)
		for d := range e.rr {
			e.rr[d] = d * n / k
		}
	case JSQ:
		e.live = newLevels(0, n)
		e.live.build(e.cnt) // all empty; the start's jobs raise it
	case Tally:
		e.lv = make([]*levels, k)
		for d := range e.lv {
			e.lv[d] = newLevels(0, n)
		}
	case SharedTally, BoardJSQ:
		e.lv = []*levels{newLevels(0, n)}
	case Partitioned:
		e.lv = make([]*levels, k)
		for d := range e.lv {
			lo, hi := d*n/k, (d+1)*n/k
			e.lv[d] = newLevels(lo, hi-lo)
		}
	case TallyJSQd:
		e.tally = make([][]int32, k)
		for d := range e.tally {
			e.tally[d] = make([]int32, n)
		}
	case JIQBlocking, JIQQueueing:
		e.tokens = make([][]int32, k)
		for d := range e.tokens {
			e.tokens[d] = make([]int32, 0, n)
		}
		e.tokAt = make([]int32, n)
		e.tokIdx = make([]int32, n)
		for i := range e.tokAt {
			e.tokAt[i] = -1
		}
		e.cumBeta = cumulative(c.Beta)
		e.exchRate = c.Exchange * float64(n)
	}
	if c.Policy.sampled() {
		e.sample = make([]int, c.Policy.D)
	}
	return e
}

func equalShares(a []float64) bool {
	for _, x := range a {
		if x != a[0] {
			return false
		}
	}
	return true
}

func cumulative(a []float64) []float64 {
	c := make([]float64, len(a))
	var s float64
	for i, x := range a {
		s += x
		c[i] = s
	}
	c[len(c)-1] = math.Inf(1) // rounding can never pick past the end
	return c
}

func pick(cum []float64, u float64) int {
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	return len(cum) - 1
}

func (e *engine) size() float64 {
	switch e.c.Sizes.Kind {
	case Deterministic:
		return 1
	case H2:
		if e.r.float64() < e.h2p {
			return e.h2g * e.r.exp()
		}
		return e.h2s * e.r.exp()
	case Pareto:
		return e.parXm * math.Pow(1-e.r.float64(), e.parNegA)
	}
	return e.r.exp()
}

// run simulates until the measured jobs are done.
func (e *engine) run() {
	c := &e.c
	// The start: its jobs arrive at time 0, unmeasured.
	for i := range e.n {
		for range c.Start.jobs(i, e.n) {
			e.arrive(i, job{size: e.size(), id: -1})
		}
	}
	if e.tokens != nil {
		for i := range e.n {
			if e.cnt[i] == 0 {
				e.giveToken(i)
			}
		}
		if e.exchRate > 0 {
			e.nextExch = e.r.exp() / e.exchRate
		}
	}
	if c.Period > 0 {
		e.refresh()
		e.nextRefresh = c.Period
	}
	e.nextArr = e.r.exp() * e.invRate
	if len(c.SampleTimes) > 0 {
		e.samples = make([]Sample, 0, len(c.SampleTimes))
		e.nextSample = c.SampleTimes[0]
	}
	const (
		evArr = iota
		evDep
		evRefresh
		evExch
		evSnap
		evSample
	)
	for e.done < e.m || len(e.samples) < len(c.SampleTimes) {
		t, kind := e.nextArr, evArr
		srv, ts, busy := e.cal.min()
		if busy && ts < t {
			t, kind = ts, evDep
		}
		if e.nextRefresh < t {
			t, kind = e.nextRefresh, evRefresh
		}
		if e.nextExch < t {
			t, kind = e.nextExch, evExch
		}
		if e.nextSnap < t {
			t, kind = e.nextSnap, evSnap
		}
		if e.nextSample < t {
			t, kind = e.nextSample, evSample
		}
		e.now = t
		e.events++
		switch kind {
		case evArr:
			e.arrival()
		case evDep:
			e.departure(srv)
		case evRefresh:
			e.refresh()
			e.nextRefresh = t + c.Period
		case evExch:
			e.exchange()
			e.nextExch = t + e.r.exp()/e.exchRate
		case evSnap:
			e.snapshot()
			e.nextSnap = t + c.CorrelationAge
		case evSample:
			e.events--
			e.record()
			if n := len(e.samples); n < len(c.SampleTimes) {
				e.nextSample = c.SampleTimes[n]
			} else {
				e.nextSample = math.Inf(1)
			}
		}
	}
}

// arrival handles an external arrival.
func (e *engine) arrival() {
	id := e.nextID
	e.nextID++
	e.nextArr = e.now + e.r.exp()*e.invRate
	if id == e.w {
		e.warmTime = e.now
		if e.c.CorrelationAge > 0 {
			e.snap = append(e.snap[:0], e.cnt...)
			e.nextSnap = e.now + e.c.CorrelationAge
		}
	}
	if e.progress != nil && id&0xffff == 0 && id > 0 {
		e.progress(0x10000)
	}
	d := 0
	if k := e.c.Dispatchers; k > 1 {
		if e.cumAlpha == nil {
			d = e.r.intn(k)
		} else {
			d = pick(e.cumAlpha, e.r.float64())
		}
	}
	sz := e.size()
	i, random := e.dispatch(d)
	measured := id >= e.w && id < e.w+e.m
	if measured {
		a := &e.acc[(id-e.w)*batches/e.m]
		a.all++
		if random {
			a.random++
		}
		if i < 0 {
			a.blocked++
			e.done++
			return
		}
		if e.cnt[i] > 0 {
			a.waited++
		}
	}
	if i < 0 {
		return
	}
	e.arrive(i, job{arr: e.now, size: sz, id: id})
}

// arrive puts job j at server i now.
func (e *engine) arrive(i int, j job) {
	s := &e.srv[i]
	n := int(e.cnt[i])
	e.cnt[i]++
	if e.live != nil {
		e.live.inc(i)
	}
	if e.busyUntil != nil {
		e.busyUntil[i] = math.Max(e.busyUntil[i], e.now) + j.size
	}
	if n == len(s.q) {
		s.grow(e.c.Discipline == FCFS)
	}
	if e.c.Discipline == FCFS {
		s.q[(s.head+n)&(len(s.q)-1)] = j
		if n == 0 {
			s.start = e.now
			e.cal.set(i, e.now+j.size)
		}
		return
	}
	// PS: advance the virtual time, tag the job with its finish tag.
	if n == 0 {
		s.v = 0
	} else {
		s.v += (e.now - s.last) / float64(n)
	}
	s.last = e.now
	j.tag = s.v + j.size
	s.push(n, j)
	e.cal.set(i, e.now+(s.q[0].tag-s.v)*float64(n+1))
}

// departure completes the next job at server i.
func (e *engine) departure(i int) {
	s := &e.srv[i]
	n := int(e.cnt[i])
	var j job
	var wait float64
	if e.c.Discipline == FCFS {
		j = s.q[s.head]
		wait = s.start - j.arr
		s.head = (s.head + 1) & (len(s.q) - 1)
		if n > 1 {
			s.start = e.now
			e.cal.set(i, e.now+s.q[s.head].size)
		} else {
			e.cal.remove(i)
		}
	} else {
		j = s.pop(n)
		s.v = j.tag
		s.last = e.now
		if n > 1 {
			e.cal.set(i, e.now+(s.q[0].tag-s.v)*float64(n-1))
		} else {
			e.cal.remove(i)
		}
		wait = e.now - j.arr - j.size
	}
	e.cnt[i]--
	if e.live != nil {
		e.live.dec(i)
	}
	if n == 1 && e.tokens != nil {
		e.giveToken(i)
	}
	if j.id >= e.w && j.id < e.w+e.m {
		a := &e.acc[(j.id-e.w)*batches/e.m]
		soj := e.now - j.arr
		a.served++
		a.sojourn += soj
		a.slowdown += soj / j.size
		a.wait += wait
		e.done++
	}
}

// grow doubles the queue's storage (amortised: a queue reaches its
// longest length once).
func (s *server) grow(ring bool) {
	n := len(s.q)
	q := make([]job, 2*n)
	if ring {
		for k := range n {
			q[k] = s.q[(s.head+k)&(n-1)]
		}
		s.head = 0
	} else {
		copy(q, s.q)
	}
	s.q = q
}

// push adds j to the PS heap q[:n].
func (s *server) push(n int, j job) {
	q := s.q
	q[n] = j
	for k := n; k > 0; {
		p := (k - 1) / 2
		if q[p].tag <= q[k].tag {
			break
		}
		q[p], q[k] = q[k], q[p]
		k = p
	}
}

// pop removes and returns the smallest tag of the PS heap q[:n].
func (s *server) pop(n int) job {
	q := s.q
	top := q[0]
	n--
	q[0] = q[n]
	for k := 0; ; {
		l := 2*k + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].tag < q[l].tag {
			m = r
		}
		if q[k].tag <= q[m].tag {
			break
		}
		q[k], q[m] = q[m], q[k]
		k = m
	}
	return top
}

// dispatch chooses the server for a job at dispatcher d; −1 means blocked.
// random reports a JIQ job sent without a token.
func (e *engine) dispatch(d int) (i int, random bool) {
	r := e.r
	switch e.c.Policy.Kind {
	case Random:
		return r.intn(e.n), false
	case RoundRobin:
		i = e.rr[d]
		e.rr[d] = i + 1
		if e.rr[d] == e.n {
			e.rr[d] = 0
		}
		return i, false
	case JSQ:
		return e.live.pickMin(r), false
	case JSQd:
		e.draw()
		return e.best(func(i int) int32 { return e.cnt[i] }), false
	case LeastWork:
		return e.leastWork(), false
	case BoardJSQ:
		return e.lv[0].pickMin(r), false
	case BoardJSQd:
		e.draw()
		return e.best(func(i int) int32 { return e.board[i] }), false
	case Tally, Partitioned:
		l := e.lv[d]
		i = l.pickMin(r)
		l.inc(i)
		return i, false
	case SharedTally:
		i = e.lv[0].pickMin(r)
		e.lv[0].inc(i)
		return i, false
	case TallyJSQd:
		e.draw()
		t := e.tally[d]
		i = e.best(func(i int) int32 { return e.board[i] + t[i] })
		t[i]++
		return i, false
	case JIQBlocking, JIQQueueing:
		if i = e.takeToken(d); i >= 0 {
			return i, false
		}
		if e.c.Policy.Kind == JIQBlocking {
			return -1, false
		}
		i = r.intn(e.n)
		if e.tokAt[i] >= 0 {
			e.removeToken(i)
		}
		return i, true
	}
	panic("sim: unknown policy")
}

// draw samples the policy's D servers into e.sample.
func (e *engine) draw() {
	s := e.sample
	for a := range s {
		for {
			s[a] = e.r.intn(e.n)
			if e.c.Policy.Replacement {
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

// best returns the sampled server of least value, ties uniformly at random.
func (e *engine) best(val func(int) int32) int {
	s := e.sample
	m := minPicker[int32]{best: s[0], val: val(s[0]), ties: 1}
	for _, i := range s[1:] {
		m.offer(e.r, i, val(i))
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

// leastWork returns the server with the least remaining work, ties (idle
// servers) uniformly at random.
func (e *engine) leastWork() int {
	var m minPicker[float64]
	for i, u := range e.busyUntil {
		m.offer(e.r, i, math.Max(u-e.now, 0))
	}
	return m.best
}

// refresh copies the queue lengths to the board and resets the tallies.
func (e *engine) refresh() {
	copy(e.board, e.cnt)
	var sum int64
	for _, b := range e.board {
		sum += int64(b)
	}
	e.boards = append(e.boards, float64(sum)/float64(e.n))
	e.boardTimes = append(e.boardTimes, e.now)
	for _, l := range e.lv {
		l.build(e.board)
	}
	for _, t := range e.tally {
		clear(t)
	}
}

// OccupancyLevels is the number of queue lengths 0..OccupancyLevels−1
// whose fractions a Sample records.
const OccupancyLevels = 8

// Sample is the state at one of Config.SampleTimes.
type Sample struct {
	T float64
	// Busy is the fraction of servers with at least one job.
	Busy float64
	// Occupancy[i] is the fraction of servers with exactly i jobs.
	Occupancy [OccupancyLevels]float64
	// Tokens[r] is the number of tokens at dispatcher r divided by N (JIQ).
	Tokens []float64
}

// record appends the state now to the samples (allocates: sampling is not
// per event).
func (e *engine) record() {
	s := Sample{T: e.now}
	inv := 1 / float64(e.n)
	for _, q := range e.cnt {
		if q > 0 {
			s.Busy += inv
		}
		if q < OccupancyLevels {
			s.Occupancy[q] += inv
		}
	}
	for _, t := range e.tokens {
		s.Tokens = append(s.Tokens, float64(len(t))*inv)
	}
	e.samples = append(e.samples, s)
}

// snapshot records the correlation between the queue lengths now and at
// the last snapshot, and takes a new one.
func (e *engine) snapshot() {
	if c, ok := correlation(e.snap, e.cnt); ok {
		e.corrSum += c
		e.corrN++
	}
	copy(e.snap, e.cnt)
}

func correlation(a, b []int32) (float64, bool) {
	n := float64(len(a))
	var sa, sb, saa, sbb, sab float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		sa += x
		sb += y
		saa += x * x
		sbb += y * y
		sab += x * y
	}
	va, vb := saa-sa*sa/n, sbb-sb*sb/n
	if va <= 0 || vb <= 0 {
		return 0, false
	}
	return (sab - sa*sb/n) / math.Sqrt(va*vb), true
}

// giveToken sends idle server i's token to a dispatcher drawn by β.
func (e *engine) giveToken(i int) {
	d := 0
	if len(e.cumBeta) > 1 {
		d = pick(e.cumBeta, e.r.float64())
	}
	e.placeToken(i, d)
}

// placeToken puts server i's token at dispatcher d.
func (e *engine) placeToken(i, d int) {
	e.tokAt[i] = int32(d)
	e.tokIdx[i] = int32(len(e.tokens[d]))
	e.tokens[d] = append(e.tokens[d], int32(i))
}

// takeToken uses a uniformly random token of dispatcher d; −1 if none.
func (e *engine) takeToken(d int) int {
	t := e.tokens[d]
	if len(t) == 0 {
		return -1
	}
	i := int(t[e.r.intn(len(t))])
	e.removeToken(i)
	return i
}

func (e *engine) removeToken(i int) {
	d, p := e.tokAt[i], e.tokIdx[i]
	t := e.tokens[d]
	last := t[len(t)-1]
	t[p] = last
	e.tokIdx[last] = p
	e.tokens[d] = t[:len(t)-1]
	e.tokAt[i] = -1
}

// exchange is one event of the uniformised token exchange: at total rate
// νN a uniformly random server is picked; if it holds a token, the token
// moves to a uniformly random dispatcher. Every token thus moves at rate ν
// exactly (thinning), whatever the number of tokens.
func (e *engine) exchange() {
	i := e.r.intn(e.n)
	if e.tokAt[i] < 0 {
		return
	}
	d := e.r.intn(e.c.Dispatchers)
	if int32(d) == e.tokAt[i] {
		return
	}
	e.removeToken(i)
	e.placeToken(i, d)
}
