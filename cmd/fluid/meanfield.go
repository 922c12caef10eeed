package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/queues"
	"github.com/fluidlb/fluid/report"
)

type meanfieldOptions struct {
	policy     string
	discipline string
	sizes      string
	load       float64
	period     float64
	servers    []int
	iterations int
	maxWork    float64
	ages       []float64
	crossing   string
	rangeT     []float64
	grid       int
	staleness  bool
	json       bool
	csv        bool
	changed    map[string]bool // the flags given
}

func newMeanfield() *cobra.Command {
	o := &meanfieldOptions{}
	cmd := &cobra.Command{
		Use:   "meanfield",
		Short: "Theory for dispatch policies: mean fields, stale boards, finite farms, crossings",
		Long: `meanfield computes, from theory, the mean time in system of a dispatch policy:

  jsqd:D        the N → ∞ mean field of best of D on live counts: the fixed point of
                the mean-field ODE on the server states (count; small and giant jobs
                under PS; count and phase of the job in service under FCFS), its
                stability, and with --servers the refined 1/N correction
                (Gast–Van Houdt; exponential sizes, sampling with replacement).
  board-jsqd:D  one dispatcher on a board refreshed every --period (Mitzenmacher's
  board-jsq     periodic update, N → ∞): the attractor of the period map, least
                loaded for board-jsq. An orbit that settles on no fixed point or
                cycle is reported as the average of its last 100 periods with their
                spread (exit status 1). The cost grows like T²: it is estimated first
                and refused above --max-work.
  random        finite farms of --servers N (a list): random dispatch (M/G/1,
  rr            exact), round robin (E_N/H2/1: FCFS exact by spectral factorisation,
  least-work    PS exact from the chain at arrival epochs), the least-work oracle
  jsq           (FCFS: the M/H2/N central queue, exact; PS: approximate) and least
                loaded on live counts (exact for exp sizes; approximate for H2, with
                the measured accuracy stated).

--correlation-age τ (a list) gives the correlation of a server's count with its count
τ later under random dispatch (how long a board of counts stays true).

--crossing A,B finds the refresh period T from which policy A does worse than policy B
(a staleness budget): root finding on the two theory curves over --range, bracketed
and with the status of every point (a board's average where its orbit did not settle).
Board policies are N → ∞ mean fields; random, rr, least-work and jsq are taken at
--servers N.

--staleness computes the four staleness-budget tables of "Sharing Servers Don't Mind the
Giant" (PS, λ = 0.9, N = 100) from theory, beside the study's ranges (several minutes).

Sizes are exp or h2:SCV (the balanced-means hyperexponential: with probability p a
giant of mean 1/(2p), otherwise a small job of mean 1/(2(1−p)), mean 1, SCV c²).

One value per flag, except --servers for the finite farms (a table, one row per N) and
--correlation-age: for a grid, use fluid sweep meanfield.`,
		Example: `  fluid meanfield --policy jsqd:2 --discipline ps --sizes h2:30
  fluid meanfield --policy jsqd:2 --servers 10,20,50,100
  fluid meanfield --policy board-jsqd:2 --period 100 --discipline ps --sizes h2:30
  fluid meanfield --policy rr --servers 100 --discipline ps --sizes h2:10
  fluid meanfield --correlation-age 100,500 --discipline ps --sizes h2:30
  fluid meanfield --crossing board-jsqd:2,random --discipline ps --sizes h2:10
  fluid meanfield --crossing board-jsq,rr --servers 100 --discipline ps --range 0.5,50`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { o.changed[f.Name] = true })
			return runMeanfield(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "jsqd:2", "dispatch policy: jsqd:D (best of D, live counts), board-jsqd:D or board-jsq (on a board refreshed every --period), random, rr, least-work or jsq (finite farms of --servers N)")
	f.StringVar(&o.discipline, "discipline", "fcfs", "server discipline: fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "job sizes (mean 1): exp or h2:SCV")
	f.Float64Var(&o.load, "load", 0.9, concept("load", "0 < λ < 1; one value: for a grid, fluid sweep meanfield"))
	f.Float64Var(&o.period, "period", 0, concept("period", "board policies"))
	f.IntSliceVar(&o.servers, "servers", nil, concept("servers", "of the finite farms (random, rr, least-work, jsq; a list or ranges), or for the refined 1/N correction (jsqd, exponential sizes)"))
	f.IntVar(&o.iterations, "iterations", 2000, "board policies: most refresh periods iterated")
	f.Float64Var(&o.maxWork, "max-work", 0, "board policies: most state updates a periodic board may take (0: 1e11, about ten minutes of one core); larger ones are refused with their estimate")
	f.Float64SliceVar(&o.ages, "correlation-age", nil, "lags τ at which a server's count is correlated with itself, under random dispatch (a list)")
	f.StringVar(&o.crossing, "crossing", "", "two policies A,B: the refresh period T from which A does worse than B (at least one of them on a board)")
	f.Float64SliceVar(&o.rangeT, "range", nil, "--crossing: the refresh periods lo,hi searched (default 1,2000; 0.25,50 for board-jsq)")
	f.IntVar(&o.grid, "scan", 0, "--crossing: points of the first scan over --range, spaced geometrically (default 10)")
	f.BoolVar(&o.staleness, "staleness", false, "the staleness-budget tables of a simulation study, from theory (several minutes)")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (rows, points, correlations or refined rows; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Meanfield; schema in docs/schema/meanfield.json)")
	board := func() bool { return strings.HasPrefix(strings.ToLower(strings.TrimSpace(o.policy)), "board-") }
	attractor := needs(func() bool { return board() || o.crossing != "" || o.staleness },
		"it bounds the period map of the board policies (board-jsqd:D, board-jsq, --crossing, --staleness)")
	declare(cmd,
		flagRule{flag: "policy", field: "Policy"}, flagRule{flag: "discipline", field: "Discipline"},
		flagRule{flag: "sizes", field: "Sizes"}, flagRule{flag: "load", field: "Load"},
		flagRule{flag: "period", field: "Period", when: needs(func() bool { return board() && o.crossing == "" }, "--period is the refresh period of board-jsqd:D and board-jsq (--crossing searches it over --range)")},
		flagRule{flag: "servers", field: "Servers", when: needs(func() bool { return !board() || o.crossing != "" }, "the board policies are N → ∞ mean fields; --servers applies to the finite farms and to the refined correction of live jsqd:D")},
		flagRule{flag: "iterations", field: "MaxIter", rng: in(1, 100000, "2000"), when: attractor},
		flagRule{flag: "max-work", field: "MaxWork", when: attractor},
		flagRule{flag: "correlation-age", field: "Lags"},
		flagRule{flag: "crossing"}, flagRule{flag: "staleness"},
		flagRule{flag: "range", field: "Range"}, flagRule{flag: "scan", field: "Grid"},
	)
	cmd.Annotations[fieldKey+"D"] = "--policy\x00--policy" // the D of jsqd:D
	return cmd
}

// minRefinedN is the smallest N the refined mean field is printed for.
const minRefinedN = 10

// meanfieldRun is one run of the command: its options, the report being
// filled and the exit its computation asks for.
type meanfieldRun struct {
	w     io.Writer // stdout
	o     *meanfieldOptions
	pol   farm.Policy
	disc  farm.Discipline
	sizes farm.Sizes
	rep   *report.Meanfield
	rows  string // the array CSV rows come from
	// exit is the error the command ends with once the report is written
	// (a limit or failure status: exit 1); text writes the report as
	// text.
	exit error
	text func(b *strings.Builder)
}

func runMeanfield(w, stderr io.Writer, o *meanfieldOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	start := time.Now()
	r := &meanfieldRun{w: w, o: o}
	var err error
	if r.pol, err = farm.ParsePolicy(o.policy); err != nil {
		return err
	}
	if r.disc, err = farm.ParseDiscipline(o.discipline); err != nil {
		return err
	}
	if r.sizes, err = farm.ParseSizes(o.sizes); err != nil {
		return err
	}
	if err := r.exclusiveModes(); err != nil {
		return err
	}
	r.rep = &report.Meanfield{Header: report.NewHeader("meanfield"), Policy: r.pol.String(), Discipline: r.disc.String(), Sizes: r.sizes.String(), Load: o.load}
	switch {
	case o.staleness:
		err = r.stalenessTables(stderr)
	case o.crossing != "":
		err = r.crossingMode(stderr)
	case r.pol.Kind == farm.BoardJSQd || r.pol.Kind == farm.BoardJSQ:
		err = r.board(stderr)
	default:
		// The solves that cannot be cancelled: a signal ends the command
		// at once.
		solve := r.correlation
		switch {
		case len(o.ages) > 0:
		case r.pol.Kind == farm.JSQd:
			solve = r.live
		case r.pol.Kind == farm.Random || r.pol.Kind == farm.RoundRobin || r.pol.Kind == farm.LeastWork || r.pol.Kind == farm.JSQ:
			solve = r.finite
		default:
			return usagef("invalid --policy: %q (the theory covers jsqd:D, board-jsqd:D, board-jsq, random, rr, least-work and jsq)", o.policy)
		}
		c := startComputation(stderr, "meanfield", "stopping the mean field")
		defer c.stop()
		if !c.await(func() { err = solve() }) {
			return c.interruptedBefore(w, output{json: o.json}, "meanfield", "the mean field had not been solved")
		}
	}
	if err != nil {
		return err
	}
	r.rep.Seconds = time.Since(start).Seconds()
	err = emit(w, output{json: o.json, csv: o.csv, rows: r.rows}, r.rep, func(w io.Writer) error {
		var b strings.Builder
		r.text(&b)
		fmt.Fprintf(&b, "\n%.2f s. Time in mean service times.\n", r.rep.Seconds)
		_, err := io.WriteString(w, b.String())
		return err
	})
	return errors.Join(err, r.exit)
}

// exclusiveModes refuses flags that the chosen mode does not read.
func (r *meanfieldRun) exclusiveModes() error {
	o := r.o
	var modes []string
	for _, m := range []string{"staleness", "crossing", "correlation-age"} {
		if o.changed[m] {
			modes = append(modes, "--"+m)
		}
	}
	if len(modes) > 1 {
		return usagef("%s are exclusive", strings.Join(modes, " and "))
	}
	if (o.changed["range"] || o.changed["scan"]) && !o.changed["crossing"] {
		return usagef("invalid --range/--scan: they set the search of --crossing")
	}
	if len(modes) == 1 && o.changed["policy"] {
		return usagef("invalid --policy: %s names its policies itself", modes[0])
	}
	if o.staleness {
		for _, f := range []string{"discipline", "sizes", "load", "servers", "period"} {
			if o.changed[f] {
				return usagef("invalid --%s: --staleness computes the study's own tables (PS servers, λ = 0.9, N = 100, every size law it measured)", f)
			}
		}
	}
	return nil
}

// live is best of d on live counts: the mean field and its refined
// correction.
func (r *meanfieldRun) live() error {
	o, rep, d := r.o, r.rep, r.pol.D
	if o.period != 0 {
		return usagef("invalid --period: live jsqd reads no board")
	}
	m := &bestofd.Model{D: d, Load: o.load, Discipline: r.disc, Sizes: r.sizes}
	res, err := bestofd.FixedPoint(m, nil)
	if err != nil {
		return err
	}
	if err := ended(res.Status, fmt.Sprintf("best-of-%d mean field: no fixed point (residual %.3g)", d, res.Solve.Residual)); err != nil {
		return err
	}
	rep.Method = "mean field (N → ∞): fixed point of the server chain's stationary law and the arrival rates it implies"
	rep.Sojourn, rep.MeanQueue, rep.Tail, rep.Lost, rep.States = ptr(res.Sojourn), ptr(res.MeanQueue), res.Tail, res.Lost, res.States
	rep.Abscissa = ptr(res.Abscissa)
	rep.Status = reportStatus(res.Status)
	if len(o.servers) > 0 {
		ref, err := bestofd.Refined(m)
		if err != nil {
			return err
		}
		for _, n := range o.servers {
			if n < minRefinedN {
				return usagef("invalid --servers: %d, want N ≥ %d: the refined mean field is an expansion in 1/N (within 2%% of simulation at N = 10; at N = 1 it gives 7.04 where the exact answer is 10); simulate smaller systems with fluid sim", n, minRefinedN)
			}
			rep.Refined = append(rep.Refined, report.RefinedRow{N: n, Sojourn: ref.Sojourn(n)})
		}
	}
	r.rows = "refined"
	r.text = func(b *strings.Builder) {
		fmt.Fprintf(b, "Mean field (N → ∞), best of %d on live counts: λ = %g, %s servers, %s sizes\n\n", d, o.load, o.discipline, o.sizes)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "mean time in system\t%.6g\n", *rep.Sojourn)
		fmt.Fprintf(tw, "mean jobs per server\t%.6g\n", *rep.MeanQueue)
		verdict := "stable"
		if *rep.Abscissa >= 0 {
			verdict = "not stable"
		}
		fmt.Fprintf(tw, "fixed point\t%s (largest eigenvalue real part %.3g)\n", verdict, *rep.Abscissa)
		for n := 1; n < len(rep.Tail) && n <= 6; n++ {
			fmt.Fprintf(tw, "P(count ≥ %d)\t%.6g\n", n, rep.Tail[n])
		}
		fmt.Fprintf(tw, "truncated mass\t%.2g (%d server states)\n", rep.Lost, rep.States)
		for _, row := range rep.Refined {
			fmt.Fprintf(tw, "refined, N = %d\t%.6g\n", row.N, row.Sojourn)
		}
		tw.Flush()
	}
	return nil
}

