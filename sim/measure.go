package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/sim/steadystate"
)

// SlowdownTailAt is the slowdown threshold of Rep.SlowdownTail and
// Result.SlowdownTail: they are the fraction of served jobs whose time in
// system exceeds SlowdownTailAt times their size.
const SlowdownTailAt = 10

// batchSums accumulates the per-job measurements of a replication's
// observed jobs (for its Rep and for transient estimates).
type batchSums struct {
	arrivals, served, blocked float64 // measured jobs that arrived, were served, were blocked
	sentRandom                float64 // JIQ: sent without a token
	busy                      float64 // sent to a busy server (at least one job there)
	slowTail                  float64 // served with time in system > SlowdownTailAt × size
	sojourn, slowdown, delay  float64 // sums over the served jobs
}

// The channels of a replication's job series: one observation per
// observed job, when it leaves or is blocked.
const (
	chServed   = iota // 1 if served, 0 if blocked
	chSojourn         // time in system (served jobs; 0 if blocked)
	chSlowdown        // time in system / size (served)
	chSlowTail        // 1 if time in system > SlowdownTailAt × size (served)
	chDelay           // time in system − size (served)
	chBusy            // 1 if sent to a server holding at least one job
	chBlocked         // 1 if blocked (JIQ blocking)
	chRandom          // 1 if sent without a JIQ token
	nChannels
)

// The quantities read from the job series, indices of quantities.
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

// jobQuantities are the steady-state means read from the job series,
// indexed by qSojourn … qRandom: means over the served jobs are ratios
// (Σ sojourn / Σ served), fractions of the arrivals plain means (every
// observation is one arrival).
var jobQuantities = [nQuantities]steadystate.Quantity{
	qSojourn:  steadystate.RatioOf("sojourn", chSojourn, chServed),
	qSlowdown: steadystate.RatioOf("slowdown", chSlowdown, chServed),
	qSlowTail: steadystate.RatioOf("slowdown_tail", chSlowTail, chServed),
	qDelay:    steadystate.RatioOf("delay", chDelay, chServed),
	qBusy:     steadystate.MeanOf("busy_at_arrival", chBusy),
	qBlocking: steadystate.MeanOf("blocking", chBlocked),
	qRandom:   steadystate.MeanOf("fraction_random", chRandom),
}

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

// measurement is what a replication records: the observed jobs, one
// observation each in its job series (and their totals), the board mean
// at every refresh (its board series), the correlation of queue lengths
// across snapshots and the state at the sample times. It reads the
// engine's queue lengths and never draws a random number.
type measurement struct {
	queueLen []int32 // the engine's queue lengths (read only)

	// Jobs with arrival numbers warmupJobs … warmupJobs+measuredJobs−1
	// are observed (a transient run); done of them have left or been
	// blocked. A steady-state run observes every job from warmupJobs on
	// (measuredJobs is then unbounded) and pauses, or ends, when its
	// series holds pauseAt observations.
	warmupJobs, measuredJobs, done int64
	pauseAt                        int64
	warmupEnd                      float64 // arrival time of the first measured job (+Inf before)
	tot                            batchSums
	jobs                           *steadystate.Series // one observation per observed job, channels chServed …
	obs                            [nChannels]float64  // scratch for one observation

	board                  *steadystate.Series // one observation per refresh from the warm-up's end (nil without a board)
	boardSum               float64             // sum of the board means at refreshes after the warm-up
	rangeSum               float64             // sum of the board ranges (longest − shortest queue) at those refreshes
	lastBoard              float64             // the board mean at the last refresh
	lastRange              int32               // the board's range at the last refresh
	refreshes, periods     int                 // refreshes summed, refresh periods since the start
	boardMeans, boardTimes []float64           // mean queue length at every refresh, and when (Series only)
	// measuredBoards and boardJobs are the board mean at every refresh
	// after the warm-up's end and the job series' count then: a board run
	// too short for the board's own steady-state analysis deletes the
	// refreshes inside the job series' data-driven warm-up by them.
	measuredBoards []float64
	boardJobs      []int64
	tips           bool // tipping is watched: a board at λ < 1
	watch          farm.TipWatch
	tippedAt       int       // the first refresh after the start (and the push) that tipped (0: none)
	pushAt         int       // the refresh at which the push lands (0: at the start, or none)
	hist           []float64 // the board's distribution of queue lengths, at the last refresh that needed it

	snapshot           []int32 // queue lengths at the last correlation snapshot
	corrSum            float64 // sum of the correlations between snapshots
	corrPairs          int     // pairs of snapshots summed
	recordsCorrelation bool

	samples []Sample

	// For Rep.
	load, period float64
	series       bool
}

// boardSeries are the settings of a board series: one refresh per
// observation from the first fine batch on, and the fewest fine batches,
// so that runs of a few dozen refreshes still have batches to test.
var boardSeries = steadystate.SeriesSettings{FineBatches: steadystate.MinFineBatches, FirstSize: 1}

