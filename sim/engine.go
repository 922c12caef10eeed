package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// engine simulates one replication: the event loop. It owns the clock,
// the servers with their queue lengths and completion calendar, the timers
// of the other events and the replication's random stream, and hands each
// event to the sub-states it concerns: the job sizes, the dispatchers, the
// JIQ tokens and the measurement.
//
// Every random number comes from rng, so the order of the draws is the
// order of the events and, within an event, the order written here and in
// the sub-states' methods; changing it changes every result.
type engine struct {
	cfg      config
	repIndex int // the replication's number
	rng      *rng
	n        int     // servers
	now      float64 // simulated time

	servers  []server
	queueLen []int32   // jobs at each server
	cal      *calendar // the busy servers' next completions

	sizes       sizeLaw
	dispatchers dispatchers
	tokens      tokenPools // JIQ only
	measure     measurement

	// The arrival stream: rate λN, split over the dispatchers by α.
	meanInterarrival float64   // 1/(λN)
	cumAlpha         []float64 // cumulative shares α (see cumulative); nil: equal shares

	// Timers: the time of the next event of each kind other than a
	// completion, +Inf if none is due.
	nextArrival, nextRefresh, nextExchange, nextSnapshot, nextSample float64
	// The earliest of the timers other than nextArrival and its kind
	// (timersMoved), so that an event compares three times, not six.
	timerAt   float64
	timerKind eventKind

	exchangeRate float64 // νN: the rate of the uniformised token-exchange events

	// changed reports whether a job arrived or left since the last board
	// refresh: a refresh without a change repeats the last one without
	// reading the queues (the same board, mean and tallies).
	changed bool

	arrivals int64       // jobs arrived so far: the arrival number of the next job
	events   int64       // events simulated (sample times are not events)
	progress func(int64) // told of every 65,536 arrivals (nil: nobody)
	// abandoned is set when the run's Context was cancelled during the
	// run, which then ends at once.
	abandoned bool
	// ended is set when the run reached its Horizon or stopped at its
	// tip: there is nothing more to simulate.
	ended bool
	until float64 // the end of a Horizon run (+Inf otherwise)

	// The Markovian fast path (markov.go): the busy servers and λN.
	markov        bool
	busy          busySet
	arrivalRate   float64
	nextDeparture float64
}

// newEngine prepares replication rep of the normalized configuration c.
func newEngine(c config, rep int) *engine {
	n := c.Servers
	inf := math.Inf(1)
	e := &engine{
		cfg: c, repIndex: rep, rng: newRNG(c.Seed, rep), n: n,
		servers: make([]server, n), queueLen: make([]int32, n), cal: newCalendar(n, c.Discipline != farm.FCFS),
		sizes:       newSizeLaw(c.Sizes),
		nextRefresh: inf, nextExchange: inf, nextSnapshot: inf, nextSample: inf,
		meanInterarrival: 1 / (c.Load * float64(n)),
		changed:          true,
	}
	if !equalShares(c.Alpha) {
		e.cumAlpha = cumulative(c.Alpha)
	}
	if c.Policy.JIQ() {
		e.tokens = newTokenPools(&e.cfg, e.rng)
		e.exchangeRate = c.Exchange * float64(n)
	}
	e.dispatchers = newDispatchers(&e.cfg, e.rng, e.queueLen, &e.tokens)
	e.measure = newMeasurement(&e.cfg, e.queueLen)
	return e
}

// run simulates until the measured jobs are done and the last sample time
// has passed.
func (e *engine) run() {
	e.start()
	e.loop()
}

