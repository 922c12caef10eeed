package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/spec"
	"github.com/fluidlb/fluid/validate/sim"
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
	jobs        int
	warmup      int
	reps        int
	seed        uint64
	workers     int
	corrAge     float64
	series      bool
	json        bool
}

func newSim() *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a finite-N server farm (all three seeds' systems)",
		Long: `sim runs the embedded discrete-event simulator: N servers (FCFS or processor
sharing), Poisson arrivals of rate λN split over k dispatchers, job sizes of mean 1,
and a dispatch policy. It reports the mean time in system with a 95% confidence
interval over independent replications (or 10 batch means of one), and, where they
apply, blocking, waiting, the fraction of JIQ jobs sent at random, the mean board
value at the refreshes and whether stale-board runs tipped into the herd.

Policies: random, rr (round robin), jsq (least loaded, live), jsqd:D (best of D,
live), least-work (oracle), board-jsq and board-jsqd:D (on a board refreshed every
--period), tally (board + each dispatcher's own sends), shared-tally,
partitioned, tally-jsqd:D, jiq-blocking and jiq-queueing.
Sizes: exp, det, h2:SCV (balanced-means hyperexponential), pareto:SHAPE (type I,
mean 1, SCV 1/(a(a−2)) for a > 2). Starts: empty, balanced:L, half:B (half the
servers with B jobs), spread:S (0..S), hot:X (one server with X jobs).

A run is a pure function of its flags and --seed.`,
		Example: `  fluid sim --servers 100 --load 0.9 --policy jsqd:2 --sizes h2:30 --discipline ps
  fluid sim --servers 100 --dispatchers 5 --policy tally --period 1100 --start half:110 --jobs 2000000
  fluid sim --servers 100 --load 0.9 --alpha 0.7,0.3 --policy jiq-blocking --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.servers, "servers", 100, "servers N")
	f.Float64Var(&o.load, "load", 0.9, "load λ per server (λ < 1 except for jiq-blocking)")
	f.IntVar(&o.dispatchers, "dispatchers", 1, "dispatchers k (equal shares; or give --alpha)")
	f.Float64SliceVar(&o.alpha, "alpha", nil, "arrival shares α_r of the dispatchers (positive, sum 1)")
	f.StringVar(&o.discipline, "discipline", "fcfs", "server discipline: fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "job sizes (mean 1): exp, det, h2:SCV or pareto:SHAPE")
	f.StringVar(&o.policy, "policy", "random", "dispatch policy (see above)")
	f.BoolVar(&o.replacement, "replacement", false, "best-of-d samples with replacement")
	f.Float64Var(&o.period, "period", 0, "board refresh period T (board policies; otherwise only records the board)")
	f.Float64SliceVar(&o.beta, "beta", nil, "JIQ token shares β_r (Enhancement 1; default uniform)")
	f.Float64Var(&o.exchange, "exchange", 0, "JIQ token exchange rate ν (Enhancement 2)")
	f.StringVar(&o.start, "start", "empty", "initial state: empty, balanced:L, half:B, spread:S or hot:X")
	f.IntVar(&o.jobs, "jobs", sim.DefaultJobs, "measured jobs per replication")
	f.IntVar(&o.warmup, "warmup", 0, "warm-up jobs per replication, not measured (0: jobs/10; -1: none)")
	f.IntVar(&o.reps, "reps", sim.DefaultReps, "independent replications")
	f.Uint64Var(&o.seed, "seed", 1, "random seed")
	f.IntVar(&o.workers, "workers", 0, "replications run at once (0: all cores); results do not depend on it")
	f.Float64Var(&o.corrAge, "correlation-age", 0, "record the correlation of queue lengths this far apart ")
	f.BoolVar(&o.series, "series", false, "with --json: include each replication's board mean at every refresh")
	f.BoolVar(&o.json, "json", false, "write JSON (see simReport in doc.go)")
	return cmd
}

// simReport is the JSON output of `fluid sim`. Estimates are
// {mean, ci95, samples}: ci95 is the half-width of the 95% interval
// (Student t over samples replications, or batch means of one).
type simReport struct {
	Config          string        `json:"config"` // one-line description
	Seed            uint64        `json:"seed"`
	Servers         int           `json:"servers"`
	Load            float64       `json:"load"`
	Dispatchers     int           `json:"dispatchers"`
	Policy          string        `json:"policy"`
	Discipline      string        `json:"discipline"`
	Sizes           string        `json:"sizes"`
	Period          float64       `json:"period"`
	Start           string        `json:"start"`
	Mean            float64       `json:"mean"` // mean time in system (= sojourn.mean)
	CI95            float64       `json:"ci95"` // its 95% half-width
	Sojourn         sim.Estimate  `json:"sojourn"`
	Slowdown        sim.Estimate  `json:"slowdown"` // time in system / size
	MeanWait        sim.Estimate  `json:"mean_wait"`
	WaitProb        sim.Estimate  `json:"wait_prob"` // P(the job found its server busy)
	Blocking        sim.Estimate  `json:"blocking"`
	RandomFraction  sim.Estimate  `json:"random_fraction"` // JIQ queueing: sent without a token
	BoardMean       *sim.Estimate `json:"board_mean"`      // null without a board
	Correlation     *sim.Estimate `json:"correlation"`     // null unless --correlation-age
	Tipped          *int          `json:"tipped"`          // replications that tipped (board runs)
	Reps            int           `json:"reps"`
	Jobs            int64         `json:"jobs"` // measured jobs, all replications
	Events          int64         `json:"events"`
	Seconds         float64       `json:"seconds"`
	EventsPerSecond float64       `json:"events_per_second"`
	Series          [][]float64   `json:"series,omitempty"` // per replication: board mean at each refresh
}

func runSim(stdout, stderr io.Writer, cmd *cobra.Command, o *simOptions) error {
	c := sim.Config{
		Servers: o.servers, Load: o.load, Alpha: o.alpha, Period: o.period, Beta: o.beta, Exchange: o.exchange,
		Jobs: o.jobs, Warmup: o.warmup, Reps: o.reps, Seed: o.seed, Workers: o.workers,
		CorrelationAge: o.corrAge, Series: o.series,
	}
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
		c.Warmup = -1 // an explicit 0 means none
	}
	if o.alpha == nil || cmd.Flags().Changed("dispatchers") {
		c.Dispatchers = o.dispatchers
	}
	var err error
	if c.Discipline, err = spec.ParseDiscipline(o.discipline); err != nil {
		return paramUsage(err)
	}
	if c.Sizes, err = spec.ParseSizes(o.sizes); err != nil {
		return paramUsage(err)
	}
	if c.Policy, err = spec.ParsePolicy(o.policy); err != nil {
		return paramUsage(err)
	}
	c.Policy.Replacement = o.replacement
	if c.Start, err = spec.ParseStart(o.start); err != nil {
		return paramUsage(err)
	}
	// Progress bar on a terminal for runs expected to take over a second.
	total := int64(c.Reps) * int64(c.Jobs+max(c.Warmup, 0))
	var bar *progress
	if total > 5_000_000 {
		bar = newProgress(stderr, int(total/0x10000), "simulating")
		var mu sync.Mutex
		c.Progress = func(int64) {
			mu.Lock()
			bar.add(1)
			mu.Unlock()
		}
	}
	res, err := sim.Run(c)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return paramUsage(err)
	}
	rep := simReportOf(res, o.series)
	if o.json {
		return writeJSON(stdout, rep)
	}
	return writeSimText(stdout, res, rep)
}

func simReportOf(res *sim.Result, series bool) *simReport {
	c := res.Config
	rep := &simReport{
		Config: c.Describe(), Seed: c.Seed, Servers: c.Servers, Load: c.Load, Dispatchers: c.Dispatchers,
		Policy: c.Policy.String(), Discipline: c.Discipline.String(), Sizes: c.Sizes.String(), Period: c.Period,
		Start: c.Start.String(), Mean: res.Sojourn.Mean, CI95: res.Sojourn.CI95,
		Sojourn: res.Sojourn, Slowdown: res.Slowdown, MeanWait: res.Wait, WaitProb: res.WaitProb,
		Blocking: res.Blocking, RandomFraction: res.RandomFraction, BoardMean: res.BoardMean, Correlation: res.Correlation,
		Reps: c.Reps, Jobs: res.Jobs, Events: res.Events, Seconds: res.Seconds, EventsPerSecond: res.EventsPerSecond,
	}
	if c.Period > 0 && c.Load < 1 {
		rep.Tipped = ptr(res.Tipped)
	}
	if series {
		for _, r := range res.Reps {
			rep.Series = append(rep.Series, r.Boards)
		}
	}
	return rep
}

func writeSimText(w io.Writer, res *sim.Result, rep *simReport) error {
	c := res.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Simulation: %s, seed %d\n", rep.Config, c.Seed)
	fmt.Fprintf(&b, "%d replications × %d measured jobs (after %d warm-up)\n\n", c.Reps, c.Jobs, c.Warmup)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	est := func(name string, e sim.Estimate) {
		if e.Samples < 2 {
			fmt.Fprintf(tw, "%s\t%.6g\t(one sample: no interval)\n", name, e.Mean)
			return
		}
		fmt.Fprintf(tw, "%s\t%.6g\t± %.3g\n", name, e.Mean, e.CI95)
	}
	est("mean time in system", res.Sojourn)
	est("time in system / size", res.Slowdown)
	est("mean wait", res.Wait)
	est("P(wait > 0)", res.WaitProb)
	if c.Policy.Kind == spec.JIQBlocking {
		est("blocking", res.Blocking)
	}
	if c.Policy.Kind == spec.JIQQueueing {
		est("sent at random", res.RandomFraction)
	}
	if res.BoardMean != nil {
		est("mean board at refresh", *res.BoardMean)
	}
	if res.Correlation != nil {
		est(fmt.Sprintf("correlation at age %g", c.CorrelationAge), *res.Correlation)
	}
	if rep.Tipped != nil {
		fmt.Fprintf(tw, "tipped into the herd\t%d of %d\n", *rep.Tipped, c.Reps)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%.3g events in %s (%.3g events/s); 95%% intervals over %d %s.\n",
		float64(res.Events), time.Duration(res.Seconds*float64(time.Second)).Round(time.Millisecond), res.EventsPerSecond,
		res.Sojourn.Samples, map[bool]string{true: "replications", false: "batch means"}[c.Reps > 1])
	_, err := io.WriteString(w, b.String())
	return err
}