// newMeasurement returns the empty record of a replication of c.
func newMeasurement(c *config, queueLen []int32) measurement {
	m := measurement{queueLen: queueLen, warmupJobs: int64(c.Warmup), measuredJobs: int64(c.Jobs), warmupEnd: math.Inf(1),
		recordsCorrelation: c.CorrelationAge > 0, load: c.Load, period: c.Period, series: c.Series,
		pauseAt: math.MaxInt64}
	if c.Horizon > 0 || c.steady() {
		m.measuredJobs = math.MaxInt64 - m.warmupJobs // every job after the warm-up
	}
	if c.steady() && c.Jobs > 0 {
		// A steady-state run of fixed length ends at its Jobs-th
		// observation: the first Jobs departures (or blockings) of the
		// jobs from arrival Warmup on, a stretch of the stationary
		// departure sequence. (Ending when the jobs Warmup … Warmup+Jobs−1
		// have all left would end the series on a drain of the long jobs
		// among them, the short ones having left: a trailing transient
		// of about λN·E[S²]/2 observations, biased high.)
		m.pauseAt = int64(c.Jobs)
	}
	var err error
	if m.jobs, err = steadystate.NewSeries(nChannels, nil); err != nil {
		panic(err) // the default settings are valid
	}
	if c.Period > 0 {
		if m.board, err = steadystate.NewSeries(1, &boardSeries); err != nil {
			panic(err)
		}
	}
	m.tips = c.Period > 0 && c.Load < 1
	m.watch = farm.TipWatch{Period: c.Period, Load: c.Load}
	m.pushAt = c.Push.At
	if len(c.SampleTimes) > 0 {
		m.samples = make([]Sample, 0, len(c.SampleTimes))
	}
	return m
}

// finished reports whether every measured job has left (or been
// blocked), or a sequential run's series has reached its pause.
func (m *measurement) finished() bool { return m.done >= m.measuredJobs || m.jobs.Count() >= m.pauseAt }

// observed reports whether the job with arrival number id is observed.
func (m *measurement) observed(id int64) bool {
	return id >= m.warmupJobs && id-m.warmupJobs < m.measuredJobs
}

// startMeasuring is called at the arrival of the first measured job, at
// now: it ends the warm-up and takes the first correlation snapshot.
func (m *measurement) startMeasuring(now float64) {
	m.warmupEnd = now
	if m.recordsCorrelation {
		m.snapshot = append(m.snapshot[:0], m.queueLen...)
	}
}

// arrival records the dispatch of an observed job to server (−1:
// blocked), before the job joins it; random reports a JIQ job sent
// without a token. It returns the job's flags (busy, random) for its
// observation at departure; a blocked job is observed at once.
func (m *measurement) arrival(server int, random bool) (flags uint8) {
	a := &m.tot
	a.arrivals++
	if random {
		a.sentRandom++
		flags |= flagRandom
	}
	if server < 0 {
		a.blocked++
		m.done++
		o := &m.obs
		*o = [nChannels]float64{chBlocked: 1}
		if random {
			o[chRandom] = 1
		}
		m.jobs.Add(o[:]...)
		return flags
	}
	if m.queueLen[server] > 0 {
		a.busy++
		flags |= flagBusy
	}
	return flags
}

// departure records job j leaving at now; delay is its time in system
// less its size (FCFS: its wait before service).
func (m *measurement) departure(j job, delay, now float64) {
	if j.flags&flagObserved == 0 {
		return
	}
	a := &m.tot
	soj := now - j.arrival
	slow := soj / j.size
	tail := 0.0
	if soj > SlowdownTailAt*j.size {
		tail = 1
		a.slowTail++
	}
	a.served++
	a.sojourn += soj
	a.slowdown += slow
	a.delay += delay
	m.done++
	o := &m.obs
	*o = [nChannels]float64{chServed: 1, chSojourn: soj, chSlowdown: slow, chSlowTail: tail, chDelay: delay}
	if j.flags&flagBusy != 0 {
		o[chBusy] = 1
	}
	if j.flags&flagRandom != 0 {
		o[chRandom] = 1
	}
	m.jobs.Add(o[:]...)
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
		m.board.Add(mean)
		m.measuredBoards = append(m.measuredBoards, mean)
		m.boardJobs = append(m.boardJobs, m.jobs.Count())
	}
	if m.series {
		m.boardMeans = append(m.boardMeans, mean)
		m.boardTimes = append(m.boardTimes, now)
	}
	n := m.periods
	m.periods++
	if n > m.pushAt && m.tips && m.tippedAt == 0 && m.watch.Next(m.boardDist()) {
		m.tippedAt = n
		return true
	}
	return false
}

// boardDist is the distribution of the queue lengths now (the board at
// a refresh), in a buffer reused from one refresh to the next.
func (m *measurement) boardDist() []float64 {
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
	r := Rep{Jobs: m.jobs.Count(), Events: events, Time: end, tot: m.tot, jobs: m.jobs, board: m.board,
		measuredBoards: m.measuredBoards, boardJobs: m.boardJobs}
	q := m.tot.means()
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
