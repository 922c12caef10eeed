package sim

import (
	"math"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Estimate is a simulated mean with the half-widths of its confidence
// intervals: Student t on Samples independent means (replications, or the
// batch means of a single replication), t quantile with Samples−1 degrees
// of freedom. CI95 is always the 95% half-width; HalfWidth is the
// half-width at Level (Settings.Level, default 0.95, when it equals CI95).
// With one sample there is no interval and both are 0.
type Estimate struct {
	Mean      float64 `json:"mean"`
	CI95      float64 `json:"ci95"`
	HalfWidth float64 `json:"half_width"`
	Level     float64 `json:"level"`
	Samples   int     `json:"samples"`
}

// Contains reports whether x lies within the 95% interval widened by
// allow.
func (e Estimate) Contains(x, allow float64) bool {
	return math.Abs(e.Mean-x) <= e.CI95+allow
}

// Rep is the outcome of one replication.
type Rep struct {
	// Per-job means over the measured jobs, with T a job's time in system
	// and S its size: Sojourn E[T], Slowdown E[T/S] (a sample mean whose
	// expectation may be infinite: see Model.SlowdownFinite),
	// SlowdownTail P(T > SlowdownTailAt·S) and Delay E[T − S] over the
	// served jobs; BusyAtArrival (the fraction sent to a server with at
	// least one job), Blocking and RandomFraction (JIQ: sent without a
	// token) over all measured arrivals. See Result for what Delay and
	// BusyAtArrival mean under each discipline.
	Sojourn, Slowdown, SlowdownTail, Delay, BusyAtArrival, Blocking, RandomFraction float64
	// BoardMean is the mean board value over the refreshes from the first
	// measured arrival on (Refreshes of them; 0 when there were none).
	BoardMean float64
	Refreshes int
	// BoardRange is the mean over the same refreshes of the board's range,
	// the longest queue less the shortest (the spread of the board that
	// "The Cliff Was a Trap Door" measured).
	BoardRange float64
	// Tipped (board runs, Period > 0, λ < 1): at some refresh after the
	// start (and the push) the board had tipped into the herd
	// (farm.TipWatch: the gap between its two groups above
	// max((1−λ)·T, 3/(1−λ)) at two refreshes in a row) — the
	// definition the theory uses too; TippedAt
	// is the first such refresh (1 = at time T), 0 if none. Periods is the
	// number of refresh periods simulated after the start.
	Tipped   bool
	TippedAt int
	Periods  int
	// FinalQueues are the queue lengths at the end of the run
	// (RecordFinal only).
	FinalQueues []int32
	// Boards is the board mean at every refresh from t = 0 (Series only),
	// at times BoardTimes.
	Boards, BoardTimes []float64
	// Correlation is the mean correlation across servers between queue
	// lengths CorrelationAge apart (Correlations pairs).
	Correlation  float64
	Correlations int
	// Samples are the states at Settings.SampleTimes.
	Samples   []Sample
	Jobs      int64              // measured jobs
	Events    int64              // events simulated
	Time      float64            // simulated time
	batch     [batches]batchSums // the measured jobs' sums in 10 batches (batch means when Reps = 1)
	abandoned bool               // the run's Context ended it before the end
}

// Result of Run. T is a job's time in system and S its size.
//
// Its Status is Completed for a run of a fixed number of replications
// and, with a precision target (Settings.RelPrecision), Converged if it
// reached the target or NotConverged if it stopped at MaxReps
// replications; Interrupted when the run's Context ended it early (Reps
// then holds the replications that finished, in order of their numbers,
// which may skip those abandoned, and the estimates are theirs; with none
// finished the estimates are zero). Evaluations counts the events
// simulated, all replications together; Elapsed is the wall time.
type Result struct {
	outcome.Outcome
	// Model and Settings are the run's, normalized: their defaults filled
	// in (Dispatchers, Jobs, Warmup, Reps, Level, MaxReps, Beta).
	Model    Model
	Settings Settings
	// Sojourn is the mean time in system E[T] over the served jobs. Every
	// estimate leaves out the replications (or batches) with nothing to
	// average (no served job; no arrival); Samples counts the others. A run
	// of Jobs in which no measured job is served at all is an error; a
	// Horizon run may end with none (Samples 0, Mean 0).
	Sojourn Estimate
	// Slowdown is E[T/S], nil where that mean is infinite
	// (Model.SlowdownFinite: FCFS with exponential or H2 sizes, except
	// under JIQ blocking); SlowdownNote then says why in one line.
	Slowdown     *Estimate
	SlowdownNote string
	// SlowdownTail is P(T > SlowdownTailAt·S) over the served jobs: a
	// finite summary of the slowdown under every discipline.
	SlowdownTail Estimate
	// Delay is E[T − S] over the served jobs and BusyAtArrival the
	// fraction of the measured arrivals (blocked ones included) sent to a
	// server that held at least one job. Under FCFS they are the mean wait
	// before service and the probability of waiting. Under PS no job
	// waits (each is served from its arrival): Delay is the time that
	// sharing the server cost, BusyAtArrival the probability of arriving
	// to share it.
	Delay, BusyAtArrival Estimate
	// Wait and WaitProb are the FCFS queueing wait E[W] and P(W > 0): under
	// FCFS equal to Delay and BusyAtArrival, nil under PS.
	Wait, WaitProb *Estimate
	// Blocking is the fraction of the measured arrivals lost (JIQ
	// blocking), RandomFraction the fraction sent without a token (JIQ
	// queueing).
	Blocking, RandomFraction Estimate
	// BoardMean is nil when no board was kept (Period = 0) or no refresh
	// fell in the measured window, and so is BoardRange (the mean range
	// of the board at a refresh, longest less shortest queue); Correlation
	// is nil when it was not recorded.
	BoardMean, BoardRange, Correlation *Estimate
	// Tipped counts the replications that tipped (stale-board runs).
	Tipped int
	// Trajectory holds, for each of Settings.SampleTimes, the mean state over
	// the replications with its interval.
	Trajectory []TrajectoryPoint
	// Reps are the replications run: Settings.Reps, or with a precision
	// target (Settings.RelPrecision) up to Settings.MaxReps.
	Reps []Rep
	// PrecisionReached (precision target only) reports whether the
	// half-width of Sojourn at Settings.Level is at most RelPrecision·|mean|;
	// false when the run stopped at MaxReps replications without it.
	// Rounds is the number of rounds of replications run (1 without a
	// target).
	PrecisionReached bool
	Rounds           int
	// Jobs measured in all replications.
	Jobs int64

	cfg         config        // the run, normalized
	workers     int           // replications run at once (config.workers)
	interrupted bool          // the Context ended the run early
	arrivals    *atomic.Int64 // arrivals simulated so far, for Settings.Progress
}

// Run simulates s.Reps independent replications of m, in parallel on
// s.Workers goroutines; with a precision target (s.RelPrecision > 0) it
// then adds replications in rounds until the target or s.MaxReps is
// reached. Replication r always uses the random stream of (s.Seed, r) and
// each round's size depends only on the replications before it, so the
// result depends only on m and s (not on Workers or GOMAXPROCS). A nil s
// means the default settings. An invalid model or setting is an error
// naming the offending field.
//
// The rounds: with n replications and half-width h against the target
// h* = RelPrecision·|mean|, the next round brings the total to
// ⌈1.1·n·(h/h*)²⌉ (the variance estimate's prediction, with a margin),
// but at least ⌈1.25·n⌉, at most 4n and at most MaxReps. Stopping on a
// half-width read from the data makes the final interval's coverage
// slightly below its nominal level; the target is a precision, not a
// coverage, guarantee.
func Run(m *Model, s *Settings) (*Result, error) {
	c, err := newConfig(m, s).normalized()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &Result{Model: c.Model, Settings: c.Settings, cfg: c}
	res.workers = c.workers()
	res.runReps(c.Reps)
	res.Rounds = 1
	for c.RelPrecision > 0 && !res.interrupted {
		if res.Sojourn.Samples >= 2 && res.Sojourn.HalfWidth <= c.RelPrecision*math.Abs(res.Sojourn.Mean) {
			res.PrecisionReached = true
			break
		}
		if len(res.Reps) >= c.MaxReps {
			break
		}
		res.runReps(res.nextRound())
		res.Rounds++
	}
	switch {
	case res.interrupted:
		res.Status = outcome.Interrupted
	case c.RelPrecision == 0:
		res.Status = outcome.Completed
	case res.PrecisionReached:
		res.Status = outcome.Converged
	default:
		res.Status = outcome.NotConverged
	}
	if len(res.Reps) > 0 && res.Sojourn.Samples == 0 && c.Horizon == 0 {
		return nil, param.Errorf("Jobs", "no measured job was served in any replication (every one was blocked): the time in system has no sample; run more jobs or at a lower load")
	}
	res.Elapsed = time.Since(start)
	for _, r := range res.Reps {
		res.Jobs += r.Jobs
		res.Evaluations += int(r.Events)
		if r.Tipped {
			res.Tipped++
		}
	}
	if len(res.Reps) > 0 {
		res.trajectory()
	}
	return res, nil
}

// runReps runs replications len(res.Reps) … total−1 in parallel and
// aggregates all of them.
func (res *Result) runReps(total int) {
	c := res.cfg
	from := len(res.Reps)
	res.Reps = append(res.Reps, make([]Rep, total-from)...)
	ran := make([]bool, total-from)
	_ = parallel.For(total-from, res.workers, nil, func(i int) error {
		if c.Stopped() {
			return nil
		}
		if r := runRep(c, from+i, res.progress()); !r.abandoned {
			res.Reps[from+i], ran[i] = r, true
		}
		return nil
	})
	kept := res.Reps[:from]
	for i, ok := range ran {
		if ok {
			kept = append(kept, res.Reps[from+i])
		}
	}
	if len(kept) < total {
		res.interrupted = true
		res.Reps = kept
	}
	if len(res.Reps) > 0 {
		res.aggregate()
	}
}

// nextRound is the total number of replications after the next round of
// a run with a precision target that has not reached it (see Run).
func (res *Result) nextRound() int {
	c, n := res.cfg, len(res.Reps)
	lo, hi := n+(n+3)/4, min(4*n, c.MaxReps)
	want := hi
	if target := c.RelPrecision * math.Abs(res.Sojourn.Mean); target > 0 {
		r := res.Sojourn.HalfWidth / target
		if w := math.Ceil(1.1 * float64(n) * r * r); w < float64(hi) {
			want = int(w)
		}
	}
	return min(max(want, lo), hi)
}

// progress is the engine's progress callback, adding its arrivals to the
// run's and telling Settings.Progress (nil without one).
func (res *Result) progress() func(int64) {
	c := &res.cfg
	if c.Progress == nil {
		return nil
	}
	if res.arrivals == nil {
		res.arrivals = new(atomic.Int64)
	}
	total, done := int64(float64(c.maxReps())*c.cost().arrivals), res.arrivals
	return func(n int64) { c.Progress(done.Add(n), total, "") }
}

// runRep simulates replication rep of the normalized configuration c,
// telling progress (if not nil) of its arrivals.
func runRep(c config, rep int, progress func(int64)) Rep {
	e := newEngine(c, rep)
	e.progress = progress
	e.run()
	r := e.measure.rep(e.events, e.now)
	r.abandoned = e.abandoned
	if c.RecordFinal {
		r.FinalQueues = append([]int32(nil), e.queueLen...)
	}
	return r
}

// TrajectoryPoint is the replication mean of the state at one sample time.
type TrajectoryPoint struct {
	T         float64
	Busy      Estimate
	Occupancy [OccupancyLevels]Estimate
	Tokens    []Estimate
}

func (res *Result) trajectory() {
	c := res.cfg
	for j, t := range c.SampleTimes {
		p := TrajectoryPoint{T: t}
		x := make([]float64, len(res.Reps))
		each := func(f func(s *Sample) float64) Estimate {
			for i := range res.Reps {
				x[i] = f(&res.Reps[i].Samples[j])
			}
			return estimate(x, c.Level)
		}
		p.Busy = each(func(s *Sample) float64 { return s.Busy })
		for i := range OccupancyLevels {
			p.Occupancy[i] = each(func(s *Sample) float64 { return s.Occupancy[i] })
		}
		for r := range res.Reps[0].Samples[j].Tokens {
			p.Tokens = append(p.Tokens, each(func(s *Sample) float64 { return s.Tokens[r] }))
		}
		res.Trajectory = append(res.Trajectory, p)
	}
}

// aggregate forms the estimates: from replication means when there are
// several replications, from the batch means of one otherwise.
func (res *Result) aggregate() {
	c := res.cfg
	// A replication (or batch) in which no measured job was served (all
	// blocked) has no time in system to contribute, and one with no
	// measured arrival (a batch of a Horizon run) no fraction: they are
	// left out of those estimates rather than counted as zeros.
	var samples [nQuantities][]float64
	add := func(a batchSums) {
		for i, v := range a.means() {
			if (i <= qDelay && a.served == 0) || (i > qDelay && a.arrivals == 0) {
				continue
			}
			samples[i] = append(samples[i], v)
		}
	}
	if len(res.Reps) > 1 {
		for _, r := range res.Reps {
			var tot batchSums
			for _, b := range r.batch {
				tot.add(b)
			}
			add(tot)
		}
	} else {
		for _, b := range res.Reps[0].batch {
			add(b)
		}
	}
	var est [nQuantities]Estimate
	for i := range est {
		est[i] = estimate(samples[i], c.Level)
	}
	res.Sojourn, res.SlowdownTail = est[qSojourn], est[qSlowTail]
	res.Delay, res.BusyAtArrival = est[qDelay], est[qBusy]
	res.Blocking, res.RandomFraction = est[qBlocking], est[qRandom]
	res.Slowdown, res.SlowdownNote = nil, ""
	if finite, why := c.SlowdownFinite(); finite {
		res.Slowdown = &est[qSlowdown]
	} else {
		res.SlowdownNote = why
	}
	res.Wait, res.WaitProb = nil, nil
	if c.Discipline == farm.FCFS {
		res.Wait, res.WaitProb = &est[qDelay], &est[qBusy]
	}
	var boards, ranges, corrs []float64
	for _, r := range res.Reps {
		if r.Refreshes > 0 {
			boards = append(boards, r.BoardMean)
			ranges = append(ranges, r.BoardRange)
		}
		if r.Correlations > 0 {
			corrs = append(corrs, r.Correlation)
		}
	}
	res.BoardMean, res.BoardRange, res.Correlation = nil, nil, nil
	if len(boards) > 0 {
		b, r := estimate(boards, c.Level), estimate(ranges, c.Level)
		res.BoardMean, res.BoardRange = &b, &r
	}
	if len(corrs) > 0 {
		e := estimate(corrs, c.Level)
		res.Correlation = &e
	}
}

// estimate is the mean of independent samples with the half-widths of its
// Student-t intervals at 95% and at level.
//
// With no sample it is the zero Estimate (Samples 0), never a NaN.
func estimate(x []float64, level float64) Estimate {
	n := len(x)
	if n == 0 {
		return Estimate{Level: level}
	}
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	e := Estimate{Mean: m, Level: level, Samples: n}
	if n < 2 {
		return e
	}
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	e.CI95 = t.Quantile(0.975) * se
	e.HalfWidth = e.CI95
	if level != 0.95 {
		e.HalfWidth = t.Quantile(0.5+level/2) * se
	}
	return e
}
