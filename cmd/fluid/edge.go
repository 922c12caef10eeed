package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/sim/tipping"
)

type edgeOptions struct {
	words    boardWords
	ks       string
	loads    []float64
	servers  string
	horizon  int
	simulate bool
	theory   string
	reps     int
	seed     uint64
	floor    float64
	confirm  bool
	workers  int
	maxT     float64
	json     bool
	csv      bool
}

// edgeLong is the command's help.
const edgeLong = `edge computes the tipping edge T* of a stale load board: k dispatchers send
jobs by a board of the servers' queue lengths refreshed every T (each adding
its own sends to what the board shows), in a farm so large that it behaves
like its N → ∞ limit, the refresh-period map (what the board shows at one
refresh as a function of the last). At long periods the load stays
balanced; T* is the shortest period down to which that balanced state
survives, followed from long periods. Below T* every dispatcher sends to
the same few servers at once (the herd); above it, the herd is possible
too, from a bad start.

Columns: k and λ; T*, in mean service times; T*(1−λ)², the edge scaled
so that loads compare; 0.9(k−2), a rule of thumb for the scaled edge, and
the ratio to it; branch, the pass of the board's refresh cycle in progress
at T* on the balanced state (the map is smooth in pieces, one per pass);
ends by, how the balanced state ends: "border collision" (the state
reaches the edge of its smooth piece while still stable: an eigenvalue
test alone never finds it) or an eigenvalue crossing 1; leading eig., the
largest eigenvalue of the map's linearisation there (modulus < 1 is
stable); sojourn, the mean time in system there. "none ≥ F" means the
balanced state survives down to the lowest period searched, --floor. Words:
fluid help glossary.

With --servers it adds the edge of finite farms of N servers: T*(N, H), the
period at which a farm started balanced tips into the herd within --horizon
H refresh periods with probability ½, from a Monte Carlo of the map with
its finite-N noise (the dispatchers' clocks stretching the passes, the
servers' moves given the clocks; nothing fitted), which also prints the
tipping curve and the mean time to tip (--theory escape: the older escape
analysis along the board mean). Its table shows T*(N) and T*(N)(1−λ)² beside the N → ∞ value. With --simulate it
also measures that edge with the simulator: runs of N servers from the empty
start at seven periods around the theory edge, --reps each, stopped at the
tip, and the logistic fit of the fraction that tipped, with its 95% interval.
--servers computes one finite-N edge per k: give -k with it.

--policy, --sizes and --discipline take the simulator's words (fluid map --help):
--sizes h2:SCV --discipline ps is the edge of processor-sharing servers with
hyperexponential sizes (the board still shows counts; each server's job phases
are followed between refreshes). The finite-N theory takes exponential sizes only.

-k, --load and --servers take lists and ranges (-k 2..10 --load 0.8,0.9,0.95
--servers 25,100,800): the table has a row per combination; they run in
parallel on all cores and print in order.`