// start puts the initial state in place and sets the first timers.
func (e *engine) start() {
	c := &e.cfg
	if e.markov = c.markovian(); e.markov {
		e.markovStart()
		return
	}
	// The start: its jobs arrive at time 0, unmeasured.
	for i := range e.n {
		jobs := c.Start.ServerJobs(i, e.n)
		if c.Queues != nil {
			jobs = int(c.Queues[i])
		}
		for range jobs {
			e.arrive(i, job{size: e.sizes.draw(e.rng)})
		}
	}
	if !c.Push.IsZero() && c.Push.At == 0 {
		e.push()
	}
	if e.tokens.active() {
		for i := range e.n {
			if e.queueLen[i] == 0 {
				e.tokens.give(i)
			}
		}
		if e.exchangeRate > 0 {
			e.nextExchange = e.rng.exp() / e.exchangeRate
		}
	}
	if c.Period > 0 {
		e.refresh()
		e.nextRefresh = c.Period
	}
	e.nextArrival = e.rng.exp() * e.meanInterarrival
	if len(c.SampleTimes) > 0 {
		e.nextSample = c.SampleTimes[0]
	}
	e.timersMoved()
	e.until = math.Inf(1) // a run of Horizon periods ends at its last refresh
	if c.Horizon > 0 {
		e.until = float64(c.Horizon) * c.Period
	}
}

// loop simulates events until the measured jobs are done (or a sequential
// run's pause is reached) and the last sample time has passed; it may be
// called again after a pause to go on.
func (e *engine) loop() {
	c := &e.cfg
	if e.markov {
		e.markovLoop()
		return
	}
	until := e.until
	for !e.abandoned && !e.ended && (!e.measure.finished() || len(e.measure.samples) < len(c.SampleTimes)) {
		// The earliest event; on a tie the first in the order of the
		// event kinds. Arrivals and completions, nearly every event, are
		// told apart by one comparison.
		srv, ts := e.cal.min()
		t := e.nextArrival
		if ts < t {
			t = ts
		}
		if e.timerAt < t {
			if e.timerAt > until {
				e.ended = true
				break
			}
			if e.timer() {
				e.ended = true
				return
			}
			continue
		}
		if t > until {
			e.ended = true
			break
		}
		e.now = t
		if ts < e.nextArrival {
			e.departure(srv)
		} else {
			e.arrival()
		}
		e.events++
	}
}

// timer handles the event of timerKind at timerAt; it reports whether
// the run stops there (Settings.StopAtTip).
func (e *engine) timer() (stop bool) {
	c := &e.cfg
	t := e.timerAt
	e.now = t
	switch e.timerKind {
	case evRefresh:
		if !c.Push.IsZero() && c.Push.At > 0 && e.measure.periods == c.Push.At {
			e.push()
		}
		if e.refresh() && c.StopAtTip {
			e.events++
			return true
		}
		e.nextRefresh = t + c.Period
	case evExchange:
		e.tokens.exchange()
		e.nextExchange = t + e.rng.exp()/e.exchangeRate
	case evSnapshot:
		e.measure.snapshotNow()
		e.nextSnapshot = t + c.CorrelationAge
	case evSample:
		e.measure.record(t, e.tokens.pools)
		if k := len(e.measure.samples); k < len(c.SampleTimes) {
			e.nextSample = c.SampleTimes[k]
		} else {
			e.nextSample = math.Inf(1)
		}
		e.timersMoved()
		return false // not an event of the system
	}
	e.timersMoved()
	e.events++
	return false
}

// eventKind is the kind of an event; on a tie of times the first kind
// in this order happens first.
type eventKind int8

const (
	evArrival eventKind = iota
	evDeparture
	evRefresh
	evExchange
	evSnapshot
	evSample
)

// timersMoved sets timerAt and timerKind after a change of nextRefresh,
// nextExchange, nextSnapshot or nextSample.
func (e *engine) timersMoved() {
	t, kind := e.nextRefresh, evRefresh
	if e.nextExchange < t {
		t, kind = e.nextExchange, evExchange
	}
	if e.nextSnapshot < t {
		t, kind = e.nextSnapshot, evSnapshot
	}
	if e.nextSample < t {
		t, kind = e.nextSample, evSample
	}
	e.timerAt, e.timerKind = t, kind
}