// attractorSettings are the board's settings from the flags.
func (r *meanfieldRun) attractorSettings(run outcome.Run) (*bestofd.AttractorSettings, error) {
	if r.o.iterations < 1 {
		return nil, usagef("invalid --iterations: %d, want at least 1", r.o.iterations)
	}
	if r.o.maxWork < 0 {
		return nil, usagef("invalid --max-work: %v, want 0 (the default 1e11) or more", r.o.maxWork)
	}
	return &bestofd.AttractorSettings{Run: run, MaxIter: r.o.iterations, MaxWork: r.o.maxWork}, nil
}

// board is a policy reading a board refreshed every T (N → ∞).
func (r *meanfieldRun) board(stderr io.Writer) error {
	o, rep := r.o, r.rep
	if len(o.servers) > 0 {
		return usagef("invalid --servers: the board policies are N → ∞ mean fields (the refined correction is for live jsqd only)")
	}
	c := startComputation(stderr, "period maps", "stopping the period map; the periods iterated follow")
	defer c.stop()
	set, err := r.attractorSettings(c.run(0))
	if err != nil {
		return err
	}
	d := r.pol.D
	if r.pol.Kind == farm.BoardJSQ {
		d = 0
	}
	m := &bestofd.PeriodicUpdate{D: d, Load: o.load, Period: o.period, Discipline: r.disc, Sizes: r.sizes}
	res, err := bestofd.Attractor(m, set)
	c.done()
	if err != nil {
		return boardUsage(err)
	}
	if res.Status == outcome.Interrupted && res.Averaged == 0 {
		return c.interruptedBefore(r.w, output{json: o.json}, "meanfield", "no period of the map had finished")
	}
	rep.Method = "periodic-update mean field (N → ∞): the attractor of the refresh-period map"
	rep.Period, rep.MaxIterations = ptr(o.period), ptr(o.iterations)
	rep.Sojourn, rep.MeanQueue, rep.Board, rep.Lost, rep.States = ptr(res.Sojourn), ptr(res.MeanQueue), res.Board, res.Lost, res.States
	rep.BoardMean = ptr(res.BoardMean)
	rep.Attractor = ptr(res.Status.Name())
	rep.Status = reportStatus(res.Status)
	rep.Averaged, rep.Spread, rep.Min, rep.Max = ptr(res.Averaged), ptr(res.Spread), ptr(res.Min), ptr(res.Max)
	rep.Work, rep.WorkEstimate = ptr(res.Work), ptr(res.Estimate)
	if res.Status == outcome.FixedPoint || res.Status == outcome.Cycle {
		rep.Cycle = ptr(res.Cycle)
	}
	r.exit = c.ended(res.Status, unsettledMessage(res, o.iterations), fmt.Sprintf("the values are the averages of the %d periods of plain iteration finished (status interrupted)", res.Averaged))
	r.text = func(b *strings.Builder) {
		what := fmt.Sprintf("best of %d", d)
		if d == 0 {
			what = "least loaded"
		}
		fmt.Fprintf(b, "Mean field (N → ∞), %s on a board refreshed every T = %g: λ = %g, %s servers, %s sizes\n\n", what, o.period, o.load, o.discipline, o.sizes)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "mean time in system\t%.6g\n", *rep.Sojourn)
		fmt.Fprintf(tw, "mean jobs per server\t%.6g\n", *rep.MeanQueue)
		fmt.Fprintf(tw, "attractor\t%s\n", attractorText(res))
		if res.Averaged > 1 {
			fmt.Fprintf(tw, "  spread over the periods\tsd %.3g, from %.6g to %.6g\n", res.Spread, res.Min, res.Max)
		}
		fmt.Fprintf(tw, "mean board at a refresh\t%.6g\n", *rep.BoardMean)
		fmt.Fprintf(tw, "arrivals lost to truncation\t%.2g (%d server states)\n", rep.Lost, rep.States)
		fmt.Fprintf(tw, "state updates\t%.3g (estimated %.3g)\n", res.Work, res.Estimate)
		tw.Flush()
	}
	return nil
}

