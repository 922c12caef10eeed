package main

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/sim"
)

type simOptions struct {
	servers     int
	load        float64
	dispatchers int
	alpha       []float64
	discipline  string
	sizes       string
	policy      string
	replacement bool
	period      float64
	beta        []float64
	exchange    float64
	start       string
	push        string
	jobs        int
	warmup      int
	reps        int
	level       float64
	relPrec     float64
	budget      int64
	transient   bool
	seed        uint64
	workers     int
	corrAge     float64
	series      bool
	json        bool
	csv         bool
}

// simLong is the command's help.
const simLong = `sim runs the embedded discrete-event simulator: N servers (FCFS or processor
sharing), Poisson arrivals of rate λN split over k dispatchers, job sizes of mean 1,
and a dispatch policy. It reports steady-state means with confidence intervals
(--level, default 95%): the mean time in system and, where they apply, blocking,
waiting, the fraction of JIQ jobs sent at random, the mean board value at the
refreshes and whether stale-board runs tipped into the herd.

How long it runs: by default until the mean time in system is known to 2% at 95%
(--rel-precision; the half-width is then at most 0.02/1.02 of the mean, so the
relative error is at most 2% with probability 95%; with jiq-blocking the blocking
too, to 2% or ±0.001), or --budget jobs in all (10⁹) are spent. --jobs N fixes
the run instead (N observed jobs per replication, for scripts that need a fixed
cost); it is then analysed the same way, and exits 0 even if it misses the
precision (status budget_reached: steady-state estimates, wider intervals).

Method (Law & Kelton; White's MSER; Fishman; Willink): every job is observed from
the empty start; in each of --reps replications the end of the initial transient
is found in the data (MSER-5 truncation, reported as the warm-up); the rest is cut
into batch means, growing the batches until they pass a lag-1 (von Neumann)
independence test (16 to 32 batches in all, pooled over the replications: the
method is batch_means, replicated_batch_means or replication_deletion); the
interval is Student t on them with a correction for their skewness, so it is not
symmetric around the mean. A run that finds no steady state (the transient takes
more than half of it) prints no steady-state number: status not_steady, with the
run length that would be needed.

Before any work, the relaxation time of a server's queue (Whitt's heavy-traffic
approximation, (c_a² + c_s²)/(2(1 − √λ)²) mean service times) decides whether the
run can reach steady state: a load so close to 1 that no run can (λ = 1 − 10⁻¹²),
or replications too short to cover 20 relaxation times of each server's queue
(random and rr: --servers 100000 --jobs 10000), are refused; shorter than
recommended is a warning. --transient measures a fixed --jobs run from its start
instead (means over the observed jobs, intervals across replications): the
transient, not a steady state.

Time in system / size (the slowdown) is reported only where its mean is finite:
under PS, under JIQ blocking (no job waits) and with sizes bounded away from 0
(det, pareto). Under FCFS with exp or h2 sizes the wait is independent of the
size and E[1/size] = ∞, so the mean is infinite: sim says so and gives
P(time in system > 10 × size) instead. Under PS no job waits in a queue: sim
reports the mean delay (time in system − size) and P(server busy at arrival)
rather than a wait.

Policies: random, rr (round robin), jsq (least loaded, live), jsqd:D (best of D,
live), least-work (oracle), board-jsq and board-jsqd:D (on a board refreshed every
--period), tally (board + each dispatcher's own sends), shared-tally,
partitioned, tally-jsqd:D, jiq-blocking and jiq-queueing.
Sizes: exp, det, h2:SCV (balanced-means hyperexponential), pareto:SHAPE (type I,
mean 1, SCV 1/(a(a−2)) for a > 2). Starts: empty, balanced:L, half:B (half the
servers with B jobs), spread:S (0..S), hot:X (one server with X jobs).

Refused before anything runs (exit status 2, naming the flag), so that no input
exhausts the machine or prints a number the run cannot support:
  - work beyond 10¹² operations in all (arrivals, policy work such as the D draws
    of best of D or least-work's scan of N servers, board reads), about a day of
    one core; a replication whose state needs over 2 GiB (about 10⁷ servers);
    fewer replications run at once than --workers if they would not fit in 4 GiB;
  - more than 1,000 board refreshes or token exchanges, or 10 correlation
    snapshots, per arrival (--period ≥ 1/(1000·λN), --exchange ≤ 1000·λ,
    --correlation-age ≥ 1/(10·λN)), or a replication longer than 2⁴⁰ mean
    service times;
  - job sizes whose mean a replication (a batch, with --reps 1) cannot resolve:
    the mean size of n jobs typically misses by √(SCV/n), by about n^(−(a−1)/a)
    for pareto:a with a ≤ 2, and over max(10%, 3/√n) is refused. h2:SCV needs
    --jobs ≥ 100·SCV unless SCV ≤ 9; pareto:1.3 needs about 70,000 jobs, 1.2 three
    million, 1.15 over 10⁸, and shapes near 1 no feasible run;
  - pareto:a with a ≤ 2 under FCFS: E[size²] = ∞ makes the mean time in system
    infinite under every policy that may queue a job behind another job of
    unknown size (all but jiq-blocking, and least-work, the M/G/N queue, with
    a > 1 + 1/(N − ⌊λN⌋)); under --discipline ps it is finite;
  - jiq-blocking at λ ≥ 1, which serves at most 1 job in λ, unless each
    replication (batch) keeps at least 10 served jobs to measure: λ ≤ --jobs/10.

A run is a pure function of its flags and --seed. Ctrl-C stops it and reports
the replications that finished (status interrupted; exit status 130).

One value per flag: for a grid of loads, policies or sizes, use fluid sweep sim.`

