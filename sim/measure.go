package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// batches is the number of batch means of a single replication.
const batches = 10

// SlowdownTailAt is the slowdown threshold of Rep.SlowdownTail and
// Result.SlowdownTail: they are the fraction of served jobs whose time in
// system exceeds SlowdownTailAt times their size.
const SlowdownTailAt = 10

// batchSums accumulates the per-job measurements of one batch of the
// measured jobs.
type batchSums struct {
	arrivals, served, blocked float64 // measured jobs that arrived, were served, were blocked
	sentRandom                float64 // JIQ: sent without a token
	busy                      float64 // sent to a busy server (at least one job there)
	slowTail                  float64 // served with time in system > SlowdownTailAt × size
	sojourn, slowdown, delay  float64 // sums over the served jobs
}

func (a *batchSums) add(b batchSums) {
	a.arrivals += b.arrivals
	a.served += b.served
	a.blocked += b.blocked
	a.sentRandom += b.sentRandom
	a.busy += b.busy
	a.slowTail += b.slowTail
	a.sojourn += b.sojourn
	a.slowdown += b.slowdown
	a.delay += b.delay
}

// The per-job quantities measured, indices of quantities.
const (
	qSojourn  = iota // time in system, over the served jobs
	qSlowdown        // time in system / size, over the served jobs
	qSlowTail        // fraction of the served jobs with time in system > SlowdownTailAt × size
	qDelay           // time in system − size, over the served jobs
	qBusy            // fraction of the arrivals sent to a busy server
	qBlocking        // fraction of the arrivals blocked
	qRandom          // fraction of the arrivals sent without a JIQ token
	nQuantities
)

// quantities are the means of the per-job quantities of a set of jobs,
// indexed by qSojourn … qRandom.
type quantities [nQuantities]float64

// means returns the means of the quantities; a mean over no jobs is 0.
func (a batchSums) means() quantities {
	div := func(x, n float64) float64 {
		if n == 0 {
			return 0
		}
		return x / n
	}
	var q quantities
	q[qSojourn] = div(a.sojourn, a.served)
	q[qSlowdown] = div(a.slowdown, a.served)
	q[qSlowTail] = div(a.slowTail, a.served)
	q[qDelay] = div(a.delay, a.served)
	q[qBusy] = div(a.busy, a.arrivals)
	q[qBlocking] = div(a.blocked, a.arrivals)
	q[qRandom] = div(a.sentRandom, a.arrivals)
	return q
}

// OccupancyLevels is the number of queue lengths 0..OccupancyLevels−1
// whose fractions a Sample records.
const OccupancyLevels = 8

// Sample is the state at one of Settings.SampleTimes.
type Sample struct {
	T float64
	// Busy is the fraction of servers with at least one job.
	Busy float64
	// Occupancy[i] is the fraction of servers with exactly i jobs.
	Occupancy [OccupancyLevels]float64
	// Tokens[r] is the number of tokens at dispatcher r divided by N (JIQ).
	Tokens []float64
}

// measurement is what a replication records: per-job sums of the
// measured jobs in batches, the board mean at every refresh, the
// correlation of queue lengths across snapshots and the state at the
// sample times. It reads the engine's queue lengths and never draws a
// random number.
type measurement struct {
	queueLen []int32 // the engine's queue lengths (read only)

	// Jobs with arrival numbers warmupJobs … warmupJobs+measuredJobs−1
	// are measured; done of them have left or been blocked.
	warmupJobs, measuredJobs, done int64
	warmupEnd                      float64 // arrival time of the first measured job (+Inf before)
	batch                          [batches]batchSums
	// The batch of the arrivals before arrival number nextBatch is
	// curBatch (−1: not measured); see batchOf.
	curBatch  int32
	nextBatch int64

	boardSum               float64   // sum of the board means at refreshes after the warm-up
	rangeSum               float64   // sum of the board ranges (longest − shortest queue) at those refreshes
	lastBoard              float64   // the board mean at the last refresh
	lastRange              int32     // the board's range at the last refresh
	refreshes, periods     int       // refreshes summed, refresh periods since the start
	boardMeans, boardTimes []float64 // mean queue length at every refresh, and when (Series only)
	tips                   bool      // tipping is watched: a board at λ < 1
	watch                  farm.TipWatch
	tippedAt               int       // the first refresh after the start (and the push) that tipped (0: none)
	pushAt                 int       // the refresh at which the push lands (0: at the start, or none)
	hist                   []float64 // the board's distribution of queue lengths, at the last refresh that needed it

	snapshot           []int32 // queue lengths at the last correlation snapshot
	corrSum            float64 // sum of the correlations between snapshots
	corrPairs          int     // pairs of snapshots summed
	recordsCorrelation bool

	samples []Sample

	// For Rep.
	load, period float64
	series       bool
}