// boardUsage names --max-work in a budget refusal of the board's
// attractor, which names the settings field.
func boardUsage(err error) error {
	var pe *param.Error
	if errors.As(err, &pe) && strings.Contains(pe.Msg, "(AttractorSettings.MaxWork)") {
		return &param.Error{Param: pe.Param, Msg: strings.ReplaceAll(pe.Msg, "(AttractorSettings.MaxWork)", "(--max-work)")}
	}
	return err
}

func attractorText(res *bestofd.AttractorResult) string {
	switch res.Status {
	case outcome.FixedPoint:
		return fmt.Sprintf("fixed point after %d evaluations of the period map", res.Evaluations)
	case outcome.Cycle:
		return fmt.Sprintf("cycle of period %d (values averaged over it)", res.Cycle)
	case outcome.NotSettled:
		return fmt.Sprintf("not settled after %d evaluations of the period map: averages over the last %d periods", res.Evaluations, res.Averaged)
	}
	return fmt.Sprintf("%s after %d evaluations of the period map: averages over the last %d periods", res.Status, res.Evaluations, res.Averaged)
}

func unsettledMessage(res *bestofd.AttractorResult, iterations int) string {
	switch res.Status {
	case outcome.IterationLimit:
		return fmt.Sprintf("the work budget ran out after %d periods: the values are averages over the last %d, not an attractor's", res.Evaluations, res.Averaged)
	case outcome.TruncationLimit:
		return fmt.Sprintf("the largest truncation still loses %.2g of the arrivals: the values are not the model's", res.Lost)
	}
	return fmt.Sprintf("the period map did not settle within %d periods: the values are averages over the last %d, not an attractor's", iterations, res.Averaged)
}

