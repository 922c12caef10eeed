package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/steadystate"
)

// Estimate is a simulated mean with its confidence interval.
//
// A steady-state estimate (Method batch_means, replicated_batch_means or
// replication_deletion; see package steadystate) deletes each
// replication's initial transient as MSER-5 finds it (Warmup
// observations in all), cuts the rest into Samples batch means of about
// BatchSize observations, as many as pass a lag-1 independence test, and
// gives the ratio estimator with its delta-method standard error, a
// Student-t quantile and Willink's correction for the skewness of the
// batch means: the interval [Lower, Upper] at Level is not symmetric.
// HalfWidth is its longer side and CI95 the longer side of the 95%
// interval, so Mean ± HalfWidth contains the interval. Steady false: the
// run found no steady state and the numbers are not steady-state
// estimates; Independent false: the batch means failed the test at the
// fewest batches tried (the interval is then too narrow).
//
// A transient estimate (Method transient; Settings.Transient, Horizon
// runs, and the correlation and trajectories of every run) is the mean
// over Samples independent replications, Student t with Samples − 1
// degrees of freedom, symmetric. With one sample there is no interval and
// both half-widths are 0.
type Estimate struct {
	Mean      float64 `json:"mean"`
	CI95      float64 `json:"ci95"`
	HalfWidth float64 `json:"half_width"`
	Level     float64 `json:"level"`
	Samples   int     `json:"samples"`
	// Lower and Upper bound the interval at Level.
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// Method says how the interval was formed.
	Method string `json:"method"`
	// BatchSize is the mean number of observations in a batch (steady
	// state), Warmup the observations deleted as the transient and
	// Effective those the estimate uses, all replications together.
	BatchSize   float64 `json:"batch_size"`
	Warmup      int64   `json:"warmup"`
	Effective   int64   `json:"effective_jobs"`
	Steady      bool    `json:"steady"`
	Independent bool    `json:"independent"`
	// Note says in one line what, if anything, is wrong.
	Note string `json:"note,omitempty"`
}

// Transient is the Method of an estimate across replications.
const Transient = "transient"

// Contains reports whether x lies within the 95% interval widened by
// allow.
func (e Estimate) Contains(x, allow float64) bool {
	return math.Abs(e.Mean-x) <= e.CI95+allow
}

// Covers reports whether x lies in [Lower, Upper], the interval at Level.
func (e Estimate) Covers(x float64) bool { return e.Lower <= x && x <= e.Upper }

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
	Samples []Sample
	Jobs    int64     // observed jobs
	Events  int64     // events simulated
	Time    float64   // simulated time
	tot     batchSums // the observed jobs' sums
	// The replication's job series (one observation per observed job)
	// and board series (one per refresh; nil without a board).
	jobs, board *steadystate.Series
	// measuredBoards and boardJobs: the board mean at each refresh after
	// the warm-up's end, and how many job observations preceded it.
	measuredBoards []float64
	boardJobs      []int64
	abandoned      bool // the run's Context ended it before the end
}