func newEdge() *cobra.Command {
	o := &edgeOptions{}
	cmd := &cobra.Command{
		Use:   "edge",
		Short: "Tipping edge of the stale load board with k dispatchers",
		Long:  edgeLong,
		Example: `  fluid edge
  fluid edge -k 5 --load 0.9 --confirm
  fluid edge -k 2..10 --load 0.8,0.9,0.95 --json
  fluid edge -k 5 --load 0.9 --servers 25,100,800,1600
  fluid edge -k 5 --load 0.9 --servers 100 --simulate --reps 16
  fluid edge -k 3 --sizes h2:10 --discipline ps`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.servers != "" && !cmd.Flags().Changed("dispatchers") {
				// The default -k 2..10 would start nine finite-N searches.
				return usagef("--servers computes a finite-N edge for each k of --dispatchers (-k), nine by default (2..10): give -k, e.g. -k 5 --servers %s (or -k 2..10 for all nine)", o.servers)
			}
			o.words.policySet, o.words.tallySet = cmd.Flags().Changed("policy"), cmd.Flags().Changed("tally")
			return runEdge(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	o.words.flags(f)
	f.StringVarP(&o.ks, "dispatchers", "k", "2..10", concept("dispatchers", "a list or ranges"))
	f.Float64SliceVar(&o.loads, "load", []float64{0.9}, concept("load", "0 < λ < 1; a list or ranges"))
	f.StringVar(&o.servers, "servers", "", concept("servers", "of the finite-N edges; a list or ranges (none: N → ∞ only)"))
	f.IntVar(&o.horizon, "horizon", staleboard.DefaultHorizon, concept("horizon", "finite N; 1..1000000"))
	f.BoolVar(&o.simulate, "simulate", false, "finite N: also measure the edge by simulation")
	f.StringVar(&o.theory, "theory", "noisy-map", "finite N: noisy-map (Monte Carlo of the noisy map, about a second an edge: a monotone tipping curve and the mean time to tip) or escape (the one-coordinate escape chain, seconds; right at N ≤ 100 for k = 5, too high at large N)")
	f.IntVar(&o.reps, "reps", 16, "with --simulate: runs per simulated period (2..10000)")
	f.Uint64Var(&o.seed, "seed", 1, "finite N (the noisy map, --simulate): random seed")
	f.Float64Var(&o.floor, "floor", staleboard.DefaultFloor, "lowest T(1−λ)² searched, in mean service times")
	f.BoolVar(&o.confirm, "confirm", false, "confirm each edge by direct iteration just above and below it")
	f.Float64Var(&o.maxT, "max-period", staleboard.DefaultEdgeMaxPeriod, "largest refresh period T the search may visit, in mean service times (the search cost grows with T; at most 1e6)")
	f.IntVar(&o.workers, "workers", 0, "edges computed at once (0: all cores); results do not depend on it")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per entry; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Edge; schema in docs/schema/edge.json)")
	finite := needs(func() bool { return o.servers != "" }, "it applies to finite-N edges: add --servers N")
	simulated := needs(func() bool { return o.simulate }, "it applies to the simulated edges: add --servers N --simulate")
	declare(cmd,
		flagRule{flag: "dispatchers", field: "K", list: kind(lists.Int)},
		flagRule{flag: "load", field: "Load", list: kind(lists.Float)},
		flagRule{flag: "servers", field: "Servers", list: kind(lists.Int)},
		flagRule{flag: "horizon", field: "Horizon", rng: in(1, staleboard.MaxHorizon, "1000"), when: finite},
		flagRule{flag: "simulate", when: finite},
		flagRule{flag: "reps", field: "Reps", rng: in(2, 10000, "16"), when: simulated},
		flagRule{flag: "theory", field: "Method", when: finite},
		flagRule{flag: "seed", field: "Seed", when: func() string {
			if o.servers != "" && (o.simulate || o.theory == "noisy-map") {
				return ""
			}
			if o.servers == "" {
				return "it applies to finite-N edges (the noisy map and the simulated edges): add --servers N"
			}
			return "it applies to the simulated edges and the noisy map: add --simulate or --theory noisy-map"
		}},
		flagRule{flag: "floor", field: "Floor", rng: between(0, math.MaxFloat64, "()", "0.05")},
		flagRule{flag: "max-period", field: "MaxPeriod", rng: between(0, staleboard.MaxPeriod, "(]", "20000")},
		flagRule{flag: "workers", field: "Workers", rng: in(0, maxWorkers, "2")},
	)
	o.words.declare(cmd)
	cmd.Annotations[fieldKey+"Top"] = "--floor\x00--floor" // the search range [floor, top] is empty
	return cmd
}

func runEdge(stdout, stderr io.Writer, o *edgeOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	ks, servers, err := edgeGrid(o)
	if err != nil {
		return err
	}
	var systems []staleboard.System
	var pol farm.Policy
	for _, l := range o.loads {
		for _, k := range ks {
			var sys staleboard.System
			if sys, pol, err = o.words.system(k, l); err != nil {
				return err
			}
			systems = append(systems, sys)
		}
	}
	start := time.Now()
	c := startComputation(stderr, "edges", "stopping the edge table; finished results follow")
	defer c.stop()
	set := staleboard.EdgeSettings{Floor: o.floor, Confirm: o.confirm, MaxPeriod: o.maxT, Run: c.run(o.workers)}
	rep := &report.Edge{Header: report.NewHeader("edge"), Confirm: o.confirm, Simulate: o.simulate}
	if o.simulate {
		rep.Reps, rep.Seed = ptr(o.reps), ptr(o.seed)
	}
	if len(systems) > 0 {
		rep.Policy, rep.Sizes, rep.Discipline, rep.Alpha = pol.String(), systems[0].Sizes.String(), systems[0].Discipline.String(), o.words.alpha
	}
	fs := staleboard.FiniteSettings{EdgeSettings: set, Seed: o.seed}
	switch o.theory {
	case "escape":
	case "noisy-map":
		fs.Method = staleboard.NoisyMap
		rep.Seed = ptr(o.seed)
	default:
		return usagef("invalid --theory: %q, want escape or noisy-map (e.g. --theory noisy-map)", o.theory)
	}
	entries, err := edgeRows(rep, systems, servers, o.horizon, &fs)
	c.done()
	if err != nil {
		return err
	}
	var halted error
	if len(rep.Rows) < entries {
		halted = c.halted("%d of %d entries finished (printed)", len(rep.Rows), entries)
	}
	if o.simulate && halted == nil {
		c.label = "simulating"
		done, all, err := simulateEdges(rep, o, c.run(o.workers))
		c.done()
		if err != nil {
			return err
		}
		if done < all {
			halted = c.halted("the theory is complete; %d of the simulated edges finished (printed)", done)
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Status = outcome.Completed.Name()
	if halted != nil {
		rep.Status = outcome.Interrupted.Name()
	}
	if len(rep.Rows) == 0 && halted != nil {
		return c.interruptedBefore(stdout, output{json: o.json}, "edge", "no entry had finished")
	}
	out := output{json: o.json, csv: o.csv, rows: "rows"}
	if err := emit(stdout, out, rep, func(w io.Writer) error { return writeEdgeTable(w, rep) }); err != nil {
		return err
	}
	return halted
}

// edgeGrid are the table's dispatcher counts and finite numbers of
// servers (none: N = ∞ only).
func edgeGrid(o *edgeOptions) (ks, servers []int, err error) {
	ks, err = parseIntList("dispatchers", o.ks)
	if err != nil {
		return nil, nil, err
	}
	if o.servers != "" {
		servers, err = parseIntList("servers", o.servers)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range servers {
			if n < 1 {
				return nil, nil, usagef("invalid --servers: %d, want N ≥ 1 (e.g. --servers 100)", n)
			}
		}
	}
	if o.simulate && len(servers) == 0 {
		return nil, nil, usagef("--simulate needs --servers: the simulator runs finite systems")
	}
	return ks, servers, nil
}

// simulateEdges measures every finite-N edge of the report by simulation
// (tipping.AroundEdge: seven periods within ±10% of the theory edge, then
// two more where the simulated fraction falls through ½), telling run's
// progress of the periods simulated. It returns the number of rows
// simulated and of rows to simulate: fewer when run's context was
// cancelled.
func simulateEdges(rep *report.Edge, o *edgeOptions, run outcome.Run) (int, int, error) {
	var rows []*report.EdgeRow
	for i := range rep.Rows {
		if rep.Rows[i].Servers != nil && rep.Rows[i].Scaled != nil {
			rows = append(rows, &rep.Rows[i])
		}
	}
	design := tipping.AroundEdge(1, o.seed, 0) // the periods each edge simulates
	per, total := int64(len(design.Scaled)+design.Refine), int64(len(rows)*(len(design.Scaled)+design.Refine))
	for i, row := range rows {
		set := tipping.AroundEdge(*row.Scaled, o.seed, i)
		set.Reps, set.Horizon = o.reps, *row.Horizon
		set.Run = run
		set.Progress = func(done, _ int64, _ string) { run.Report(int64(i)*per+done, total, "") }
		curve, err := tipping.Simulate(&tipping.Model{Dispatchers: row.Dispatchers, Load: row.Load, Servers: *row.Servers}, set)
		if err != nil {
			return i, len(rows), err
		}
		if curve.Status == outcome.Interrupted {
			return i, len(rows), nil
		}
		se := &report.SimulatedEdge{Status: curve.Status.Name(), Reps: o.reps}
		if curve.Status == outcome.Converged {
			// Otherwise the fit has no crossing or no bounded interval
			// (its numbers NaN): the points are the evidence.
			se.Scaled, se.CI95 = ptr(curve.Edge), &[2]float64{curve.EdgeLo, curve.EdgeHi}
		}
		for _, p := range curve.Points {
			se.Points = append(se.Points, report.SimulatedPoint{Scaled: p.Scaled, Tipped: p.Tipped, Reps: p.Reps, Fraction: p.Fraction, CI95: [2]float64{p.Lo, p.Hi}})
		}
		row.Simulated = se
	}
	return len(rows), len(rows), nil
}

// edgeRows computes the edges of every load and k (and, for each, of
// every N of servers) into rep's rows, in that order, and returns the
// number of rows a finished computation has: with servers, the N = ∞ row
// of each system is the edge its finite-N search started from.
func edgeRows(rep *report.Edge, systems []staleboard.System, servers []int, horizon int, fs *staleboard.FiniteSettings) (int, error) {
	set := &fs.EdgeSettings
	if len(servers) == 0 {
		results, err := staleboard.EdgeTable(systems, set)
		for _, r := range results {
			if r.Status != outcome.Interrupted {
				rep.Rows = append(rep.Rows, newEdgeRow(r, set.Floor))
			}
		}
		return len(systems), err
	}
	var models []staleboard.FiniteModel
	for _, s := range systems {
		for _, n := range servers {
			models = append(models, staleboard.FiniteModel{System: s, Servers: n, Horizon: horizon})
		}
	}
	results, err := staleboard.FiniteEdgeTable(models, fs)
	for i, r := range results {
		if inf := r.Infinite; i%len(servers) == 0 && inf != nil && inf.Status != outcome.Interrupted {
			rep.Rows = append(rep.Rows, newEdgeRow(inf, set.Floor))
		}
		if r.Status != outcome.Interrupted {
			rep.Rows = append(rep.Rows, newFiniteRow(r, set.Floor))
		}
	}
	return len(systems) * (1 + len(servers)), err
}

func newEdgeRow(r *staleboard.EdgeResult, floor float64) report.EdgeRow {
	row := report.EdgeRow{
		Dispatchers: r.K, Load: r.Load, Line: r.Line, Floor: floor,
		Leading: ptr(complexOf(r.Leading)),
		Radius:  ptr(r.Radius), BoardMean: ptr(r.BoardMean), Sojourn: ptr(r.Sojourn),
		Evals: r.Evaluations, RowSeconds: r.Elapsed.Seconds(), Status: r.Status.Name(),
	}
	if r.Method != "" {
		row.Method = ptr(string(r.Method))
		if r.Fallback != "" {
			row.Fallback = ptr(r.Fallback)
		}
	}
	if r.Status == outcome.NoEdge {
		return row
	}
	row.Mechanism = ptr(r.Mechanism.String())
	row.Period, row.Scaled = ptr(r.Period), ptr(r.Scaled)
	row.Bracket = []float64{r.Lo, r.Hi}
	row.Branch = ptr(r.Branch)
	if !math.IsNaN(r.Collision) {
		row.Collision = ptr(r.Collision)
	}
	if r.Line > 0 {
		row.Ratio = ptr(r.Scaled / r.Line)
	}
	if c := r.Confirmation; c != nil {
		row.Confirm = &report.Confirmation{Above: c.Above, AboveDecay: c.AboveDecay, AboveOK: c.AboveOK, Below: c.Below, BelowTipped: c.BelowTipped, BelowPeriods: c.BelowIterations, BelowSojourn: c.BelowSojourn}
	}
	return row
}

// newFiniteRow is the row of a finite-N edge: the fields of the N = ∞
// edge's last fixed point (leading, radius, board_mean, sojourn, branch,
// method) are null.
func newFiniteRow(r *staleboard.FiniteEdgeResult, floor float64) report.EdgeRow {
	row := report.EdgeRow{
		Dispatchers: r.K, Load: r.Load, Line: r.Line, Floor: floor,
		Evals: r.Evaluations, RowSeconds: r.Elapsed.Seconds(), Status: r.Status.Name(),
		Servers: ptr(r.Servers), Horizon: ptr(r.Horizon),
	}
	if r.Infinite.Status == outcome.EdgeFound {
		row.InfiniteScaled = ptr(r.Infinite.Scaled)
	}
	row.FiniteTheory = ptr(r.Method.String())
	if r.Method == staleboard.NoisyMap {
		for _, c := range r.Curve {
			pt := report.TipPoint{Scaled: c.Scaled, Probability: c.Probability, Fraction: c.Raw, Reps: c.Runs}
			if !math.IsInf(c.MeanTime, 0) {
				pt.MeanTimeToTip = ptr(c.MeanTime)
			}
			row.Curve = append(row.Curve, pt)
		}
		if !math.IsInf(r.MeanTime, 0) && r.MeanTime > 0 {
			row.MeanTimeToTip = ptr(r.MeanTime)
		}
	}
	switch r.Status {
	case outcome.AboveRange:
		row.Bracket = []float64{r.Lo}
		return row
	case outcome.NoEdge:
		return row
	}
	row.Mechanism = ptr("escape within the horizon")
	row.Period, row.Scaled = ptr(r.Period), ptr(r.Scaled)
	row.Bracket = []float64{r.Lo, r.Hi}
	if r.Line > 0 {
		row.Ratio = ptr(r.Scaled / r.Line)
	}
	return row
}

func writeEdgeTable(w io.Writer, r *report.Edge) error {
	var b strings.Builder
	what := "k dispatchers each adding its own sends"
	switch r.Policy {
	case "shared-tally":
		what = "k dispatchers with a shared tally (the k = 1 map)"
	case "partitioned":
		what = "k dispatchers over N/k servers each (the k = 1 map)"
	}
	if r.Sizes != "" && r.Sizes != "exp" {
		what += fmt.Sprintf(", %s servers, %s sizes", r.Discipline, r.Sizes)
	}
	if len(r.Alpha) > 0 {
		what += fmt.Sprintf(", shares α = %v", r.Alpha)
	}
	fmt.Fprintf(&b, "Tipping edge of the stale load board, %s (N → ∞, refresh-period map)\n\n", what)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "k\tλ\tT*\tT*(1−λ)²\t0.9(k−2)\tratio\tbranch\tends by\tleading eig.\tsojourn\tseconds\t")
	confirmed := false
	finite := false
	for _, row := range r.Rows {
		if row.Servers != nil {
			finite = true
			continue
		}
		if row.Scaled == nil {
			fmt.Fprintf(tw, "%d\t%s\t—\tnone ≥ %s\t%s\t\t\t\t%s\t%.3g\t%.1f\t\n", row.Dispatchers, g(row.Load), g(row.Floor), g(row.Line), fmtComplex(*row.Leading), *row.Sojourn, row.RowSeconds)
			continue
		}
		ratio := ""
		if row.Ratio != nil {
			ratio = fmt.Sprintf("%.3f", *row.Ratio)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%.4f\t%s\t%s\t%d\t%s\t%s\t%.3g\t%.1f\t\n", row.Dispatchers, g(row.Load), *row.Period, *row.Scaled, g(row.Line), ratio, *row.Branch, *row.Mechanism, fmtComplex(*row.Leading), *row.Sojourn, row.RowSeconds)
		confirmed = confirmed || row.Confirm != nil
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nT* (mean service times) is bracketed to 1e-4 relative; branch = pass of the refresh cycle in progress at T*\n")
	fmt.Fprintf(&b, "on the last balanced state; sojourn = mean time in system there. %s in %.1f s. Words: fluid help glossary.\n", plural(len(r.Rows), "entry"), r.Seconds)
	if finite {
		writeEdgeFinite(&b, r)
	}
	if confirmed {
		b.WriteString("\nDirect iteration:\n")
		for _, row := range r.Rows {
			c := row.Confirm
			if c == nil {
				continue
			}
			above := "perturbation decays"
			if !c.AboveOK {
				above = "PERTURBATION DOES NOT DECAY"
			}
			below := fmt.Sprintf("tips into the herd after %d periods (mean time %.4g)", c.BelowPeriods, c.BelowSojourn)
			if !c.BelowTipped {
				below = "DOES NOT TIP"
			}
			fmt.Fprintf(&b, "  k=%d λ=%s: at T=%.2f %s (×%.2g in 100 periods); at T=%.2f %s\n", row.Dispatchers, g(row.Load), c.Above, above, c.AboveDecay, c.Below, below)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEdgeFinite adds the finite-N rows: the theory edge per N, and the
// simulated one with its interval.
func writeEdgeFinite(b *strings.Builder, r *report.Edge) {
	b.WriteString("\nFinite N: T*(N, H), where a system of N servers started balanced tips within H refresh periods with probability ½\n\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	simulated := false
	for _, row := range r.Rows {
		simulated = simulated || row.Simulated != nil
	}
	if simulated {
		fmt.Fprintln(tw, "k\tλ\tN\tH\tT*(N)\tT*(N)(1−λ)²\tN = ∞\tsimulated\t95% interval\tpoints (tipped/runs)\t")
	} else {
		fmt.Fprintln(tw, "k\tλ\tN\tH\tT*(N)\tT*(N)(1−λ)²\tN = ∞\t")
	}
	for _, row := range r.Rows {
		if row.Servers == nil {
			continue
		}
		period, edge, inf := "—", "—", fmt.Sprintf("none ≥ %g", row.Floor)
		switch {
		case row.Scaled != nil:
			edge = fmt.Sprintf("%.4f", *row.Scaled)
			if row.Period != nil {
				period = fmt.Sprintf("%.2f", *row.Period)
			}
		case row.Status == outcome.NoEdge.Name():
			edge = inf
		case len(row.Bracket) == 1:
			edge = fmt.Sprintf("above T = %.4g", row.Bracket[0])
		}
		if row.InfiniteScaled != nil {
			inf = fmt.Sprintf("%.4f", *row.InfiniteScaled)
		}
		sim, ci, pts := "", "", ""
		if s := row.Simulated; s != nil {
			sim = "no crossing"
			if s.Status == "converged" {
				sim, ci = fmt.Sprintf("%.4f", *s.Scaled), fmt.Sprintf("[%.4f, %.4f]", s.CI95[0], s.CI95[1])
			}
			var p []string
			for _, q := range s.Points {
				p = append(p, fmt.Sprintf("%.2f:%d/%d", q.Scaled, q.Tipped, q.Reps))
			}
			pts = strings.Join(p, " ")
		}
		if !simulated {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t\n", row.Dispatchers, g(row.Load), *row.Servers, *row.Horizon, period, edge, inf)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", row.Dispatchers, g(row.Load), *row.Servers, *row.Horizon, period, edge, inf, sim, ci, pts)
	}
	tw.Flush()
	noisy := false
	for _, row := range r.Rows {
		if row.FiniteTheory != nil && *row.FiniteTheory == staleboard.NoisyMap.String() {
			noisy = true
		}
	}
	if !noisy {
		b.WriteString("\nTheory: the map's escape analysis (board noise at finite N, its stationary spread, the climb over the saddle to the herd).\n")
		return
	}
	b.WriteString("\nTheory: Monte Carlo of the noisy map (the map with its passes stretched by the dispatchers' clocks, plus the rest\n")
	b.WriteString("of the board's one-period noise: Gaussian on its common classes, Poisson counts on its rare ones); P = the\n")
	b.WriteString("probability of tipping within H periods, the isotonic fit of the tipped fractions (monotone in T); mean time to\n")
	b.WriteString("tip = refresh periods watched per tip.\n")
	for _, row := range r.Rows {
		if len(row.Curve) == 0 {
			continue
		}
		mt := "—"
		if row.MeanTimeToTip != nil {
			mt = fmt.Sprintf("%.0f", *row.MeanTimeToTip)
		}
		fmt.Fprintf(b, "\nk = %d, λ = %s, N = %d: mean time to tip at the edge %s periods\n", row.Dispatchers, g(row.Load), *row.Servers, mt)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "T(1−λ)²\tP\ttipped\tmean time to tip\t")
		for _, c := range row.Curve {
			mt := "> " + strconv.Itoa(c.Reps**row.Horizon)
			if c.MeanTimeToTip != nil {
				mt = fmt.Sprintf("%.0f", *c.MeanTimeToTip)
			}
			fmt.Fprintf(tw, "%.4f\t%.3f\t%d/%d\t%s\t\n", c.Scaled, c.Probability, int(math.Round(c.Fraction*float64(c.Reps))), c.Reps, mt)
		}
		tw.Flush()
	}
}