// finite is a farm of N servers under a policy that reads no board.
func (r *meanfieldRun) finite() error {
	o, rep := r.o, r.rep
	if len(o.servers) == 0 {
		return usagef("invalid --servers: %s is solved at a finite number of servers: give --servers N (a list)", r.pol)
	}
	if o.period != 0 {
		return usagef("invalid --period: %s reads no board", r.pol)
	}
	status := outcome.Exact
	for _, n := range o.servers {
		row, st, err := farmRow(r.pol, n, o.load, r.disc, r.sizes)
		if err != nil {
			return err
		}
		switch {
		case !st.OK() && status.OK():
			status = st // the first failure
		case st == outcome.Converged && status == outcome.Exact:
			status = st // iterated rather than exact
		}
		rep.Rows = append(rep.Rows, row)
		// The top level's truncation figures are the worst row's: a
		// script reading them must not see 0 beside rows that lost mass.
		rep.Lost, rep.States = max(rep.Lost, row.Lost), max(rep.States, row.States)
	}
	rep.Method = rep.Rows[0].Method
	rep.Status = status.Name()
	r.rows = "rows"
	r.exit = ended(status, fmt.Sprintf("%s: a solve ended without its answer", r.pol))
	r.text = func(b *strings.Builder) {
		fmt.Fprintf(b, "%s with N servers: λ = %g, %s servers, %s sizes\n\n", policyWords(r.pol), o.load, o.discipline, o.sizes)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "N\tmean time in system\tmean delay\tP(server busy at arrival)\tslowdown\tstatus\t\n")
		for _, row := range rep.Rows {
			sd := "—"
			if row.Slowdown != nil {
				sd = g(*row.Slowdown)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", row.N, g(row.Sojourn), g(row.Delay), g(row.BusyAtArrival), sd, row.Status)
		}
		tw.Flush()
		row := rep.Rows[0]
		fmt.Fprintf(b, "\nMethod: %s.\n", row.Method)
		if row.Approximate {
			fmt.Fprintf(b, "Approximate: %s.\n", row.Note)
		}
		if row.Slowdown == nil && row.SlowdownNote != "" {
			fmt.Fprintf(b, "Slowdown: %s.\n", row.SlowdownNote)
		}
	}
	return nil
}