// Result of Run. T is a job's time in system and S its size.
//
// Its Status says how the run ended: PrecisionReached (a steady state was
// found and the interval of the mean time in system, and with JIQ blocking
// of the blocking, met Settings.RelPrecision), BudgetReached (steady-state
// estimates, but the budget or the fixed Jobs ran out first), NotSteady
// (no steady state inside the run: the estimates are not steady-state
// estimates and must not be reported as such; NeededJobs says how long a
// run would have to be at least), Completed for a transient run, or
// Interrupted when the run's Context ended it early (the estimates are
// then those of the work finished: a sequential run's observations so
// far, or the replications of a fixed run that finished, in order of
// their numbers, which may skip those abandoned; with nothing finished
// they are zero). Evaluations counts the events simulated, all
// replications together; Elapsed is the wall time.
type Result struct {
	outcome.Outcome
	// Model and Settings are the run's, normalized: their defaults filled
	// in (Dispatchers, Warmup, Reps, Level, RelPrecision, Budget, Beta).
	Model    Model
	Settings Settings
	// Plan is the planner's estimate, before any work, of what a
	// steady-state run of the model needs (nil for a transient run, or
	// where the planner has no model of the queue: Pareto sizes with
	// E[S³] = ∞, λ ≥ 1). PlanSound reports that it models the servers'
	// queues as the simulation has them (random dispatch or round robin:
	// independent GI/G/1 queues); for the other policies it is the farm
	// pooled into one queue, which relaxes faster than any of them.
	Plan      *steadystate.Plan
	PlanSound bool
	// Warnings are the planner's judgements of the run that did not
	// refuse it (a run shorter than recommended; only where PlanSound).
	Warnings []string
	// Sojourn is the mean time in system E[T] over the served jobs. Every
	// estimate leaves out what has nothing to average (no served job; no
	// arrival). A run in which no observed job is served at all is an
	// error; a Horizon run may end with none (Samples 0, Mean 0).
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
	// fraction of the observed arrivals (blocked ones included) sent to a
	// server that held at least one job. Under FCFS they are the mean wait
	// before service and the probability of waiting. Under PS no job
	// waits (each is served from its arrival): Delay is the time that
	// sharing the server cost, BusyAtArrival the probability of arriving
	// to share it.
	Delay, BusyAtArrival Estimate
	// Wait and WaitProb are the FCFS queueing wait E[W] and P(W > 0): under
	// FCFS equal to Delay and BusyAtArrival, nil under PS.
	Wait, WaitProb *Estimate
	// Blocking is the fraction of the observed arrivals lost (JIQ
	// blocking), RandomFraction the fraction sent without a token (JIQ
	// queueing).
	Blocking, RandomFraction Estimate
	// BoardMean is the mean board value at the refreshes (its own series,
	// truncated and batched the same way); nil when no board was kept
	// (Period = 0) or no refresh fell in the measured window, and so is
	// BoardRange (the mean range of the board at a refresh, longest less
	// shortest queue: the mean of each replication's refreshes after its
	// deleted warm-up, across the replications); Correlation (across
	// replications) is nil when it was not recorded.
	BoardMean, BoardRange, Correlation *Estimate
	// Tipped counts the replications that tipped (stale-board runs).
	Tipped int
	// Trajectory holds, for each of Settings.SampleTimes, the mean state over
	// the replications with its interval.
	Trajectory []TrajectoryPoint
	// Reps are the replications run.
	Reps []Rep
	// PrecisionReached reports Status PrecisionReached. Checks is the
	// number of times a sequential run analysed its series (1 for a run
	// of fixed length). NeededJobs is, when the precision was not
	// reached, about how many observed jobs in all would reach it (for
	// NotSteady a lower bound); 0 otherwise.
	PrecisionReached bool
	Checks           int
	NeededJobs       int64
	// Jobs observed in all replications.
	Jobs int64

	cfg         config        // the run, normalized
	workers     int           // replications run at once (config.workers)
	interrupted bool          // the Context ended the run early
	arrivals    *atomic.Int64 // arrivals simulated so far, for Settings.Progress
}