func newSim() *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a finite-N server farm (every system fluid models)",
		Long:  simLong,
		Example: `  fluid sim --servers 100 --load 0.9 --policy jsqd:2 --sizes h2:30 --discipline ps
  fluid sim --servers 100 -k 5 --policy tally --period 1100 --start half:110 --jobs 2000000
  fluid sim --servers 100 --load 0.9 --alpha 0.7,0.3 --policy jiq-blocking --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.servers, "servers", 100, concept("servers", ""))
	f.Float64Var(&o.load, "load", 0.9, concept("load", "< 1 except for jiq-blocking"))
	f.IntVarP(&o.dispatchers, "dispatchers", "k", 1, concept("dispatchers", "equal shares unless --alpha gives them"))
	f.Float64SliceVar(&o.alpha, "alpha", nil, concept("alpha", "default equal shares of --dispatchers"))
	f.StringVar(&o.discipline, "discipline", "fcfs", "server discipline: fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "job sizes (mean 1): exp, det, h2:SCV or pareto:SHAPE")
	f.StringVar(&o.policy, "policy", "random", "dispatch policy (see above)")
	f.BoolVar(&o.replacement, "replacement", false, "best of D samples with replacement (jsqd:D, board-jsqd:D, tally-jsqd:D only)")
	f.Float64Var(&o.period, "period", 0, concept("period", "board policies; with others it only records the board"))
	f.Float64SliceVar(&o.beta, "beta", nil, concept("beta", "JIQ policies (token allotment)"))
	f.Float64Var(&o.exchange, "exchange", 0, concept("exchange", "JIQ policies")+" (≥ 0)")
	f.StringVar(&o.start, "start", "empty", "initial state: empty, balanced:L, half:B, spread:S or hot:X (jobs per server, or a multiple of T: half:0.1T)")
	f.StringVar(&o.push, "push", "none", "a disturbance part-way through the run: backlog:F:B, half:B, spread:S or hot:X extra jobs, @n at refresh n (half:0.1T@20; part-way: with --transient)")
	f.IntVar(&o.jobs, "jobs", 0, "observed jobs per replication: a run of fixed length (0: run until --rel-precision is reached)")
	f.IntVar(&o.warmup, "warmup", 0, "jobs per replication deleted before any analysis, beside the warm-up found in the data (0: none)")
	f.IntVar(&o.reps, "reps", sim.DefaultReps, "independent replications")
	f.Float64Var(&o.level, "level", sim.DefaultLevel, "confidence level of the intervals, in (0, 1) (the JSON keeps ci95 at 95%)")
	f.Float64Var(&o.relPrec, "rel-precision", sim.DefaultPrecision, "relative error of the mean time in system to reach at --level (the run's length, unless --jobs)")
	f.Int64Var(&o.budget, "budget", sim.DefaultBudget, "most jobs a run without --jobs observes, all replications together")
	f.BoolVar(&o.transient, "transient", false, "with --jobs: measure the run from its start as a transient (no steady state, no warm-up found; intervals across replications)")
	f.Uint64Var(&o.seed, "seed", 1, "random seed")
	f.IntVar(&o.workers, "workers", 0, "replications run at once (0: all cores; fewer if they would not fit in 4 GiB); results do not depend on it")
	f.Float64Var(&o.corrAge, "correlation-age", 0, "record the correlation of a server's queue lengths this far apart, in mean service times (0: off)")
	f.BoolVar(&o.series, "series", false, "with --json: include each replication's board mean at every refresh (at most 10⁷ numbers in all)")
	f.BoolVar(&o.csv, "csv", false, "write the results as CSV, one row (columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Sim; schema in docs/schema/sim.json)")
	declare(cmd,
		flagRule{flag: "servers", field: "Servers"}, flagRule{flag: "load", field: "Load"},
		flagRule{flag: "dispatchers", field: "Dispatchers"}, flagRule{flag: "alpha", field: "Alpha"},
		flagRule{flag: "discipline", field: "Discipline"}, flagRule{flag: "sizes", field: "Sizes"},
		flagRule{flag: "policy", field: "Policy"}, flagRule{flag: "period", field: "Period"},
		flagRule{flag: "beta", field: "Beta"}, flagRule{flag: "exchange", field: "Exchange"},
		flagRule{flag: "start", field: "Start"}, flagRule{flag: "push", field: "Push"},
		flagRule{flag: "jobs", field: "Jobs"},
		flagRule{flag: "warmup", field: "Warmup"}, flagRule{flag: "reps", field: "Reps"},
		flagRule{flag: "level", field: "Level"}, flagRule{flag: "rel-precision", field: "RelPrecision"},
		flagRule{flag: "budget", field: "Budget", when: needs(func() bool { return o.jobs == 0 }, "a run of fixed --jobs has no budget: drop --jobs or --budget")},
		flagRule{flag: "transient", when: needs(func() bool { return o.jobs > 0 }, "a transient is measured over a fixed number of jobs from the start: add --jobs N")},
		flagRule{flag: "seed", field: "Seed"},
		flagRule{flag: "workers", field: "Workers", rng: in(0, maxWorkers, "2")},
		flagRule{flag: "correlation-age", field: "CorrelationAge"}, flagRule{flag: "series", field: "Series"},
	)
	cmd.Annotations[fieldKey+"D"] = "--policy\x00--policy" // the D of jsqd:D
	return cmd
}

// maxSeries bounds the board means that --series writes, all
// replications together (about 200 MB of JSON).
const maxSeries = 10_000_000

// simInputs are the model and settings the flags ask for, each flag
// checked against its range.
func simInputs(cmd *cobra.Command, o *simOptions) (m *sim.Model, set *sim.Settings, err error) {
	m = &sim.Model{Servers: o.servers, Load: o.load, Alpha: o.alpha, Period: o.period, Beta: o.beta, Exchange: o.exchange}
	set = &sim.Settings{Jobs: o.jobs, Warmup: o.warmup, Reps: o.reps, Level: o.level, RelPrecision: o.relPrec,
		Seed: o.seed, CorrelationAge: o.corrAge, Series: o.series, Transient: o.transient}
	set.Workers = o.workers
	if o.jobs < 0 {
		return nil, nil, usagef("invalid --jobs: %d, want at least 1 (or 0: run to the precision)", o.jobs)
	}
	if o.transient && o.jobs == 0 {
		return nil, nil, usagef("--transient needs --jobs: a transient is measured over a fixed number of jobs from the start")
	}
	if o.budget < 1 {
		return nil, nil, usagef("invalid --budget: %d jobs, want at least 1", o.budget)
	}
	if o.jobs == 0 {
		set.Budget = o.budget
	} else if cmd.Flags().Changed("budget") {
		return nil, nil, usagef("--budget applies to a run without --jobs (its length chosen from the precision); --jobs fixes the run")
	}
	if o.relPrec <= 0 || o.relPrec >= 1 {
		return nil, nil, usagef("invalid --rel-precision: %v, want 0 < ε < 1 (e.g. 0.02)", o.relPrec)
	}
	if o.reps < 1 {
		return nil, nil, usagef("invalid --reps: %d, want at least 1", o.reps)
	}
	if o.warmup < 0 {
		return nil, nil, usagef("invalid --warmup: %d, want ≥ 0", o.warmup)
	}
	if o.dispatchers < 1 {
		return nil, nil, usagef("invalid --dispatchers: k = %d, want at least 1", o.dispatchers)
	}
	if o.alpha == nil || cmd.Flags().Changed("dispatchers") {
		m.Dispatchers = o.dispatchers
	}
	if m.Discipline, err = farm.ParseDiscipline(o.discipline); err != nil {
		return nil, nil, err
	}
	if m.Sizes, err = farm.ParseSizes(o.sizes); err != nil {
		return nil, nil, err
	}
	if m.Policy, err = farm.ParsePolicy(o.policy); err != nil {
		return nil, nil, err
	}
	if o.replacement && !m.Policy.Sampled() {
		return nil, nil, usagef("invalid --replacement: policy %v samples no servers; --replacement applies only to jsqd:D, board-jsqd:D and tally-jsqd:D", m.Policy)
	}
	m.Policy.Replacement = o.replacement
	if m.Start, err = farm.ParseStart(o.start); err != nil {
		return nil, nil, err
	}
	if m.Push, err = farm.ParsePush(o.push); err != nil {
		return nil, nil, err
	}
	if o.level == 0 {
		return nil, nil, usagef("invalid --level: 0, want 0 < level < 1 (e.g. 0.95)")
	}
	return m, set, nil
}

func runSim(stdout, stderr io.Writer, cmd *cobra.Command, o *simOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	if o.series && !o.json {
		return usagef("--series needs --json: the series are written only in JSON")
	}
	m, set, err := simInputs(cmd, o)
	if err != nil {
		return err
	}
	// Every bound is checked before anything is simulated or allocated.
	if _, _, err := sim.Normalized(m, set); err != nil {
		return err
	}
	if n := sim.ExpectedRefreshes(m, set); o.series && n > maxSeries {
		return usagef("invalid --series: the board series would hold about %.3g numbers in all, more than the %.0e that --json writes (about 20 bytes each); a longer --period, fewer --jobs or --reps", n, float64(maxSeries))
	}
	// Progress bar on a terminal for runs expected to take over a second;
	// with a precision target it counts up to the cap.
	// Ctrl-C (or SIGTERM) stops the run and prints the finished
	// replications; a second signal ends the process.
	c := startComputation(stderr, "simulating", "stopping the simulation; the finished replications follow")
	defer c.stop()
	c.least = 5_000_000 // arrivals: a bar for runs expected to take over a second
	set.Run = c.run(o.workers)
	res, err := sim.Run(m, set)
	c.done()
	if err != nil {
		return err
	}
	if res.Status == outcome.Interrupted && len(res.Reps) == 0 {
		return c.interruptedBefore(stdout, output{json: o.json}, "sim", "no replication had finished")
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "fluid sim: warning: %s\n", w)
	}

	rep := simReportOf(res, o.series)
	if err := finiteReport(rep); err != nil {
		return err
	}
	if err := emit(stdout, output{json: o.json, csv: o.csv}, rep, func(w io.Writer) error { return writeSimText(w, res, rep) }); err != nil {
		return err
	}
	if o.jobs > 0 && res.Status == outcome.BudgetReached {
		// A run of fixed length did what it was asked: its estimates are
		// steady-state ones, wider than --rel-precision (the report says
		// budget_reached).
		return nil
	}
	failed := fmt.Sprintf("the precision of %g was not reached within %d jobs: the intervals are wider than asked for", res.Settings.RelPrecision, res.Jobs)
	if res.Status == outcome.NotSteady {
		failed = fmt.Sprintf("no steady state was found within %d jobs: no steady-state estimate is reported; about %d jobs in all would be needed", res.Jobs, res.NeededJobs)
	}
	return c.ended(res.Status, failed,
		fmt.Sprintf("the results are those of the work that finished, %d jobs (status interrupted)", res.Jobs))
}

func simReportOf(res *sim.Result, series bool) *report.Sim {
	m, st := &res.Model, &res.Settings
	seconds := res.Elapsed.Seconds()
	eps := 0.0
	if seconds > 0 {
		eps = float64(res.Evaluations) / seconds
	}
	soj := res.Sojourn
	rep := &report.Sim{
		Header: report.NewHeader("sim"),
		Config: m.Describe(), Seed: st.Seed, Servers: m.Servers, Load: m.Load, Dispatchers: m.Dispatchers, Alpha: m.Alpha,
		Policy: m.Policy.String(), Replacement: m.Policy.Replacement, Discipline: m.Discipline.String(), Sizes: m.Sizes.String(),
		Start: m.Start.String(), Jobs: st.Jobs, Deleted: st.Warmup, Level: st.Level, RelPrecision: st.RelPrecision,
		Transient: st.Transient,
		Status:    res.Status.Name(), PrecisionReached: res.PrecisionReached, Reps: len(res.Reps), Analyses: res.Checks, NeededJobs: res.NeededJobs,
		Method: soj.Method, Batches: soj.Samples, BatchSize: soj.BatchSize, Warmup: soj.Warmup, EffectiveJobs: soj.Effective,
		Mean: soj.Mean, CI95: soj.CI95, HalfWidth: soj.HalfWidth,
		Sojourn: estimate(res.Sojourn), Slowdown: estimatePtr(res.Slowdown), SlowdownOver10: estimate(res.SlowdownTail),
		MeanWait: estimatePtr(res.Wait), ProbWait: estimatePtr(res.WaitProb), MeanDelay: estimate(res.Delay), BusyAtArrival: estimate(res.BusyAtArrival),
		BoardMean: estimatePtr(res.BoardMean), BoardRange: estimatePtr(res.BoardRange), Correlation: estimatePtr(res.Correlation),
		JobsMeasured: res.Jobs, Events: int64(res.Evaluations), Seconds: seconds, EventsPerSecond: eps,
		Warnings: res.Warnings,
	}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	if st.Budget > 0 {
		rep.Budget = ptr(st.Budget)
	}
	if p := res.Plan; p != nil {
		rep.RelaxationTime = ptr(p.RelaxationTime)
	}
	if res.Slowdown == nil {
		rep.SlowdownNote = ptr(res.SlowdownNote)
	}
	if m.Period > 0 {
		rep.Period = ptr(m.Period)
	}
	if st.CorrelationAge > 0 {
		rep.CorrelationAge = ptr(st.CorrelationAge)
	}
	switch m.Policy.Kind {
	case farm.JIQBlocking, farm.JIQQueueing:
		rep.Beta = farm.Allotment(m.Beta, len(m.Alpha))
		rep.Exchange = ptr(m.Exchange)
		if m.Policy.Kind == farm.JIQBlocking {
			rep.Blocking = ptr(estimate(res.Blocking))
		} else {
			rep.FractionRandom = ptr(estimate(res.RandomFraction))
		}
	}
	if m.Period > 0 && m.Load < 1 {
		rep.Tipped = ptr(res.Tipped)
	}
	if series {
		for _, r := range res.Reps {
			rep.Series = append(rep.Series, r.Boards)
		}
	}
	return rep
}

// estimate is a simulated estimate as the reports write it.
func estimate(e sim.Estimate) report.Estimate {
	return report.Estimate{Mean: e.Mean, CI95: e.CI95, HalfWidth: e.HalfWidth, Level: e.Level, Samples: e.Samples,
		Lower: e.Lower, Upper: e.Upper, Method: e.Method, BatchSize: e.BatchSize, Warmup: e.Warmup, EffectiveJobs: e.Effective,
		Steady: e.Steady, Independent: e.Independent, Note: e.Note}
}

// estimatePtr is estimate of an estimate that may be absent (nil).
func estimatePtr(e *sim.Estimate) *report.Estimate {
	if e == nil {
		return nil
	}
	r := estimate(*e)
	return &r
}

// analyses writes a count of the sequential procedure's analyses.
func analyses(n int) string {
	if n == 1 {
		return "1 analysis"
	}
	return fmt.Sprintf("%d analyses", n)
}

// methodWords are the interval methods in words.
var methodWords = map[string]string{
	"batch_means":            "batch means of one replication",
	"replicated_batch_means": "batch means pooled over the replications",
	"replication_deletion":   "one mean per replication after its warm-up",
	sim.Transient:            "the replication means of a transient run",
}

func writeSimText(w io.Writer, res *sim.Result, rep *report.Sim) error {
	m, st := &res.Model, &res.Settings
	var b strings.Builder
	soj := res.Sojourn
	fmt.Fprintf(&b, "Simulation: %s, seed %d\n", rep.Config, st.Seed)
	switch {
	case soj.Method == sim.Transient:
		fmt.Fprintf(&b, "Transient from the start: %s × %d observed jobs (after %d deleted)\n\n", plural(len(res.Reps), "replication"), st.Jobs, st.Warmup)
	case st.Jobs > 0:
		fmt.Fprintf(&b, "Steady state: %s × %d observed jobs; warm-up found in the data (MSER-5): %d jobs in all\n\n", plural(len(res.Reps), "replication"), st.Jobs, soj.Warmup)
	default:
		fmt.Fprintf(&b, "Steady state to %g at %s%%: %d replications, %d jobs in all; warm-up found in the data (MSER-5): %d jobs\n\n",
			st.RelPrecision, strconv.FormatFloat(100*st.Level, 'g', 6, 64), len(res.Reps), res.Jobs, soj.Warmup)
	}
	if res.Status == outcome.NotSteady {
		fmt.Fprintf(&b, "No steady state was found: %s.\nNo steady-state estimate is reported; a run of at least %d jobs in all would be needed", soj.Note, res.NeededJobs)
		if p := res.Plan; p != nil {
			fmt.Fprintf(&b, " (a server's queue relaxes in about %.3g mean service times)", p.RelaxationTime)
		}
		b.WriteString(".\n")
		fmt.Fprintf(&b, "\n%.3g events in %s.\n", float64(res.Evaluations), res.Elapsed.Round(time.Millisecond))
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	est := func(name string, e sim.Estimate) {
		switch {
		case e.Samples == 0 && e.Note != "":
			fmt.Fprintf(tw, "%s\t—\t(%s)\n", name, e.Note)
		case e.Samples == 0:
			fmt.Fprintf(tw, "%s\t—\t(no sample: nothing to average)\n", name)
		case e.Samples < 2:
			fmt.Fprintf(tw, "%s\t%.6g\t(one sample: no interval)\n", name, e.Mean)
		case e.Method != sim.Transient && !e.Steady:
			fmt.Fprintf(tw, "%s\t—\t(not steady: %s)\n", name, e.Note)
		case !e.Independent:
			fmt.Fprintf(tw, "%s\t%.6g\t[%.5g, %.5g]  (batch means still correlated: the interval is too narrow)\n", name, e.Mean, e.Lower, e.Upper)
		case e.Note != "":
			fmt.Fprintf(tw, "%s\t%.6g\t[%.5g, %.5g]  (%s)\n", name, e.Mean, e.Lower, e.Upper, e.Note)
		default:
			fmt.Fprintf(tw, "%s\t%.6g\t[%.5g, %.5g]\n", name, e.Mean, e.Lower, e.Upper)
		}
	}
	est("mean time in system", res.Sojourn)
	if res.Slowdown != nil {
		est("time in system / size", *res.Slowdown)
	} else {
		fmt.Fprintf(tw, "time in system / size\t∞\t(E[1/size] = ∞ with %s sizes under FCFS; see the tail below)\n", m.Sizes)
	}
	est(fmt.Sprintf("P(time in system > %d × size)", sim.SlowdownTailAt), res.SlowdownTail)
	if res.Wait != nil {
		est("mean wait", *res.Wait)
		est("P(wait > 0)", *res.WaitProb)
	} else {
		est("mean delay (time in system − size)", res.Delay)
		est("P(server busy at arrival)", res.BusyAtArrival)
	}
	if m.Policy.Kind == farm.JIQBlocking {
		est("blocking", res.Blocking)
	}
	if m.Policy.Kind == farm.JIQQueueing {
		est("sent at random", res.RandomFraction)
	}
	if res.BoardMean != nil {
		est("mean board at refresh", *res.BoardMean)
	}
	if res.Correlation != nil {
		est(fmt.Sprintf("correlation at age %g", st.CorrelationAge), *res.Correlation)
	}
	if rep.Tipped != nil {
		fmt.Fprintf(tw, "tipped into the herd\t%d of %d\n", *rep.Tipped, len(res.Reps))
	}
	tw.Flush()
	level := strconv.FormatFloat(100*st.Level, 'g', 6, 64)
	if soj.Method != sim.Transient {
		switch res.Status {
		case outcome.PrecisionReached:
			fmt.Fprintf(&b, "\nPrecision reached: the %s%% half-width of the mean time in system is %.3g%% of it (≤ %.3g%%) after %s.\n",
				level, 100*soj.HalfWidth/math.Abs(soj.Mean), 100*st.RelPrecision/(1+st.RelPrecision), analyses(res.Checks))
		case outcome.BudgetReached:
			fmt.Fprintf(&b, "\nPrecision NOT reached: the %s%% half-width of the mean time in system is %.3g%% of it; about %d jobs in all would reach %g.\n",
				level, 100*soj.HalfWidth/math.Abs(soj.Mean), res.NeededJobs, st.RelPrecision)
		}
	}
	if soj.Method == sim.Transient {
		fmt.Fprintf(&b, "\n%.3g events in %s (%.3g events/s); %s%% intervals: Student t over %d replication means of the transient.\n",
			float64(res.Evaluations), res.Elapsed.Round(time.Millisecond), rep.EventsPerSecond, level, soj.Samples)
	} else {
		fmt.Fprintf(&b, "\n%.3g events in %s (%.3g events/s); %s%% intervals: %s, %d batches of about %.3g jobs.\n",
			float64(res.Evaluations), res.Elapsed.Round(time.Millisecond), rep.EventsPerSecond, level, methodWords[soj.Method], soj.Samples, soj.BatchSize)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// finiteReport refuses to print a report holding a NaN or an infinity:
// sim never produces one for a configuration it accepts, and a number that
// is not a number must not reach the output with exit status 0.
func finiteReport(rep *report.Sim) error {
	if path, ok := nonFinite(reflect.ValueOf(rep)); ok {
		return fmt.Errorf("sim: the result sim%s is not a finite number (a bug: please report it with the command line)", path)
	}
	return nil
}

// nonFinite finds a NaN or infinite float64 in v (structs, pointers,
// slices) and returns its path (built only for the one found).
func nonFinite(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		f := v.Float()
		return "", math.IsNaN(f) || math.IsInf(f, 0)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return nonFinite(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				if p, ok := nonFinite(v.Field(i)); ok {
					return "." + f.Name + p, true
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Float64 {
			for i := range v.Len() {
				if f := v.Index(i).Float(); math.IsNaN(f) || math.IsInf(f, 0) {
					return fmt.Sprintf("[%d]", i), true
				}
			}
			return "", false
		}
		for i := range v.Len() {
			if p, ok := nonFinite(v.Index(i)); ok {
				return fmt.Sprintf("[%d]%s", i, p), true
			}
		}
	}
	return "", false
}
