package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
)

type mapOptions struct {
	k          int
	words      boardWords
	load       float64
	period     float64
	start      string
	iterations int
	servers    int
	tol        float64
	json       bool
	csv        bool
}

func newMap() *cobra.Command {
	o := &mapOptions{}
	cmd := &cobra.Command{
		Use:   "map",
		Short: "Iterate the refresh-period map of the stale board and report its attractor",
		Long: `map follows a very large farm (N → ∞) whose k dispatchers send jobs by a
load board refreshed every T, each adding its own sends to what the board shows:
the refresh-period map gives what the board shows at one refresh from what it
showed at the last, and map iterates it from a start and reports where it
settles (its attractor): a fixed point (the balanced state, or a herded fixed
point at short T), a cycle (the herd: groups of servers taking the load in
turn), or nothing within --iterations.

Lines: attractor, and after how many refresh periods; mean board at a refresh,
the mean queue length the board shows (jobs per server); mean time in system,
averaged over the cycle, in mean service times and as a fraction of T; branch,
the pass of the refresh cycle in progress at T (within a period the
dispatchers fill the servers shown lowest one level, one pass, at a time);
leading eigenvalue, the eigenvalue of largest modulus of the map's
linearisation at a fixed point (its modulus, the spectral radius, is below 1
where the fixed point is stable); mass lost to truncation, the probability
cut off by the finite board at most per period (rounding when near 1e-16).
Words: fluid help glossary. One value per flag: for a grid, fluid sweep map.

--policy takes the simulator's words: tally (the default), shared-tally (one tally
that every dispatcher adds to) and partitioned (k dispatchers over N/k servers
each), the last two both the k = 1 map (--tally own|shared|partitioned is the older
spelling), tally-jsqd:D (best of D sampled servers by board + own tally) and
board-jsqd:D (best of D on the board alone). board-jsqd:D is exact at N → ∞ (a
server sees one constant Poisson rate all period). tally-jsqd:D is an
approximation, the projected superposition: the dispatchers' tallies on a
server are replaced by one birth process at their mean rate given the
server's arrivals so far (exact for one dispatcher); against the simulator it
is within 0.6% in the balanced state at k = 5, λ = 0.9, T = 400 and 2,000. It
reports no eigenvalue, and a period costs seconds (the balanced state at
T = 400 takes under a minute), much more in a herd. --sizes h2:SCV (balanced-means hyperexponential sizes) and --discipline
ps (processor sharing) follow each server's job phases between refreshes: the
board still shows counts. --start is empty
(every queue empty; also balanced), balanced:L (every queue at L), half:B (half the
servers with backlog B) or spread:S (queue lengths spread evenly over 0..S).

--servers N adds the mean of a farm of N servers at the fixed point: the refined
1/N mean (the board's spread around the fixed point and the dispatchers' Poisson
clocks, carried through the map's second derivatives); with partitioned
dispatchers each part has N/k servers. Exponential sizes, equal shares.`,
		Example: `  fluid map -k 5 --load 0.9 --period 400
  fluid map -k 5 --load 0.9 --period 1100 --start half:110
  fluid map -k 5 --load 0.9 --period 20 --json
  fluid map -k 5 --policy partitioned --period 100 --servers 100`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.words.policySet, o.words.tallySet = cmd.Flags().Changed("policy"), cmd.Flags().Changed("tally")
			return runMap(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.k, "dispatchers", "k", 5, concept("dispatchers", "each adds its own sends to the board (1 = shared tally or partitioned); one value: for a grid, fluid sweep map"))
	o.words.flags(f)
	f.Float64Var(&o.load, "load", 0.9, concept("load", "0 < λ < 1; one value: for a grid, fluid sweep map"))
	f.Float64Var(&o.period, "period", 400, concept("period", ""))
	f.StringVar(&o.start, "start", "empty", "initial board: empty, balanced:L, half:B or spread:S (jobs per server)")
	f.IntVar(&o.iterations, "iterations", 3000, "most refresh periods iterated")
	f.IntVar(&o.servers, "servers", 0, concept("servers", "the refined 1/N mean of the fixed point at N (0: N = ∞ only)"))
	f.Float64Var(&o.tol, "tol", 1e-10, "‖·‖₁ distance between successive boards (a probability) that counts as settled")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per phase; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Map; schema in docs/schema/map.json)")
	declare(cmd,
		flagRule{flag: "dispatchers", field: "K"},
		flagRule{flag: "load", field: "Load"}, flagRule{flag: "period", field: "Period"},
		flagRule{flag: "start", field: "Start"},
		flagRule{flag: "iterations", field: "MaxIter", rng: in(1, staleboard.MaxAttractorIter, "3000")},
		flagRule{flag: "tol", field: "Tol", rng: between(1e-15, 1e-2, "[]", "1e-10")},
		flagRule{flag: "servers", field: "Servers", rng: in(0, staleboard.MaxServers, "100")},
	)
	o.words.declare(cmd)
	return cmd
}