// farmRow solves one finite farm.
func farmRow(pol farm.Policy, n int, load float64, disc farm.Discipline, sizes farm.Sizes) (report.FarmRow, outcome.Status, error) {
	var res *queues.Result
	var err error
	switch pol.Kind {
	case farm.Random:
		res, err = queues.SolveRandom(&queues.Random{Servers: n, Load: load, Discipline: disc, Sizes: sizes}, nil)
	case farm.RoundRobin:
		var rr *queues.RoundRobinResult
		if rr, err = queues.SolveRoundRobin(&queues.RoundRobin{Servers: n, Load: load, Discipline: disc, Sizes: sizes}, nil); err == nil {
			res = &rr.Result
		}
	case farm.LeastWork:
		var lw *queues.LeastWorkResult
		if lw, err = queues.SolveLeastWork(&queues.LeastWork{Servers: n, Load: load, Discipline: disc, Sizes: sizes}, nil); err == nil {
			res = &lw.Result
		}
	case farm.JSQ:
		var j *queues.JSQResult
		if j, err = queues.SolveJSQ(&queues.JSQ{Servers: n, Load: load, Discipline: disc, Sizes: sizes}, nil); err == nil {
			res = &j.Result
		}
	}
	if err != nil {
		return report.FarmRow{}, 0, err
	}
	row := report.FarmRow{N: n, Sojourn: res.Sojourn, MeanQueue: res.MeanQueue, Delay: res.Delay, BusyAtArrival: res.WaitProb,
		SlowdownNote: res.SlowdownNote, Method: res.Method, Approximate: res.Approximate, Note: res.Note,
		Lost: res.Lost, States: res.States, Status: res.Status.Name()}
	if res.Slowdown > 0 {
		row.Slowdown, row.SlowdownNote = ptr(res.Slowdown), ""
	}
	return row, res.Status, nil
}

func policyWords(p farm.Policy) string {
	switch p.Kind {
	case farm.Random:
		return "Random dispatch"
	case farm.RoundRobin:
		return "Round robin"
	case farm.LeastWork:
		return "Least work left (oracle)"
	case farm.JSQ:
		return "Least loaded (live counts)"
	case farm.JSQd:
		return fmt.Sprintf("Best of %d (live counts)", p.D)
	case farm.BoardJSQd:
		return fmt.Sprintf("Best of %d on a board", p.D)
	case farm.BoardJSQ:
		return "Least loaded on a board"
	}
	return p.String()
}