// arrival handles an external arrival: it draws the next arrival time,
// then the receiving dispatcher, the job's size and its server, in that
// order.
func (e *engine) arrival() {
	id := e.arrivals
	e.arrivals++
	e.nextArrival = e.now + e.rng.exp()*e.meanInterarrival
	if id == e.measure.warmupJobs {
		e.measure.startMeasuring(e.now)
		if e.cfg.CorrelationAge > 0 {
			e.nextSnapshot = e.now + e.cfg.CorrelationAge
			e.timersMoved()
		}
	}
	if id&0xffff == 0 && id > 0 {
		if e.progress != nil {
			e.progress(0x10000)
		}
		if e.cfg.Stopped() {
			e.abandoned = true
		}
	}
	r := 0 // the receiving dispatcher: drawn by α when there are several
	if k := e.cfg.Dispatchers; k > 1 {
		if e.cumAlpha == nil {
			r = e.rng.intn(k)
		} else {
			r = pick(e.cumAlpha, e.rng.float64())
		}
	}
	size := e.sizes.draw(e.rng)
	var i int
	var random bool
	if d := &e.dispatchers; d.liveBestOfTwo {
		// Best of two on live queues, the commonest policy: route's
		// JSQd case without the call and the switch.
		a, b := d.pair()
		i = d.better(a, b, e.queueLen[a], e.queueLen[b])
	} else {
		i, random = d.route(r, e.now)
	}
	var flags uint8
	if e.measure.observed(id) {
		flags = e.measure.arrival(i, random) | flagObserved
	}
	if i >= 0 {
		e.arrive(i, job{arrival: e.now, size: size, flags: flags})
	}
}

// arrive puts job j at server i now.
func (e *engine) arrive(i int, j job) {
	s := &e.servers[i]
	n := int(e.queueLen[i])
	e.queueLen[i]++
	e.changed = true
	e.dispatchers.joined(i)
	e.dispatchers.addWork(i, j.size, e.now)
	if e.cfg.Discipline == farm.FCFS {
		if s.enqueueFCFS(n, j, e.now) {
			e.cal.push(i, e.now+j.size)
		}
		return
	}
	e.cal.set(i, s.enqueuePS(n, j, e.now))
}

// departure completes the next job at server i; a server going idle sends
// out its JIQ token.
func (e *engine) departure(i int) {
	s := &e.servers[i]
	n := int(e.queueLen[i])
	var j job
	var delay, next float64
	if e.cfg.Discipline == farm.FCFS {
		j, delay, next = s.dequeueFCFS(n, e.now)
	} else {
		j, delay, next = s.dequeuePS(n, e.now)
	}
	if n > 1 {
		e.cal.replaceMin(next) // i is the earliest
	} else {
		e.cal.popMin()
	}
	e.queueLen[i]--
	e.changed = true
	e.dispatchers.left(i)
	if n == 1 && e.tokens.active() {
		e.tokens.give(i)
	}
	e.measure.departure(j, delay, e.now)
}

// push lands the model's push (farm.Push) on the servers now: its jobs
// join their queues unmeasured, as the start's do.
func (e *engine) push() {
	for i := range e.n {
		for range e.cfg.Push.ServerJobs(i, e.n) {
			e.arrive(i, job{arrival: e.now, size: e.sizes.draw(e.rng)})
		}
	}
}

// alwaysReadBoard makes every refresh read the queues (tests: the repeat
// of an unchanged board must give the same run).
var alwaysReadBoard = false

// refresh copies the queue lengths to the board and records its mean; it
// reports the run's first tip. If no job arrived or left since the last
// refresh, the board, its sorted levels and the tallies (which only
// arrivals raise) are already what a copy would give, and the mean is the
// last one: the refresh is recorded without reading the N queues, so that
// a period far below the time between events costs O(1) per refresh.
func (e *engine) refresh() bool {
	changed := e.changed || alwaysReadBoard
	if changed {
		e.dispatchers.refresh()
		e.changed = false
	}
	return e.measure.refreshed(e.now, changed)
}