// Run simulates s.Reps independent replications of m, in parallel on
// s.Workers goroutines. A nil s means the default settings: a sequential
// steady-state run to the default precision. An invalid model or setting
// is an error naming the offending field, and so is a run that the
// planner finds hopeless before any work (see Plan).
//
// A sequential run (Jobs 0) observes every job from the start (after
// Settings.Warmup) and grows its replications together: each runs until
// its job series holds ⌈n/R⌉ observations, where n is the total that the
// steadystate.Controller names next, and the controller then analyses all
// of them — MSER-5 truncation of each, batch means tested for
// independence, the interval of the mean time in system — and stops at
// the precision or the budget, or names the next total (1.25 to 4 times
// the current one). The pauses are counts, not times, and replication r
// always uses the random stream of (s.Seed, r), so the result depends
// only on m and s (not on Workers or GOMAXPROCS). A run of fixed Jobs
// runs each replication to its end and analyses it once.
//
// Before any work, for a steady-state run, the planner estimates the
// relaxation time of a server's queue (Whitt's heavy-traffic
// approximation) and refuses a model so close to λ = 1 that no run
// reaches steady state, and a run whose replications cannot cover
// steadystate.RefuseRelaxations relaxation times of a server's queue (for
// random dispatch and round robin, where the planner models the queues;
// a warning otherwise); shorter than recommended is a warning
// (Result.Warnings). A sequential run of random dispatch or round robin
// does not stop before each replication covers SequentialRelaxations.
func Run(m *Model, s *Settings) (*Result, error) {
	c, err := newConfig(m, s).normalized()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &Result{Model: c.Model, Settings: c.Settings, cfg: c}
	var ctl *steadystate.Controller
	if c.steady() {
		if ctl, err = res.planned(); err != nil {
			return nil, err
		}
	}
	res.workers = c.workers()
	switch {
	case c.sequential():
		res.runSequential(ctl)
	default:
		res.runFixed(ctl)
	}
	if len(res.Reps) > 0 && res.Sojourn.Samples == 0 && c.Horizon == 0 && res.Sojourn.Method == Transient {
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

// planned works out the plan of a steady-state run, refuses it when the
// plan says no run (or this one) can reach a steady state, and returns
// the run's controller.
func (res *Result) planned() (*steadystate.Controller, error) {
	c := &res.cfg
	st := res.steadySettings(c.Level)
	pm, sound, ok := c.planModel()
	var minObs int64
	if ok {
		p, err := steadystate.NewPlan(pm, st)
		if err != nil {
			var pe *param.Error
			if errors.As(err, &pe) && pe.Param == "Load" {
				return nil, param.Errorf("Load", "%s. The transient from the start can still be simulated: a run of fixed Jobs with Transient set", strings.TrimPrefix(err.Error(), "Load: "))
			}
			return nil, err
		}
		res.Plan, res.PlanSound = p, sound
		if c.sequential() {
			if sound && c.Warmup == 0 {
				// The default deletion: the first WarmupRelaxations
				// relaxation times of each replication (see there).
				c.Warmup = int(min(math.Ceil(WarmupRelaxations*p.JobsPerRelaxation), math.MaxInt32))
				res.Settings.Warmup = c.Warmup
			}
			if sound {
				minObs = int64(math.Ceil(SequentialRelaxations*p.JobsPerRelaxation)) * int64(c.Reps)
				if minObs > c.Budget {
					return nil, param.Errorf("Budget", "each of the %d replications must cover %d relaxation times of a server's queue (τ ≈ %.3g mean service times, %.3g jobs of all %d servers each) before it may stop: at least %d jobs in all, more than the budget of %d (a larger budget, fewer servers or a lower load; or a transient run of fixed Jobs)",
						c.Reps, SequentialRelaxations, p.RelaxationTime, p.JobsPerRelaxation, c.Servers, minObs, c.Budget)
				}
				if p.Recommended*int64(c.Reps) > c.Budget {
					res.Warnings = append(res.Warnings, fmt.Sprintf("the budget of %d jobs is below the %d that %d replications of the recommended length need: the run may end at its budget", c.Budget, p.Recommended*int64(c.Reps), c.Reps))
				}
			}
		} else {
			a := p.Assess(int64(c.Jobs), c.Reps)
			switch {
			case !sound:
				// The pooled queue bounds the relaxation from below and
				// says nothing of the run a policy's precision needs.
			case a.Verdict == steadystate.Hopeless:
				return nil, param.Errorf("Jobs", "%d jobs per replication cannot reach a steady state: %s (or leave Jobs 0 for a run whose length is chosen from the precision, or set Transient for the transient from the start)", c.Jobs, a.Reason)
			case a.Verdict == steadystate.Short:
				res.Warnings = append(res.Warnings, a.Reason)
			}
		}
	}
	st.MinObservations = minObs
	return steadystate.NewController(st)
}

// SequentialRelaxations is the fewest relaxation times of a server's queue
// that each replication of a sequential run covers before it may stop,
// under random dispatch and round robin (where the planner models the
// queues). A run from the empty start reads low by its initialisation
// bias, of order τ/(run length) after MSER's truncation; at 20 relaxation
// times (steadystate.RefuseRelaxations, the least for any steady-state
// run) the 95% interval of M/G/1 with H2 sizes of SCV 10 covered the
// exact mean in 89.5% of 200 runs, 17 of the 21 misses low; 40 halves
// that bias.
const SequentialRelaxations = 40

// WarmupRelaxations is how many relaxation times of a server's queue a
// sequential run deletes from the start of each replication by default
// (Settings.Warmup 0), under random dispatch and round robin, before
// MSER-5 looks for the rest of the transient. An empty start's deficit
// decays on the time scale τ, but under heavy-tailed sizes it hides in
// the noise where MSER cannot see it: with H2 sizes of SCV 30 under PS
// (λ = 0.8, N = 10, 10% precision) MSER deleted almost nothing, the runs
// read about 2% low over their 49 relaxation times and the 95% interval
// covered the exact mean in 88% of 200 runs, 23 of the 24 misses low.
// Two relaxation times leave about e⁻² of that deficit, for 4% of the
// run.
const WarmupRelaxations = 2

// MaxBatches and MinBatches bound the batch means of a steady-state
// estimate, all replications together: 32 to 16 (31 to 15 degrees of
// freedom), rather than steadystate's 64 to 32. The independence test
// cuts four times as many batches, each of which must span several
// correlation times of a server's queue; where the correlation, not the
// precision, sets the run (heavy-traffic queues of many servers: the
// per-job series of N servers at ρ = 0.9 decorrelates over about
// 0.45·N·τ_r jobs), halving the batches halves the run, at a cost of
// about half a point of coverage (measured in steadystate's coverage
// tests).
const (
	MaxBatches = 32
	MinBatches = 16
)

// steadySettings are the steadystate settings of the run at level: the
// mean time in system as the primary target, and with JIQ blocking the
// blocking too (to RelPrecision or ±AbsPrecision).
func (res *Result) steadySettings(level float64) *steadystate.Settings {
	c := &res.cfg
	t := []steadystate.Quantity{jobQuantities[qSojourn]}
	if c.Policy.Kind == farm.JIQBlocking {
		t = append(t, jobQuantities[qBlocking])
	}
	return &steadystate.Settings{Targets: t, Level: level, Precision: c.RelPrecision, AbsPrecision: AbsPrecision, Budget: max(c.Budget, 1),
		MaxBatches: MaxBatches, MinBatches: MinBatches}
}

// planModel is the planner's model of c (see Result.Plan): ok false where
// it has none.
func (c *config) planModel() (m steadystate.Model, sound, ok bool) {
	if c.Load >= 1 {
		return m, false, false
	}
	z := c.Sizes
	m = steadystate.Model{Servers: 1, Load: c.Load, ArrivalSCV: 1, SizeSCV: z.SquaredCV()}
	switch z.Kind {
	case farm.Exponential:
		m.SizeMoment3 = 6
	case farm.Deterministic:
		m.SizeMoment3 = 1
	case farm.H2:
		p, giant, small := farm.H2Params(z.SCV)
		m.SizeMoment3 = 6 * (p*giant*giant*giant + (1-p)*small*small*small)
	case farm.Pareto:
		if z.Shape <= 3 {
			return m, false, false // E[S³] = ∞
		}
		xm := (z.Shape - 1) / z.Shape
		m.SizeMoment3 = xm * xm * xm * z.Shape / (z.Shape - 3)
	}
	switch c.Policy.Kind {
	case farm.Random:
		m.Servers, sound = c.Servers, true
	case farm.RoundRobin:
		m.Servers, sound = c.Servers, true
		if c.Dispatchers == 1 {
			m.ArrivalSCV = 1 / float64(c.Servers) // Erlang-N interarrival times at each server
		}
	}
	if m.ArrivalSCV+m.SizeSCV == 0 {
		return m, false, false // D/D/1: nothing to relax
	}
	return m, sound, true
}

// runFixed runs every replication to its end and analyses them once.
func (res *Result) runFixed(ctl *steadystate.Controller) {
	c := res.cfg
	res.Reps = make([]Rep, c.Reps)
	ran := make([]bool, c.Reps)
	_ = parallel.For(c.Reps, res.workers, nil, func(i int) error {
		if c.Stopped() {
			return nil
		}
		if r := runRep(c, i, res.progress()); !r.abandoned {
			res.Reps[i], ran[i] = r, true
		}
		return nil
	})
	kept := res.Reps[:0]
	for i, ok := range ran {
		if ok {
			kept = append(kept, res.Reps[i])
		}
	}
	if len(kept) < c.Reps {
		res.interrupted = true
	}
	res.Reps = kept
	res.Checks = 1
	if len(res.Reps) == 0 {
		res.Status = outcome.Interrupted
		return
	}
	if ctl == nil {
		res.aggregateTransient()
		res.Status = outcome.Completed
	} else {
		res.analyse(ctl, ctl.Final(res.series()...))
	}
	if res.interrupted {
		res.Status = outcome.Interrupted
	}
}

// runSequential grows the replications together until the controller
// stops (see Run).
func (res *Result) runSequential(ctl *steadystate.Controller) {
	c := res.cfg
	engines := make([]*engine, c.Reps)
	for i := range engines {
		engines[i] = newEngine(c, i)
	}
	started := make([]bool, c.Reps)
	series := make([]*steadystate.Series, c.Reps)
	for i, e := range engines {
		series[i] = e.measure.jobs
	}
	d := ctl.Check(series...)
	for !d.Stop() {
		share := (d.Next + int64(c.Reps) - 1) / int64(c.Reps)
		_ = parallel.For(c.Reps, res.workers, nil, func(i int) error {
			e := engines[i]
			if c.Stopped() || e.abandoned {
				return nil
			}
			e.progress = res.progress()
			e.measure.pauseAt = share
			if !started[i] {
				e.start()
				started[i] = true
			}
			e.loop()
			return nil
		})
		if c.Stopped() {
			res.interrupted = true
			break
		}
		d = ctl.Check(series...)
	}
	res.Reps = make([]Rep, 0, c.Reps)
	for _, e := range engines {
		if !started[e.repIndex] {
			continue
		}
		res.Reps = append(res.Reps, e.rep())
	}
	if res.interrupted {
		if len(res.Reps) == 0 {
			res.Status = outcome.Interrupted
			return
		}
		d = ctl.Final(res.series()...)
	}
	res.analyse(ctl, d)
	if res.interrupted {
		res.Status = outcome.Interrupted
	}
}

// series are the job series of the replications run.
func (res *Result) series() []*steadystate.Series {
	s := make([]*steadystate.Series, len(res.Reps))
	for i := range res.Reps {
		s[i] = res.Reps[i].jobs
	}
	return s
}

// analyse forms the steady-state estimates from the replications' series
// and the controller's last decision d.
func (res *Result) analyse(ctl *steadystate.Controller, d steadystate.Decision) {
	c := &res.cfg
	res.Status = d.Status
	res.PrecisionReached = d.Status == outcome.PrecisionReached
	res.Checks = d.Checks
	res.NeededJobs = d.Needed
	jobs := res.series()
	// The 95% half-width beside the one at Level.
	var ctl95 *steadystate.Controller
	if c.Level != 0.95 {
		var err error
		if ctl95, err = steadystate.NewController(res.steadySettings(0.95)); err != nil {
			panic(err) // the same settings at another valid level
		}
	}
	est := func(q steadystate.Quantity, reps []*steadystate.Series) Estimate {
		e := ctl.Analyze(q, reps...)
		e95 := e
		if ctl95 != nil {
			e95 = ctl95.Analyze(q, reps...)
		}
		return steadyEstimate(e, e95)
	}
	var all [nQuantities]Estimate
	for i, q := range jobQuantities {
		all[i] = est(q, jobs)
	}
	res.setJobEstimates(all)
	res.BoardMean, res.BoardRange, res.Correlation = nil, nil, nil
	var boards []*steadystate.Series
	var ranges []float64
	for _, r := range res.Reps {
		if r.board != nil && r.board.Count() > 0 {
			boards = append(boards, r.board)
		}
		if r.Refreshes > 0 {
			ranges = append(ranges, r.BoardRange)
		}
	}
	if len(ranges) > 0 {
		rg := estimate(ranges, c.Level)
		res.BoardRange = &rg
	}
	if len(boards) > 0 {
		b := est(steadystate.MeanOf("board_mean", 0), boards)
		if b.Samples == 0 && !b.Steady {
			b = res.shortBoardMean()
		}
		res.BoardMean = &b
	}
	res.correlation()
}

// shortBoardMean is the board mean of a steady-state run with too few
// refreshes for a steady-state analysis of the board (a few periods of a
// slow board): in each replication, the mean over its refreshes after the
// job series' warm-up (the MSER truncation of the time in system, which
// the board's few refreshes cannot find themselves: from an empty start
// the first refreshes of a slow board show a farm still filling, 0 and 8
// where the settled board shows 364 at T = 2,000), across the
// replications, as a transient estimate whose note says so. A replication
// with no refresh after its warm-up is left out.
func (res *Result) shortBoardMean() Estimate {
	c := res.cfg
	var x []float64
	kept := 0
	for _, r := range res.Reps {
		if len(r.measuredBoards) == 0 || r.jobs == nil {
			continue
		}
		cut := steadystate.Truncate(jobQuantities[qSojourn], r.jobs).Point
		var sum float64
		n := 0
		for i, v := range r.measuredBoards {
			if r.boardJobs[i] >= cut {
				sum += v
				n++
			}
		}
		if n > 0 {
			x = append(x, sum/float64(n))
			kept += n
		}
	}
	b := estimate(x, c.Level)
	b.Note = fmt.Sprintf("too few refreshes for a steady-state analysis of the board: the replication means of the %d refreshes after the time in system's warm-up", kept)
	return b
}

// steadyEstimate is a steadystate estimate e at the run's level, with e95
// the same at 95%.
func steadyEstimate(e, e95 steadystate.Estimate) Estimate {
	x := Estimate{Level: e.Level, Method: e.Method, Note: e.Note, Steady: e.Steady && e.Valid, Independent: e.Independent}
	if !e.Valid {
		return x
	}
	x.Mean, x.HalfWidth, x.Lower, x.Upper = e.Mean, e.HalfWidth, e.Lower, e.Upper
	x.Samples, x.BatchSize, x.Warmup, x.Effective = e.Batches, e.BatchSize, e.Warmup, e.Effective
	x.CI95 = e95.HalfWidth
	return x
}

// setJobEstimates sets the per-job estimates of the result.
func (res *Result) setJobEstimates(est [nQuantities]Estimate) {
	c := &res.cfg
	res.Sojourn, res.SlowdownTail = est[qSojourn], est[qSlowTail]
	res.Delay, res.BusyAtArrival = est[qDelay], est[qBusy]
	res.Blocking, res.RandomFraction = est[qBlocking], est[qRandom]
	res.Slowdown, res.SlowdownNote = nil, ""
	if finite, why := c.SlowdownFinite(); finite {
		s := est[qSlowdown]
		res.Slowdown = &s
	} else {
		res.SlowdownNote = why
	}
	res.Wait, res.WaitProb = nil, nil
	if c.Discipline == farm.FCFS {
		w, p := est[qDelay], est[qBusy]
		res.Wait, res.WaitProb = &w, &p
	}
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
	total, done := int64(float64(c.Reps)*c.cost().arrivals), res.arrivals
	return func(n int64) { c.Progress(done.Add(n), total, "") }
}

// runRep simulates replication rep of the normalized configuration c,
// telling progress (if not nil) of its arrivals.
func runRep(c config, rep int, progress func(int64)) Rep {
	e := newEngine(c, rep)
	e.progress = progress
	e.run()
	return e.rep()
}

// rep is the engine's replication as it stands.
func (e *engine) rep() Rep {
	r := e.measure.rep(e.events, e.now)
	r.abandoned = e.abandoned
	if e.cfg.RecordFinal {
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
		x := make([]float64, 0, len(res.Reps))
		each := func(f func(s *Sample) float64) Estimate {
			x = x[:0]
			for i := range res.Reps {
				if j < len(res.Reps[i].Samples) {
					x = append(x, f(&res.Reps[i].Samples[j]))
				}
			}
			return estimate(x, c.Level)
		}
		if len(res.Reps[0].Samples) <= j {
			break
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

// aggregateTransient forms the estimates of a transient run from the
// replication means.
func (res *Result) aggregateTransient() {
	c := res.cfg
	// A replication in which no measured job was served (all blocked) has
	// no time in system to contribute, and one with no measured arrival no
	// fraction: they are left out of those estimates rather than counted
	// as zeros.
	var samples [nQuantities][]float64
	for _, r := range res.Reps {
		a := r.tot
		for i, v := range a.means() {
			if (i <= qDelay && a.served == 0) || (i > qDelay && a.arrivals == 0) {
				continue
			}
			samples[i] = append(samples[i], v)
		}
	}
	var est [nQuantities]Estimate
	for i := range est {
		est[i] = estimate(samples[i], c.Level)
	}
	res.setJobEstimates(est)
	var boards, ranges []float64
	for _, r := range res.Reps {
		if r.Refreshes > 0 {
			boards = append(boards, r.BoardMean)
			ranges = append(ranges, r.BoardRange)
		}
	}
	res.BoardMean, res.BoardRange = nil, nil
	if len(boards) > 0 {
		b, r := estimate(boards, c.Level), estimate(ranges, c.Level)
		res.BoardMean, res.BoardRange = &b, &r
	}
	res.correlation()
}

// correlation sets the mean correlation across the replications.
func (res *Result) correlation() {
	var corrs []float64
	for _, r := range res.Reps {
		if r.Correlations > 0 {
			corrs = append(corrs, r.Correlation)
		}
	}
	res.Correlation = nil
	if len(corrs) > 0 {
		e := estimate(corrs, res.cfg.Level)
		res.Correlation = &e
	}
}

// estimate is the mean of independent samples with the half-widths of its
// Student-t intervals at 95% and at level (Method transient).
//
// With no sample it is the zero Estimate (Samples 0), never a NaN.
func estimate(x []float64, level float64) Estimate {
	n := len(x)
	if n == 0 {
		return Estimate{Level: level, Method: Transient}
	}
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	e := Estimate{Mean: m, Level: level, Samples: n, Method: Transient, Lower: m, Upper: m, Steady: false, Independent: true}
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
	e.Lower, e.Upper = m-e.HalfWidth, m+e.HalfWidth
	return e
}
