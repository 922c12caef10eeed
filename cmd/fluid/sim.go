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
	maxReps     int
	seed        uint64
	workers     int
	corrAge     float64
	series      bool
	json        bool
	csv         bool
}

func newSim() *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a finite-N server farm (every system fluid models)",
		Long: `sim runs the embedded discrete-event simulator: N servers (FCFS or processor
sharing), Poisson arrivals of rate λN split over k dispatchers, job sizes of mean 1,
and a dispatch policy. It reports the mean time in system with a confidence
interval (--level, default 95%; Student t) over independent replications (or 10
batch means of one), and, where they apply, blocking, waiting, the fraction of JIQ
jobs sent at random, the mean board value at the refreshes and whether stale-board
runs tipped into the herd.

With --rel-precision R it adds replications in rounds after the first --reps until
the half-width of the mean time in system is at most R times the mean, or
--max-reps replications have run; it says whether the target was reached.

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
the replications that finished (status interrupted; exit status 130).`,
		Example: `  fluid sim --servers 100 --load 0.9 --policy jsqd:2 --sizes h2:30 --discipline ps
  fluid sim --servers 100 -k 5 --policy tally --period 1100 --start half:110 --jobs 2000000
  fluid sim --servers 100 --load 0.9 --alpha 0.7,0.3 --policy jiq-blocking --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.servers, "servers", 100, "servers N")
	f.Float64Var(&o.load, "load", 0.9, "load λ: arrival rate per server, in jobs per mean service time (< 1 except for jiq-blocking)")
	f.IntVarP(&o.dispatchers, "dispatchers", "k", 1, "dispatchers k ≥ 1 (equal shares; or give --alpha)")
	f.Float64SliceVar(&o.alpha, "alpha", nil, "arrival shares α_r of the dispatchers (positive, sum 1)")
	f.StringVar(&o.discipline, "discipline", "fcfs", "server discipline: fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "job sizes (mean 1): exp, det, h2:SCV or pareto:SHAPE")
	f.StringVar(&o.policy, "policy", "random", "dispatch policy (see above)")
	f.BoolVar(&o.replacement, "replacement", false, "best of D samples with replacement (jsqd:D, board-jsqd:D, tally-jsqd:D only)")
	f.Float64Var(&o.period, "period", 0, "board refresh period T, in mean service times (board policies; otherwise only records the board)")
	f.Float64SliceVar(&o.beta, "beta", nil, "JIQ token allotment β_r (Enhancement 1; non-negative, sum 1; default uniform 1/R)")
	f.Float64Var(&o.exchange, "exchange", 0, "JIQ token exchange rate ν, per server per mean service time (Enhancement 2)")
	f.StringVar(&o.start, "start", "empty", "initial state: empty, balanced:L, half:B, spread:S or hot:X (jobs per server, or a multiple of T: half:0.1T)")
	f.StringVar(&o.push, "push", "none", "a disturbance part-way through the run: backlog:F:B, half:B, spread:S or hot:X extra jobs, @n at refresh n (half:0.1T@20)")
	f.IntVar(&o.jobs, "jobs", sim.DefaultJobs, "measured jobs per replication")
	f.IntVar(&o.warmup, "warmup", 0, "warm-up jobs per replication, not measured (0: jobs/10; -1: none)")
	f.IntVar(&o.reps, "reps", sim.DefaultReps, "independent replications (the first round, with --rel-precision)")
	f.Float64Var(&o.level, "level", sim.DefaultLevel, "confidence level of the intervals, in (0, 1) (the JSON keeps ci95 at 95%)")
	f.Float64Var(&o.relPrec, "rel-precision", 0, "add replications until the half-width of the mean time in system is ≤ this fraction of it (0: off)")
	f.IntVar(&o.maxReps, "max-reps", 0, fmt.Sprintf("with --rel-precision: at most this many replications (0: max(%d, --reps); at most %d)", sim.DefaultMaxReps, sim.MaxReps))
	f.Uint64Var(&o.seed, "seed", 1, "random seed")
	f.IntVar(&o.workers, "workers", 0, "replications run at once (0: all cores; fewer if they would not fit in 4 GiB); results do not depend on it")
	f.Float64Var(&o.corrAge, "correlation-age", 0, "record the correlation of a server's queue lengths this far apart, in mean service times (0: off)")
	f.BoolVar(&o.series, "series", false, "with --json: include each replication's board mean at every refresh (at most 10⁷ numbers in all)")
	f.BoolVar(&o.csv, "csv", false, "write the results as CSV, one row (columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Sim; schema in docs/schema/sim.json)")
	return cmd
}

// maxSeries bounds the board means that --series writes, all
// replications together (about 200 MB of JSON).
const maxSeries = 10_000_000

func runSim(stdout, stderr io.Writer, cmd *cobra.Command, o *simOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	if o.series && !o.json {
		return usagef("--series needs --json: the series are written only in JSON")
	}
	m := &sim.Model{Servers: o.servers, Load: o.load, Alpha: o.alpha, Period: o.period, Beta: o.beta, Exchange: o.exchange}
	set := &sim.Settings{Jobs: o.jobs, Warmup: o.warmup, Reps: o.reps, Level: o.level, RelPrecision: o.relPrec, MaxReps: o.maxReps,
		Seed: o.seed, CorrelationAge: o.corrAge, Series: o.series}
	set.Workers = o.workers
	if o.jobs < 1 {
		return usagef("invalid --jobs: %d, want at least 1", o.jobs)
	}
	if o.reps < 1 {
		return usagef("invalid --reps: %d, want at least 1", o.reps)
	}
	if o.warmup < -1 {
		return usagef("invalid --warmup: %d, want ≥ 0 or -1 for none", o.warmup)
	}
	if o.warmup == 0 && cmd.Flags().Changed("warmup") {
		set.Warmup = -1 // an explicit 0 means none
	}
	if o.dispatchers < 1 {
		return usagef("invalid --dispatchers: k = %d, want at least 1", o.dispatchers)
	}
	if o.alpha == nil || cmd.Flags().Changed("dispatchers") {
		m.Dispatchers = o.dispatchers
	}
	var err error
	if m.Discipline, err = farm.ParseDiscipline(o.discipline); err != nil {
		return paramUsage(err)
	}
	if m.Sizes, err = farm.ParseSizes(o.sizes); err != nil {
		return paramUsage(err)
	}
	if m.Policy, err = farm.ParsePolicy(o.policy); err != nil {
		return paramUsage(err)
	}
	if o.replacement && !m.Policy.Sampled() {
		return usagef("invalid --replacement: policy %v samples no servers; --replacement applies only to jsqd:D, board-jsqd:D and tally-jsqd:D", m.Policy)
	}
	m.Policy.Replacement = o.replacement
	if m.Start, err = farm.ParseStart(o.start); err != nil {
		return paramUsage(err)
	}
	if m.Push, err = farm.ParsePush(o.push); err != nil {
		return paramUsage(err)
	}
	if o.level == 0 {
		return usagef("invalid --level: 0, want 0 < level < 1 (e.g. 0.95)")
	}
	// Every bound is checked before anything is simulated or allocated.
	if _, _, err := sim.Normalized(m, set); err != nil {
		return paramUsage(err)
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
		return paramUsage(err)
	}
	if res.Status == outcome.Interrupted && len(res.Reps) == 0 {
		return c.halted("no replication had finished")
	}

	rep := simReportOf(res, o.series)
	if err := finiteReport(rep); err != nil {
		return err
	}
	switch {
	case o.csv:
		err = writeCSVReport(stdout, rep, "")
	case o.json:
		err = writeJSON(stdout, rep)
	default:
		err = writeSimText(stdout, res, rep)
	}
	if err != nil {
		return err
	}
	return c.ended(res.Status, fmt.Sprintf("the precision target was not reached within %s", plural(len(res.Reps), "replication")),
		fmt.Sprintf("the results are those of the %s that finished (status interrupted)", plural(len(res.Reps), "replication")))
}

func simReportOf(res *sim.Result, series bool) *report.Sim {
	m, st := &res.Model, &res.Settings
	seconds := res.Elapsed.Seconds()
	eps := 0.0
	if seconds > 0 {
		eps = float64(res.Evaluations) / seconds
	}
	rep := &report.Sim{
		Header: report.NewHeader("sim"),
		Config: m.Describe(), Seed: st.Seed, Servers: m.Servers, Load: m.Load, Dispatchers: m.Dispatchers, Alpha: m.Alpha,
		Policy: m.Policy.String(), Replacement: m.Policy.Replacement, Discipline: m.Discipline.String(), Sizes: m.Sizes.String(),
		Start: m.Start.String(), Jobs: st.Jobs, Warmup: st.Warmup, Level: st.Level,
		Status: res.Status.Name(), Reps: len(res.Reps), Rounds: res.Rounds,
		Mean: res.Sojourn.Mean, CI95: res.Sojourn.CI95, HalfWidth: res.Sojourn.HalfWidth,
		Sojourn: estimate(res.Sojourn), Slowdown: estimatePtr(res.Slowdown), SlowdownOver10: estimate(res.SlowdownTail),
		MeanWait: estimatePtr(res.Wait), ProbWait: estimatePtr(res.WaitProb), MeanDelay: estimate(res.Delay), BusyAtArrival: estimate(res.BusyAtArrival),
		BoardMean: estimatePtr(res.BoardMean), BoardRange: estimatePtr(res.BoardRange), Correlation: estimatePtr(res.Correlation),
		JobsMeasured: res.Jobs, Events: int64(res.Evaluations), Seconds: seconds, EventsPerSecond: eps,
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
	if st.RelPrecision > 0 {
		rep.RelPrecision, rep.MaxReps = ptr(st.RelPrecision), ptr(st.MaxReps)
		rep.PrecisionReached = ptr(res.PrecisionReached)
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
func estimate(e sim.Estimate) report.Estimate { return report.Estimate(e) }

// estimatePtr is estimate of an estimate that may be absent (nil).
func estimatePtr(e *sim.Estimate) *report.Estimate { return (*report.Estimate)(e) }

func writeSimText(w io.Writer, res *sim.Result, rep *report.Sim) error {
	m, st := &res.Model, &res.Settings
	var b strings.Builder
	fmt.Fprintf(&b, "Simulation: %s, seed %d\n", rep.Config, st.Seed)
	fmt.Fprintf(&b, "%d replications × %d measured jobs (after %d warm-up)\n\n", len(res.Reps), st.Jobs, st.Warmup)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	est := func(name string, e sim.Estimate) {
		if e.Samples == 0 {
			fmt.Fprintf(tw, "%s\t—\t(no sample: nothing to average)\n", name)
			return
		}
		if e.Samples < 2 {
			fmt.Fprintf(tw, "%s\t%.6g\t(one sample: no interval)\n", name, e.Mean)
			return
		}
		fmt.Fprintf(tw, "%s\t%.6g\t± %.3g\n", name, e.Mean, e.HalfWidth)
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
	if st.RelPrecision > 0 {
		target := st.RelPrecision * math.Abs(res.Sojourn.Mean)
		if res.PrecisionReached {
			fmt.Fprintf(&b, "\nPrecision target reached: half-width %.3g ≤ %g × mean = %.3g after %d replications in %d rounds.\n",
				res.Sojourn.HalfWidth, st.RelPrecision, target, len(res.Reps), res.Rounds)
		} else {
			fmt.Fprintf(&b, "\nPrecision target NOT reached: half-width %.3g > %g × mean = %.3g at the cap of %d replications (%d rounds).\n",
				res.Sojourn.HalfWidth, st.RelPrecision, target, len(res.Reps), res.Rounds)
		}
	}
	fmt.Fprintf(&b, "\n%.3g events in %s (%.3g events/s); %s%% intervals over %d %s.\n",
		float64(res.Evaluations), res.Elapsed.Round(time.Millisecond), rep.EventsPerSecond,
		strconv.FormatFloat(100*st.Level, 'g', 6, 64), res.Sojourn.Samples, map[bool]string{true: "replications", false: "batch means"}[len(res.Reps) > 1])
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