// newMeasurement returns the empty record of a replication of c.
func newMeasurement(c *config, queueLen []int32) measurement {
	m := measurement{queueLen: queueLen, warmupJobs: int64(c.Warmup), measuredJobs: int64(c.Jobs), warmupEnd: math.Inf(1),
		curBatch: -1, nextBatch: int64(c.Warmup),
		recordsCorrelation: c.CorrelationAge > 0, load: c.Load, period: c.Period, series: c.Series}
	if c.Horizon > 0 {
		m.measuredJobs = math.MaxInt64 - m.warmupJobs // every job after the warm-up
	}
	m.tips = c.Period > 0 && c.Load < 1
	m.watch = farm.TipWatch{Period: c.Period, Load: c.Load}
	m.pushAt = c.Push.At
	if len(c.SampleTimes) > 0 {
		m.samples = make([]Sample, 0, len(c.SampleTimes))
	}
	return m
}

// finished reports whether every measured job has left (or been blocked).
func (m *measurement) finished() bool { return m.done >= m.measuredJobs }

// batchOf returns the batch of the job with arrival number id, or −1
// if it is not measured; it is called once for every arrival, in order.
// The measured jobs are split into batches of consecutive arrivals:
// offset x = id − warmupJobs is in batch ⌊x·batches/measuredJobs⌋ (a run
// of Horizon periods has one batch: its jobs are not counted in
// advance). The batch changes at the first offset of each batch,
// ⌈b·measuredJobs/batches⌉, so an arrival costs one comparison and no
// division.
func (m *measurement) batchOf(id int64) int32 {
	for id >= m.nextBatch { // more than once only for empty batches (fewer jobs than batches)
		m.nextBatchAfter()
	}
	return m.curBatch
}

// nextBatchAfter moves on to the next batch: curBatch and the arrival
// number at which the one after it starts.
func (m *measurement) nextBatchAfter() {
	m.curBatch++
	last := int32(batches - 1)
	if m.measuredJobs > math.MaxInt64/batches {
		last = 0
	}
	switch {
	case m.curBatch > last: // every measured job has arrived
		m.curBatch, m.nextBatch = -1, math.MaxInt64
	case m.curBatch == last:
		m.nextBatch = m.warmupJobs + m.measuredJobs
	default:
		b := int64(m.curBatch) + 1
		m.nextBatch = m.warmupJobs + (b*m.measuredJobs+batches-1)/batches
	}
}

// startMeasuring is called at the arrival of the first measured job, at
// now: it ends the warm-up and takes the first correlation snapshot.
func (m *measurement) startMeasuring(now float64) {
	m.warmupEnd = now
	if m.recordsCorrelation {
		m.snapshot = append(m.snapshot[:0], m.queueLen...)
	}
}

// arrival records the dispatch of a job of batch (−1: not measured) to server (−1: blocked), before
// the job joins it; random reports a JIQ job sent without a token.
func (m *measurement) arrival(batch int32, server int, random bool) {
	if batch < 0 {
		return
	}
	a := &m.batch[batch]
	a.arrivals++
	if random {
		a.sentRandom++
	}
	if server < 0 {
		a.blocked++
		m.done++
		return
	}
	if m.queueLen[server] > 0 {
		a.busy++
	}
}

// departure records job j leaving at now; delay is its time in system
// less its size (FCFS: its wait before service).
func (m *measurement) departure(j job, delay, now float64) {
	if j.batch < 0 {
		return
	}
	a := &m.batch[j.batch]
	soj := now - j.arrival
	a.served++
	a.sojourn += soj
	a.slowdown += soj / j.size
	if soj > SlowdownTailAt*j.size {
		a.slowTail++
	}
	a.delay += delay
	m.done++
}