// correlation is ρ(τ) of a server's count under random dispatch.
func (r *meanfieldRun) correlation() error {
	o, rep := r.o, r.rep
	if len(o.servers) > 0 || o.period != 0 {
		return usagef("invalid --servers/--period: the correlation is one server's, under random dispatch, whatever N")
	}
	res, err := queues.SolveCorrelation(&queues.Correlation{Load: o.load, Discipline: r.disc, Sizes: r.sizes, Lags: o.ages}, nil)
	if err != nil {
		return err
	}
	rep.Policy = farm.Policy{Kind: farm.Random}.String()
	rep.Method = "autocorrelation of one M/H2/1 server's count, by uniformisation of the centred stationary vector (random dispatch makes every server one)"
	rep.MeanQueue, rep.Sojourn = ptr(res.Mean), ptr(res.Mean/o.load)
	rep.Lost, rep.States, rep.Status = res.Lost, res.States, res.Status.Name()
	for i, a := range res.Lags {
		rep.Correlations = append(rep.Correlations, report.CorrelationRow{Age: a, Correlation: res.Correlations[i]})
	}
	r.rows = "correlations"
	r.exit = ended(res.Status, "the correlation did not reach its answer")
	r.text = func(b *strings.Builder) {
		fmt.Fprintf(b, "Correlation of a server's count now and τ later, random dispatch: λ = %g, %s servers, %s sizes\n\n", o.load, o.discipline, o.sizes)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "τ\tcorrelation\t\n")
		for _, c := range rep.Correlations {
			fmt.Fprintf(tw, "%g\t%.4g\t\n", c.Age, c.Correlation)
		}
		tw.Flush()
		fmt.Fprintf(b, "\nMean count %.4g, variance %.4g", res.Mean, res.Variance)
		if res.GiantShare > 0 {
			fmt.Fprintf(b, "; giants are %.0f%% of the jobs present and stay %.4g on average (small jobs %.4g)", 100*res.GiantShare, res.GiantStay, res.SmallStay)
		}
		fmt.Fprintf(b, ".\n")
	}
	return nil
}

// crossingRange is the refresh periods the crossing search covers:
// --range lo,hi, or the default of the policy on a board.
func crossingRange(pols [2]farm.Policy, rangeT []float64) (lo, hi float64, err error) {
	lo, hi = queues.StalenessCell{Policy: pols[0]}.Range()
	if pols[0].Kind != farm.BoardJSQd && pols[0].Kind != farm.BoardJSQ {
		lo, hi = queues.StalenessCell{Policy: pols[1]}.Range()
	}
	if len(rangeT) > 0 {
		if len(rangeT) != 2 || !(rangeT[0] > 0 && rangeT[0] < rangeT[1]) {
			return 0, 0, usagef("invalid --range: %v, want lo,hi with 0 < lo < hi", rangeT)
		}
		lo, hi = rangeT[0], rangeT[1]
	}
	return lo, hi, nil
}

// crossingPolicies parses --crossing A,B: two policies with a theory
// curve, at least one on a board; finite counts those solved at finite N.
func crossingPolicies(crossing string) (pols [2]farm.Policy, finite int, err error) {
	as, bs, ok := strings.Cut(crossing, ",")
	if !ok || strings.Contains(bs, ",") {
		return pols, 0, usagef("invalid --crossing: %q, want two policies A,B (e.g. board-jsqd:2,random)", crossing)
	}
	boards := 0
	for i, s := range []string{as, bs} {
		p, err := farm.ParsePolicy(strings.TrimSpace(s))
		if err != nil {
			var pe *param.Error
			if errors.As(err, &pe) {
				return pols, 0, usagef("invalid --crossing: %s", pe.Msg)
			}
			return pols, 0, err
		}
		switch p.Kind {
		case farm.BoardJSQd, farm.BoardJSQ:
			boards++
		case farm.RoundRobin, farm.LeastWork, farm.JSQ:
			finite++
		case farm.JSQd, farm.Random: // no N: a mean field, and M/G/1 at every N
		default:
			return pols, 0, usagef("invalid --crossing: %v has no theory curve (board-jsqd:D, board-jsq, jsqd:D, random, rr, least-work and jsq have one)", p)
		}
		pols[i] = p
	}
	if boards == 0 {
		return pols, 0, usagef("invalid --crossing: neither %v nor %v reads a board, so neither depends on the refresh period", pols[0], pols[1])
	}
	return pols, finite, nil
}

