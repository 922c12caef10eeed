package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// The Markovian fast path. With exponential sizes and FCFS or PS servers
// every busy server completes a job at rate 1 whatever its queue, so the
// farm is a continuous-time Markov chain on the queue lengths: arrivals
// come at rate λN and, from a state with B busy servers, departures at
// rate B, each from a busy server chosen uniformly. No completion
// calendar is needed, and no job size is drawn: under FCFS a job's size is
// the time from its start of service to its departure; under PS the job
// that leaves is uniform among those present (each completes at rate 1/n)
// and its size is the service it attained, the growth of the server's
// virtual time over its stay. markovLoop (markovloop.go) runs the chain.
//
// The run has the law of the general engine's (the same chain), not its
// random numbers: the two are compared in distribution by the tests.
// Policies that read only the queue lengths qualify (random, round robin,
// least loaded and best of D on live counts); boards, tokens, least-work,
// correlation snapshots and sample times need the general engine.

// markovian reports whether the fast path simulates c.
func (c *config) markovian() bool {
	if disableMarkov || c.Sizes.Kind != farm.Exponential || c.Period != 0 || c.CorrelationAge != 0 || len(c.SampleTimes) > 0 || c.Horizon > 0 || !c.Push.IsZero() {
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

// busySet is the set of busy servers with O(1) insertion, removal
// (markovLoop) and uniform choice: the busy servers in list[:len], each server's position
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
	// The first arrival and departure (markovLoop).
	e.nextArrival = e.rng.exp() * (1 / e.arrivalRate)
	e.nextDeparture = math.Inf(1)
	if b := len(e.busy.list); b > 0 {
		e.nextDeparture = e.rng.exp() / float64(b)
	}
}
