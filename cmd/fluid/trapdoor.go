package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
)

type trapdoorOptions struct {
	k          int
	load       float64
	periods    []float64
	push       string
	start      string
	onBalanced bool
	servers    int
	difference float64
	relTol     float64
	workers    int
	json, csv  bool
}

func newTrapdoor() *cobra.Command {
	o := &trapdoorOptions{}
	cmd := &cobra.Command{
		Use:   "trapdoor",
		Short: "How large a disturbance tips the stale board into the herd (the critical push b*)",
		Long: `trapdoor computes, from the refresh-period map, how big a disturbance opens the
trap door: above the tipping edge the balanced state and the herd coexist, and a
push large enough carries the board out of the balanced state's basin. For each
refresh period it finds the critical push b*, the smallest push of the family
--push whose orbit ends in the herd, by bisection on the push's size (each orbit
followed until it is back at the balanced fixed point or has tipped: its two
groups' gap above max((1 − λ)·T, 3/(1 − λ)) at two refreshes in a row), with the
bracket. Families (--push; the size after the colon is ignored, b* is searched):
half (half the servers receive b extra jobs: the half-loaded start), backlog:F
(a fraction F of them: a restart of the others, or a scale-out by 1 − F empty
servers, leaves this), spread (0..b spread evenly) and hot (one server of
--servers). The push lands on --start (default empty) at the start, at refresh n
with @n, or with --on-balanced on the balanced fixed point itself, whose basin
vanishes at the edge.

Beside it, the mechanism at the balanced fixed point: the board's quantiles, the
expected range (longest less shortest queue) of --servers servers drawn from it,
times (1 − λ), and how a difference of --difference jobs on half the servers comes
back one refresh later (its factor, against the −(k − 1) of the dispatchers'
top-up alone, and the share of the overshoot drained by then).`,
		Example: `  fluid trapdoor -k 5 --load 0.9 --period 450,1000,2000
  fluid trapdoor -k 5 --period 300,350,450 --on-balanced
  fluid trapdoor -k 5 --period 1000 --push hot --servers 100 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTrapdoor(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.k, "dispatchers", "k", 5, "dispatchers k, each adding its own sends to the board")
	f.Float64Var(&o.load, "load", 0.9, "load λ: arrival rate per server, in jobs per mean service time, 0 < λ < 1")
	f.Float64SliceVar(&o.periods, "period", []float64{450, 1000, 2000}, "board refresh periods T, in mean service times; a list or ranges")
	f.StringVar(&o.push, "push", "half", "push family: half, backlog:F, spread or hot, optionally @n (lands at refresh n)")
	f.StringVar(&o.start, "start", "empty", "the farm's state before the push: empty, balanced:L, half:B or spread:S (B may be a multiple of T: 0.1T)")
	f.BoolVar(&o.onBalanced, "on-balanced", false, "land the push on the balanced fixed point itself (no --start, no @n)")
	f.IntVar(&o.servers, "servers", 100, "servers N: of the hot server's farm, and of the board range (2..2³⁰)")
	f.Float64Var(&o.difference, "difference", 5, "the difference d, in jobs, on half the servers whose one-refresh response is reported")
	f.Float64Var(&o.relTol, "rtol", 0.005, "relative width of each bracket on b*, 1e-6..0.5")
	f.IntVar(&o.workers, "workers", 0, "periods computed at once (0: all cores); results do not depend on it")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per period; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.TrapDoor; schema in docs/schema/trapdoor.json)")
	declare(cmd,
		flagRule{flag: "dispatchers", field: "K"}, flagRule{flag: "load", field: "Load"},
		flagRule{flag: "period", field: "Period"}, flagRule{flag: "start", field: "Start"},
		flagRule{flag: "push", field: "Push"}, flagRule{flag: "on-balanced", field: "OnBalanced"},
		flagRule{flag: "servers", field: "Servers"}, flagRule{flag: "rtol", field: "RelTol"},
		flagRule{flag: "workers", field: "Workers"})
	return cmd
}

// parsePushFamily reads --push: a family whose size is searched (half,
// backlog:F, spread, hot, each optionally @n).
func parsePushFamily(s string) (farm.Push, error) {
	body, at, hasAt := strings.Cut(s, "@")
	words := body
	switch w := strings.ToLower(body); {
	case w == "half" || w == "spread" || w == "hot":
		words = w + ":1"
	case strings.HasPrefix(w, "backlog:") && strings.Count(w, ":") == 1:
		words = w + ":1"
	}
	if hasAt {
		words += "@" + at
	}
	p, err := farm.ParsePush(words)
	if err != nil {
		return farm.Push{}, usagef("invalid --push: %q, want half, backlog:F (0 < F ≤ 1), spread or hot, optionally @n", s)
	}
	p.Jobs = 0
	return p, nil
}

func runTrapdoor(stdout, stderr io.Writer, o *trapdoorOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	push, err := parsePushFamily(o.push)
	if err != nil {
		return err
	}
	st, err := farm.ParseStart(o.start)
	if err != nil {
		return err
	}
	if len(o.periods) == 0 {
		return usagef("invalid --period: no refresh period")
	}
	if o.servers < 2 || o.servers > staleboard.MaxServers {
		return usagef("invalid --servers: %d, want 2..%d", o.servers, staleboard.MaxServers)
	}
	if !(o.difference > 0 && o.difference <= farm.MaxPushJobs) {
		return usagef("invalid --difference: %v, want 0 < d ≤ %d jobs", o.difference, farm.MaxPushJobs)
	}
	if o.relTol == 0 {
		return usagef("invalid --rtol: 0, want 1e-6..0.5")
	}
	hot := 0
	if push.Kind == farm.HotPush {
		hot = o.servers
	}
	models := make([]staleboard.PushModel, len(o.periods))
	for i, T := range o.periods {
		models[i] = staleboard.PushModel{Model: staleboard.Model{System: staleboard.System{K: o.k, Load: o.load}, Period: T}, Start: st, Push: push, Servers: hot, OnBalanced: o.onBalanced}
	}
	start := time.Now()
	c := startComputation(stderr, "critical pushes", "stopping; finished periods follow")
	defer c.stop()
	res, err := staleboard.CriticalTable(models, &staleboard.OrbitSettings{Run: c.run(o.workers), RelTol: o.relTol})
	c.done()
	if err != nil {
		return err
	}
	rep := &report.TrapDoor{Header: report.NewHeader("trapdoor"), Dispatchers: o.k, Load: o.load, Push: pushFamilyWords(push), Start: st.String(),
		OnBalanced: o.onBalanced, Servers: o.servers, Difference: o.difference, RelTol: o.relTol}
	var halted error
	for i, r := range res {
		row := report.TrapDoorRow{Period: r.Period, Scaled: r.Period * r.Scale(), Critical: r.Critical, CriticalScaled: r.Scaled, Status: reportStatus(r.Status),
			BoardMean: r.BalancedMean, Orbits: r.Orbits, TipPeriods: r.TipPeriods, RecoverPeriods: r.RecoverPeriods, Evaluations: r.Evaluations, Seconds: r.Elapsed.Seconds()}
		switch {
		case r.Status == outcome.AboveRange:
			// No push up to the range tipped: the largest tried recovered.
			row.Critical, row.CriticalScaled = r.Lo, r.Lo/r.Period
		case r.Status != outcome.NoEdge && !math.IsInf(r.Hi, 1):
			row.PushBracket = []float64{r.Lo, r.Hi}
		}
		if r.Status == outcome.Interrupted && halted == nil {
			halted = c.halted("%d of %d periods finished", i, len(res))
		}
		if r.Balanced != nil {
			mech, err := staleboard.MechanismAt(&models[i].Model, r.Balanced, o.servers, o.difference)
			if err != nil {
				return err
			}
			row.Mechanism = &report.Mechanism{Quantiles: mech.Quantiles[:], Gap: mech.Split.Gap, BoardRange: mech.Range, ScaledRange: mech.ScaledRange,
				Response: mech.Back, ResponseFactor: mech.Factor, TopUp: mech.TopUp, Drained: mech.Drained}
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Seconds = time.Since(start).Seconds()
	switch {
	case o.csv:
		err = writeCSVReport(stdout, rep, "rows")
	case o.json:
		err = writeJSON(stdout, rep)
	default:
		err = writeTrapdoorTable(stdout, rep)
	}
	if err != nil {
		return err
	}
	return halted
}

// pushFamilyWords is the family without its size: half, backlog:F,
// spread or hot, with @n.
func pushFamilyWords(p farm.Push) string {
	var s string
	switch {
	case p.Kind == farm.Backlog && p.Frac() == 0.5:
		s = "half"
	case p.Kind == farm.Backlog:
		s = fmt.Sprintf("backlog:%g", p.Frac())
	case p.Kind == farm.SpreadPush:
		s = "spread"
	default:
		s = "hot"
	}
	if p.At > 0 {
		s += fmt.Sprintf("@%d", p.At)
	}
	return s
}

func writeTrapdoorTable(w io.Writer, r *report.TrapDoor) error {
	var b strings.Builder
	on := "on " + r.Start
	if r.OnBalanced {
		on = "on the balanced fixed point"
	}
	family := map[string]string{"half": "b extra jobs on half the servers", "spread": "0..b extra jobs spread over the servers", "hot": fmt.Sprintf("b extra jobs on one server of %d", r.Servers)}[strings.Split(r.Push, "@")[0]]
	if family == "" {
		family = "b extra jobs on a fraction " + strings.TrimPrefix(strings.Split(r.Push, "@")[0], "backlog:") + " of the servers"
	}
	fmt.Fprintf(&b, "Critical push of the stale board: k = %d dispatchers, load λ = %g, push %s (%s), %s\n\n", r.Dispatchers, r.Load, r.Push, family, on)
	tw := tabwriter.NewWriter(&b, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "T\tT(1−λ)²\tb*\tb*/T\tbracket\tstatus\torbits\tbalanced board\tq5–q95\t(max−min)(1−λ)\tresponse to d\tfactor\tdrained\tseconds\t\n")
	for _, row := range r.Rows {
		br := "—"
		if len(row.PushBracket) == 2 {
			br = fmt.Sprintf("[%.4g, %.4g]", row.PushBracket[0], row.PushBracket[1])
		}
		crit, scaled := fmt.Sprintf("%.4g", row.Critical), fmt.Sprintf("%.4f", row.CriticalScaled)
		switch row.Status {
		case "above_range":
			crit, scaled = "> "+crit, "> "+scaled
		case "no_edge":
			crit, scaled = "0", "0"
		}
		q, rng, resp, fac, dr := "—", "—", "—", "—", "—"
		if m := row.Mechanism; m != nil {
			q = fmt.Sprintf("%d–%d", m.Quantiles[0], m.Quantiles[4])
			rng = fmt.Sprintf("%.3f", m.ScaledRange)
			resp, fac, dr = fmt.Sprintf("%.3g", m.Response), fmt.Sprintf("%.3f", m.ResponseFactor), fmt.Sprintf("%.3f", m.Drained)
		}
		fmt.Fprintf(tw, "%g\t%.4g\t%s\t%s\t%s\t%s\t%d\t%.4g\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", row.Period, row.Scaled, crit, scaled, br, row.Status, row.Orbits, row.BoardMean, q, rng, resp, fac, dr, row.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nb* is bracketed to %g relative: the push at the bracket's bottom returns to the balanced fixed point, the one at its top tips\n", r.RelTol)
	fmt.Fprintf(&b, "into the herd (its two groups' gap above max((1−λ)·T, 3/(1−λ)) at two refreshes in a row). The mechanism at the balanced\n")
	fmt.Fprintf(&b, "fixed point: its 5%%–95%% range; the expected longest less shortest queue of %d servers drawn from it, times 1 − λ; and a\n", r.Servers)
	fmt.Fprintf(&b, "difference of d = %g jobs on half the servers one refresh later (factor = response/d; the top-up alone gives −(k − 1) = %d;\n", r.Difference, 1-r.Dispatchers)
	fmt.Fprintf(&b, "drained = the share of that overshoot gone by the next refresh). %d periods in %.1f s.\n", len(r.Rows), r.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}