// parseTally parses the words of --tally.
func parseTally(s string) (staleboard.Tally, error) {
	for t := staleboard.Own; t <= staleboard.Partitioned; t++ {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, param.Errorf("Tally", "unknown tally %q (want own, shared or partitioned)", s)
}

func runMap(w, stderr io.Writer, o *mapOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	sys, pol, err := o.words.system(o.k, o.load)
	if err != nil {
		return err
	}
	tally := sys.Tally
	st, err := farm.ParseStart(o.start)
	if err != nil {
		return err
	}
	p, err := staleboard.Board(st)
	if err != nil {
		return err
	}
	m := &staleboard.Model{System: sys, Period: o.period}
	mp, err := staleboard.NewMap(m)
	if err != nil {
		return err
	}
	c := startComputation(stderr, "map", "stopping the map")
	defer c.stop()
	var rep *report.Map
	var att *staleboard.AttractorResult
	if !c.await(func() { att, rep, err = mapAttractor(mp, m, p, o) }) {
		return c.interruptedBefore(w, output{json: o.json}, "map", "the map had not settled")
	}
	if err != nil {
		return err
	}
	if o.servers > 0 {
		if !c.await(func() { rep.Refined, err = mapRefined(m, att, o) }) {
			return c.interruptedBefore(w, output{json: o.json}, "map", "the refined mean was not computed")
		}
		if err != nil {
			return err
		}
	}
	rep.Tally, rep.Start = tally.String(), st.String()
	rep.Policy, rep.Sizes, rep.Discipline, rep.Alpha = pol.String(), sys.Sizes.String(), sys.Discipline.String(), o.words.alpha
	why := fmt.Sprintf("the map did not settle within %s", plural(att.Iterations, "period"))
	if att.Status == outcome.IterationLimit {
		why = fmt.Sprintf("the work bound (%g units, about 15 minutes of CPU: a board that grows every period, or periods that each cost minutes, as in a herd of best of d with a tally at long T) stopped the map after %s", float64(staleboard.MaxWork), plural(att.Iterations, "period"))
	}
	unsettled := ended(att.Status, fmt.Sprintf("%s: the values are averages over the last %d, not an attractor's", why, att.Averaged))
	err = emit(w, output{json: o.json, csv: o.csv, rows: "phases"}, rep, func(w io.Writer) error { return writeMapText(w, rep, att, tally, o) })
	return errors.Join(err, unsettled)
}

// mapAttractor iterates the map from the board p to its attractor and
// describes it (at a fixed point: its branch and spectrum).
func mapAttractor(mp *staleboard.Map, m *staleboard.Model, p []float64, o *mapOptions) (*staleboard.AttractorResult, *report.Map, error) {
	att, err := staleboard.Attractor(m, &staleboard.AttractorSettings{Start: p, Tol: o.tol, MaxIter: o.iterations})
	if err != nil {
		return nil, nil, err
	}
	rep := &report.Map{
		Header: report.NewHeader("map"), Tol: o.tol, MaxIterations: o.iterations,
		Dispatchers: o.k, MapDispatchers: m.MapK(), Load: o.load, Period: o.period,
		Attractor: attractorName(att.Status),
		BoardMean: att.BoardMean, Sojourn: att.Sojourn, Points: att.SojournPoints,
		Iterations: att.Iterations, Lost: att.Lost, Status: reportStatus(att.Status), Transient: att.Transient,
	}
	if att.Status == outcome.FixedPoint || att.Status == outcome.Cycle {
		rep.Cycle = ptr(att.Period)
	}
	for _, ph := range att.Phases {
		rep.Phases = append(rep.Phases, report.Phase{From: ph.From, To: ph.To, Sojourn: ph.Mean, StdErr: ph.StdErr, StdDev: ph.StdDev, Min: ph.Min, Max: ph.Max})
	}
	// The spectrum costs about 30 map evaluations: a minute or more for
	// best of d with a tally at long T, so that map reports none.
	if att.Status == outcome.FixedPoint && !(m.Choices > 0 && m.Tally == staleboard.Own) {
		sp, err := mp.Spectrum(att.Boards[0])
		if err != nil {
			return nil, nil, err
		}
		r, err := mp.Apply(att.Boards[0])
		if err != nil {
			return nil, nil, err
		}
		if m.Choices == 0 { // best of d has no passes
			rep.Branch = ptr(r.Pass)
		}
		rep.Leading = ptr(complexOf(sp.Leading))
		rep.Radius = ptr(sp.Radius)
	}
	return att, rep, nil
}

// attractorName is the report's attractor: the status's name, not_settled
// for a search the work bound stopped (its status, iteration_limit, says
// why).
func attractorName(s outcome.Status) string {
	if s == outcome.IterationLimit {
		return outcome.NotSettled.Name()
	}
	return s.Name()
}

// bestdNote says what the best-of-d map is, with tallies (true) or without.
var bestdNote = map[bool]string{
	true:  " (best of D by board + own tally; the projected-superposition approximation)",
	false: " (best of D on the board alone; exact at N → ∞)",
}

func writeMapText(w io.Writer, rep *report.Map, att *staleboard.AttractorResult, tally staleboard.Tally, o *mapOptions) error {
	var b strings.Builder
	tallyNote := ""
	switch tally {
	case staleboard.Shared:
		tallyNote = " with a shared tally (the k = 1 map)"
	case staleboard.Partitioned:
		tallyNote = " partitioned (each part is the k = 1 map)"
	}
	if strings.HasPrefix(rep.Policy, "tally-jsqd") || strings.HasPrefix(rep.Policy, "board-jsqd") {
		tallyNote = ", " + rep.Policy + bestdNote[strings.HasPrefix(rep.Policy, "tally")]
	}
	serverNote := ""
	if rep.Sizes != "" && rep.Sizes != "exp" {
		serverNote = fmt.Sprintf(", %s servers, %s sizes", rep.Discipline, rep.Sizes)
	}
	if len(rep.Alpha) > 0 {
		serverNote += fmt.Sprintf(", shares α = %v", rep.Alpha)
	}
	fmt.Fprintf(&b, "Refresh-period map: %s%s, load λ = %s, refresh period T = %s%s, start %s\n\n", plural(o.k, "dispatcher"), tallyNote, g(o.load), g(o.period), serverNote, rep.Start)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	switch att.Status {
	case outcome.FixedPoint:
		fmt.Fprintf(tw, "attractor\tfixed point after %s\n", plural(att.Iterations, "period"))
	case outcome.Cycle:
		fmt.Fprintf(tw, "attractor\tcycle of period %d after %s\n", att.Period, plural(att.Iterations, "period"))
	case outcome.IterationLimit:
		fmt.Fprintf(tw, "attractor\tnot settled: the work bound stopped it after %s (averages over the last %d)\n", plural(att.Iterations, "period"), att.Averaged)
	default:
		fmt.Fprintf(tw, "attractor\tnot settled after %s (averages over the last %d)\n", plural(att.Iterations, "period"), att.Averaged)
	}
	fmt.Fprintf(tw, "mean board at a refresh\t%.6g\n", rep.BoardMean)
	fmt.Fprintf(tw, "mean time in system\t%.6g (%.4g·T)\n", rep.Sojourn, rep.Sojourn/o.period)
	if len(att.SojournPoints) > 1 {
		fmt.Fprintf(tw, "  per period of the cycle\t%.6g\n", att.SojournPoints)
	}
	if rep.Branch != nil {
		fmt.Fprintf(tw, "branch (pass at T)\t%d\n", *rep.Branch)
	}
	if rep.Leading != nil {
		fmt.Fprintf(tw, "leading eigenvalue\t%s (spectral radius %.4g)\n", fmtComplex(*rep.Leading), *rep.Radius)
	}
	fmt.Fprintf(tw, "mass lost to truncation\t%.2g per period at most\n", rep.Lost)
	tw.Flush()
	settled := att.Status == outcome.FixedPoint || att.Status == outcome.Cycle
	if len(rep.Phases) > 1 || !settled {
		b.WriteString("\nPhases of the mean time in system (periods after the start):\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "periods\tmean\t± s.e.\t·T\tspread (sd)\tmin\tmax\t")
		for i, ph := range rep.Phases {
			what := ""
			switch {
			case i == len(rep.Phases)-1 && settled:
				what = "  the attractor"
			case i < len(rep.Phases)-1:
				what = "  transient"
			default:
				what = "  not settled"
			}
			fmt.Fprintf(tw, "%d–%d\t%.5g\t%.2g\t%.4f\t%.3g\t%.5g\t%.5g\t%s\n", ph.From, ph.To, ph.Sojourn, ph.StdErr, ph.Sojourn/o.period, ph.StdDev, ph.Min, ph.Max, what)
		}
		tw.Flush()
	}
	if rep.Refined != nil {
		writeMapRefined(&b, rep.Refined)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
