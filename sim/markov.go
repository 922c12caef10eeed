package sim

import "github.com/fluidlb/fluid/farm"

// The Markovian fast path. With exponential sizes and FCFS or PS servers
// every busy server completes a job at rate 1 whatever its queue, so the
// farm is a continuous-time Markov chain on the queue lengths: from a
// state with B busy servers the next event comes after an exponential
// time of rate λN + B, and is an arrival with probability λN/(λN + B),
// otherwise a departure from a busy server chosen uniformly. No
// completion calendar is needed, and no job size is drawn: under FCFS a
// job's size is the time from its start of service to its departure;
// under PS the job that leaves is uniform among those present (each
// completes at rate 1/n) and its size is the service it attained, the
// growth of the server's virtual time over its stay.
//
// The run has the law of the general engine's (the same chain), not its
// random numbers: the two are compared in distribution by the tests.
// Policies that read only the queue lengths qualify (random, round robin,
// least loaded and best of D on live counts); boards, tokens, least-work,
// correlation snapshots and sample times need the general engine.

// markovian reports whether the fast path simulates c.
func (c *config) markovian() bool {
	if disableMarkov || c.Sizes.Kind != farm.Exponential || c.Period != 0 || c.CorrelationAge != 0 || len(c.SampleTimes) > 0 || c.Horizon > 0 {
		return false
	}
	switch c.Policy.Kind {
	case farm.Random, farm.RoundRobin, farm.JSQ, farm.JSQd:
		return true
	}
	return false
}

// disableMarkov makes every run use the general engine (tests and
// benchmarks that compare the two).
var disableMarkov = false

// busySet is the set of busy servers with O(1) insertion, removal and
// uniform choice: the busy servers in list[:len], each server's position
// in pos (−1: idle).
type busySet struct {
	list []int32
	pos  []int32
}

func newBusySet(n int) busySet {
	b := busySet{list: make([]int32, 0, n), pos: make([]int32, n)}
	for i := range b.pos {
		b.pos[i] = -1
	}
	return b
}

func (b *busySet) add(i int) {
	b.pos[i] = int32(len(b.list))
	b.list = append(b.list, int32(i))
}

func (b *busySet) remove(i int) {
	p := b.pos[i]
	last := b.list[len(b.list)-1]
	b.list[p] = last
	b.pos[last] = p
	b.list = b.list[:len(b.list)-1]
	b.pos[i] = -1
}

// markovArrive puts job j at server i now (fast path).
func (e *engine) markovArrive(i int, j job) {
	s := &e.servers[i]
	n := int(e.queueLen[i])
	e.queueLen[i]++
	e.dispatchers.joined(i)
	if n == 0 {
		e.busy.add(i)
	}
	if e.cfg.Discipline == farm.FCFS {
		s.enqueueFCFS(n, j, e.now)
		return
	}
	// PS: an unordered array; finishTag holds the virtual time at arrival.
	if n == len(s.jobs) {
		s.growHeap()
	}
	if n == 0 {
		s.virtual = 0
	} else {
		s.virtual += (e.now - s.virtualAt) / float64(n)
	}
	s.virtualAt = e.now
	j.finishTag = s.virtual
	s.jobs[n] = j
}

// markovDepart completes a job at busy server i now (fast path).
func (e *engine) markovDepart(i int) {
	s := &e.servers[i]
	n := int(e.queueLen[i])
	var j job
	var delay float64
	if e.cfg.Discipline == farm.FCFS {
		j = s.jobs[s.head]
		delay = s.serviceStart - j.arrival
		j.size = e.now - s.serviceStart
		s.head = (s.head + 1) & (len(s.jobs) - 1)
		s.serviceStart = e.now
	} else {
		s.virtual += (e.now - s.virtualAt) / float64(n)
		s.virtualAt = e.now
		k := 0
		if n > 1 {
			k = e.rng.intn(n)
		}
		j = s.jobs[k]
		s.jobs[k] = s.jobs[n-1]
		j.size = s.virtual - j.finishTag
		delay = e.now - j.arrival - j.size
	}
	e.queueLen[i]--
	e.dispatchers.left(i)
	if n == 1 {
		e.busy.remove(i)
	}
	e.measure.departure(j, delay, e.now)
}

// markovStart puts the initial state in place (fast path).
func (e *engine) markovStart() {
	c := &e.cfg
	e.busy = newBusySet(e.n)
	for i := range e.n {
		jobs := c.Start.ServerJobs(i, e.n)
		if c.Queues != nil {
			jobs = int(c.Queues[i])
		}
		for range jobs {
			e.markovArrive(i, job{})
		}
	}
	e.arrivalRate = c.Load * float64(e.n)
}

// markovLoop simulates events until the measured jobs are done or the
// pause is reached (fast path). An arrival draws, after the event's time
// and kind, the receiving dispatcher and the policy's choices, in the
// general engine's order less the job's size.
func (e *engine) markovLoop() {
	c := &e.cfg
	lam := e.arrivalRate
	for !e.abandoned && !e.measure.finished() {
		b := float64(len(e.busy.list))
		rate := lam + b
		e.now += e.rng.exp() / rate
		e.events++
		u := e.rng.float64() * rate
		if u >= lam {
			k := int(u - lam)
			if k >= len(e.busy.list) {
				k = len(e.busy.list) - 1
			}
			e.markovDepart(int(e.busy.list[k]))
			continue
		}
		id := e.arrivals
		e.arrivals++
		if id == e.measure.warmupJobs {
			e.measure.startMeasuring(e.now)
		}
		if id&0xffff == 0 && id > 0 {
			if e.progress != nil {
				e.progress(0x10000)
			}
			if c.Stopped() {
				e.abandoned = true
			}
		}
		r := 0
		if k := c.Dispatchers; k > 1 {
			if e.cumAlpha == nil {
				r = e.rng.intn(k)
			} else {
				r = pick(e.cumAlpha, e.rng.float64())
			}
		}
		var i int
		if d := &e.dispatchers; d.liveBestOfTwo {
			a, b := d.pair()
			i = d.better(a, b, e.queueLen[a], e.queueLen[b])
		} else {
			i, _ = d.route(r, e.now)
		}
		var flags uint8
		if e.measure.observed(id) {
			flags = e.measure.arrival(i, false) | flagObserved
		}
		e.markovArrive(i, job{arrival: e.now, flags: flags})
	}
}