// refreshed records the mean queue length (the board mean) at a refresh
// at now, and whether the run has tipped there (farm.TipWatch on the
// board's distribution of queue lengths, from the first refresh after the
// start and the push): it reports the first tip. Unless changed, no job arrived or left since the last
// refresh, whose mean it reuses.
func (m *measurement) refreshed(now float64, changed bool) (tipped bool) {
	mean := m.lastBoard
	if changed {
		var sum int64
		lo, hi := m.queueLen[0], m.queueLen[0]
		for _, q := range m.queueLen {
			sum += int64(q)
			lo, hi = min(lo, q), max(hi, q)
		}
		mean = float64(sum) / float64(len(m.queueLen))
		m.lastBoard, m.lastRange = mean, hi-lo
	}
	// The warm-up ends at the arrival of the first measured job, so a
	// refresh before it finds warmupEnd still +Inf or later than now.
	if now >= m.warmupEnd {
		m.boardSum += mean
		m.rangeSum += float64(m.lastRange)
		m.refreshes++
	}
	if m.series {
		m.boardMeans = append(m.boardMeans, mean)
		m.boardTimes = append(m.boardTimes, now)
	}
	n := m.periods
	m.periods++
	if n > m.pushAt && m.tips && m.tippedAt == 0 && m.watch.Next(m.board()) {
		m.tippedAt = n
		return true
	}
	return false
}

// board is the distribution of the queue lengths now (the board at a
// refresh), in a buffer reused from one refresh to the next.
func (m *measurement) board() []float64 {
	top := int32(0)
	for _, q := range m.queueLen {
		top = max(top, q)
	}
	if cap(m.hist) <= int(top) {
		m.hist = make([]float64, top+1, 2*top+2)
	}
	m.hist = m.hist[:top+1]
	clear(m.hist)
	inv := 1 / float64(len(m.queueLen))
	for _, q := range m.queueLen {
		m.hist[q] += inv
	}
	return m.hist
}

// snapshotNow records the correlation between the queue lengths now and
// at the last snapshot, and takes a new snapshot.
func (m *measurement) snapshotNow() {
	if c, ok := correlation(m.snapshot, m.queueLen); ok {
		m.corrSum += c
		m.corrPairs++
	}
	copy(m.snapshot, m.queueLen)
}

// correlation is the Pearson correlation of a and b across servers; false
// when either is constant.
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

// record appends the state at now to the samples; tokens are the JIQ
// token pools (nil for the other policies). It allocates: sampling is not
// per event.
func (m *measurement) record(now float64, tokens [][]int32) {
	s := Sample{T: now}
	inv := 1 / float64(len(m.queueLen))
	for _, q := range m.queueLen {
		if q > 0 {
			s.Busy += inv
		}
		if q < OccupancyLevels {
			s.Occupancy[q] += inv
		}
	}
	for _, t := range tokens {
		s.Tokens = append(s.Tokens, float64(len(t))*inv)
	}
	m.samples = append(m.samples, s)
}

// rep is the outcome of the replication, which simulated events events
// and ended at time end.
func (m *measurement) rep(events int64, end float64) Rep {
	r := Rep{Jobs: m.measuredJobs, Events: events, Time: end, batch: m.batch}
	var tot batchSums
	for _, a := range m.batch {
		tot.add(a)
	}
	q := tot.means()
	r.Sojourn, r.Slowdown, r.SlowdownTail, r.Delay = q[qSojourn], q[qSlowdown], q[qSlowTail], q[qDelay]
	r.BusyAtArrival, r.Blocking, r.RandomFraction = q[qBusy], q[qBlocking], q[qRandom]
	r.BoardMean, r.BoardRange, r.Refreshes = m.boardSum, m.rangeSum, m.refreshes
	if r.Refreshes > 0 {
		r.BoardMean /= float64(r.Refreshes)
		r.BoardRange /= float64(r.Refreshes)
	}
	r.Tipped, r.TippedAt = m.tippedAt > 0, m.tippedAt
	r.Periods = max(m.periods-1, 0)
	if m.series {
		r.Boards, r.BoardTimes = m.boardMeans, m.boardTimes
	}
	if m.corrPairs > 0 {
		r.Correlation, r.Correlations = m.corrSum/float64(m.corrPairs), m.corrPairs
	}
	r.Samples = m.samples
	return r
}