// crossingMode finds the refresh period from which one policy does worse
// than another.
func (r *meanfieldRun) crossingMode(stderr io.Writer) error {
	o, rep := r.o, r.rep
	pols, finite, err := crossingPolicies(o.crossing)
	if err != nil {
		return err
	}
	f := queues.Farm{Load: o.load, Discipline: r.disc, Sizes: r.sizes}
	switch {
	case finite > 0 && len(o.servers) != 1:
		return usagef("invalid --servers: the crossing needs one N for the finite farms (%v at --servers N; the board policies are N → ∞ mean fields)", pols)
	case finite == 0 && len(o.servers) > 0:
		return usagef("invalid --servers: %v and %v are N → ∞ mean fields", pols[0], pols[1])
	case finite > 0:
		f.Servers = o.servers[0]
	}
	if o.period != 0 {
		return usagef("invalid --period: the crossing searches the period over --range")
	}
	lo, hi, err := crossingRange(pols, o.rangeT)
	if err != nil {
		return err
	}
	c := startComputation(stderr, "period maps", "stopping the crossing search; the points finished follow")
	defer c.stop()
	run := c.run(0)
	set, err := r.attractorSettings(run)
	if err != nil {
		return err
	}
	var curves [2]*queues.PolicyCurve
	for i, p := range pols {
		if curves[i], err = queues.NewPolicyCurve(p, f, set); err != nil {
			return boardUsage(err)
		}
	}
	cr, err := queues.Crossing(curves[0].Curve(), curves[1].Curve(), lo, hi, &queues.CrossingSettings{Run: outcome.Run{Context: run.Context}, Grid: param.Or(o.grid, 10), XTol: 1e-3})
	c.done()
	if err != nil {
		return boardUsage(err)
	}
	rep.Policy, rep.Versus = pols[0].String(), ptr(pols[1].String())
	rep.Method = fmt.Sprintf("%v: %s; %v: %s; the first sign change of the difference on a geometric grid, then Brent's zeroin to 1e-3 relative", pols[0], curves[0].Method, pols[1], curves[1].Method)
	rep.Range, rep.Bracket = []float64{lo, hi}, cr.Bracket[:]
	rep.Status = cr.Status.Name()
	if cr.Status == outcome.EdgeFound {
		rep.Period, rep.Sojourn, rep.VersusSojourn = ptr(cr.X), ptr(cr.F), ptr(cr.G)
	}
	rep.Points = crossingPoints(curves)
	r.rows = "points"
	name := func(i int) string {
		s := policyWords(pols[i])
		if f.Servers > 0 && (pols[i].Kind == farm.RoundRobin || pols[i].Kind == farm.LeastWork || pols[i].Kind == farm.JSQ) {
			s += fmt.Sprintf(" (N = %d)", f.Servers)
		}
		return strings.ToLower(s[:1]) + s[1:]
	}
	failed := map[outcome.Status]string{
		outcome.AboveRange: fmt.Sprintf("%s stays at or below %s up to T = %g: no crossing in the range searched", name(0), name(1), hi),
	}[cr.Status]
	if failed == "" {
		failed = "the crossing search ended without its answer"
	}
	r.exit = c.ended(cr.Status, failed, "the points finished are shown (status interrupted)")
	r.text = func(b *strings.Builder) {
		fmt.Fprintf(b, "Crossing: the refresh period T from which %s does worse than %s: λ = %g, %s servers, %s sizes\n\n", name(0), name(1), o.load, o.discipline, o.sizes)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		switch cr.Status {
		case outcome.EdgeFound:
			fmt.Fprintf(tw, "T*	%.5g (bracket [%.5g, %.5g])\n", cr.X, cr.Bracket[0], cr.Bracket[1])
			fmt.Fprintf(tw, "mean time in system at T*	%.5g and %.5g\n", cr.F, cr.G)
		case outcome.NoEdge:
			fmt.Fprintf(tw, "T*	below %g: %s is already worse at the bottom of the range\n", lo, name(0))
		default:
			fmt.Fprintf(tw, "T*	not found (%s); range searched [%g, %g]\n", cr.Status, lo, hi)
		}
		fmt.Fprintf(tw, "evaluations	%d\n", cr.Evaluations)
		tw.Flush()
		b.WriteString("\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "T	%s	%s	difference	attractor	\n", name(0), name(1))
		for _, p := range rep.Points {
			att := strings.ReplaceAll(p.Attractor, "_", " ")
			if p.Spread != nil {
				att += fmt.Sprintf(" (average; sd %.2g)", *p.Spread)
			}
			fmt.Fprintf(tw, "%.5g	%.5g	%.5g	%+.3g	%s	\n", p.Period, p.Sojourn, p.VersusSojourn, p.Difference, att)
		}
		tw.Flush()
		fmt.Fprintf(b, "\nMethods: %s.\n", rep.Method)
		for i, cv := range curves {
			if cv.Approximate {
				fmt.Fprintf(b, "%s is an approximation.\n", name(i))
			}
		}
	}
	return nil
}

// crossingPoints pairs the two curves' values, evaluated at the same
// periods in the same order; the attractor column is the board's (the
// first one's if both read a board).
func crossingPoints(curves [2]*queues.PolicyCurve) []report.CrossingPoint {
	a, b := curves[0].Points(), curves[1].Points()
	var out []report.CrossingPoint
	for i := range min(len(a), len(b)) {
		p := report.CrossingPoint{Period: a[i].T, Sojourn: a[i].Sojourn, VersusSojourn: b[i].Sojourn, Difference: a[i].Sojourn - b[i].Sojourn}
		board := a[i]
		if curves[0].Constant {
			board = b[i]
		}
		p.Attractor = board.Status.Name()
		if board.Status == outcome.NotSettled {
			p.Spread = ptr(board.Spread)
		}
		out = append(out, p)
	}
	return out
}

// stalenessTables computes the study's staleness tables from theory.
func (r *meanfieldRun) stalenessTables(stderr io.Writer) error {
	rep := r.rep
	c := startComputation(stderr, "staleness cells", "stopping the staleness tables; the cells finished follow")
	defer c.stop()
	c.least = 1
	run := c.run(0)
	set, err := r.attractorSettings(outcome.Run{Context: run.Context})
	if err != nil {
		return err
	}
	rep.Policy, rep.Discipline, rep.Sizes, rep.Load = "", farm.PS.String(), "", 0.9
	rep.Method = "each cell: the board policy's periodic-update mean field (N → ∞) against random or round robin at N = 100 (exact), crossing found on a geometric grid, then by Brent's zeroin to 1e-3 relative"
	status := outcome.Completed
	var results []*queues.StalenessResult
	for i, cell := range queues.StalenessStudy {
		run.Report(int64(i), int64(len(queues.StalenessStudy)), fmt.Sprintf("%v vs %v, %v", cell.Policy, cell.Versus, cell.Sizes()))
		t0 := time.Now()
		res, err := queues.SolveStaleness(cell, &queues.CrossingSettings{Run: outcome.Run{Context: run.Context}}, set)
		if err != nil {
			return boardUsage(err)
		}
		if res.Crossing.Status == outcome.Interrupted {
			status = outcome.Interrupted
			break
		}
		results = append(results, res)
		cr := res.Crossing
		rep.Staleness = append(rep.Staleness, report.StalenessRow{Sizes: cell.Sizes().String(), Policy: cell.Policy.String(), Versus: cell.Versus.String(),
			Period: cr.X, Bracket: cr.Bracket[:], Status: cr.Status.Name(), Published: []float64{cell.Lo, cell.Hi}, Inside: res.Inside(),
			Evaluations: cr.Evaluations, Seconds: time.Since(t0).Seconds()})
		if !cr.Status.OK() && status.OK() {
			status = cr.Status
		}
	}
	c.done()
	rep.Status = status.Name()
	r.rows = "staleness"
	r.exit = c.ended(status, "a crossing was not bracketed in its range", fmt.Sprintf("the %d cells finished are shown (status interrupted)", len(rep.Staleness)))
	r.text = func(b *strings.Builder) { writeStalenessText(b, results) }
	return nil
}

// writeStalenessText writes the staleness cells as the study's tables,
// three cells (one size law) a row.
func writeStalenessText(b *strings.Builder, results []*queues.StalenessResult) {
	b.WriteString("Staleness budgets from theory: the refresh period T from which a policy on a board does worse (PS servers, λ = 0.9;\n")
	b.WriteString("boards N → ∞, random and round robin at N = 100), beside the grid cells of \"Sharing Servers Don't Mind the Giant\" (N = 100)\n\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sizes\tbest of two worse than random\tstudy\tbest of two worse than round robin\tstudy\tleast loaded worse than round robin\tstudy\t\n")
	for i := 0; i < len(results); i += 3 {
		fmt.Fprintf(tw, "%s", results[i].Sizes())
		for j := i; j < i+3 && j < len(results); j++ {
			fmt.Fprintf(tw, "\t%s\t%g–%g", stalenessCellText(results[j]), results[j].Lo, results[j].Hi)
		}
		fmt.Fprintf(tw, "\t\n")
	}
	tw.Flush()
	inside := 0
	for _, res := range results {
		if res.Inside() {
			inside++
		}
	}
	fmt.Fprintf(b, "\n%d of %d crossings inside the study's cells (✓). Boards: the N → ∞ periodic-update attractor (an average over the last\n", inside, len(results))
	b.WriteString("periods where the orbit does not settle); the study's boards are 100 servers, where least loaded herds harder.\n")
}

func stalenessCellText(res *queues.StalenessResult) string {
	cr := res.Crossing
	var s string
	switch cr.Status {
	case outcome.EdgeFound:
		s = fmt.Sprintf("%.4g", cr.X)
	case outcome.NoEdge:
		s = fmt.Sprintf("< %g", cr.Bracket[0])
	case outcome.AboveRange:
		s = fmt.Sprintf("> %g", cr.Bracket[1])
	default:
		s = cr.Status.String()
	}
	if res.Inside() {
		s += " ✓"
	}
	return s
}
