package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/outcome"
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
	json       bool
	csv        bool
}

func newMeanfield() *cobra.Command {
	o := &meanfieldOptions{}
	cmd := &cobra.Command{
		Use:   "meanfield",
		Short: "Mean field of best-of-d on live counts or on a stale board",
		Long: `meanfield computes the N → ∞ mean field of best-of-d dispatching:

  jsqd:D        live counts: the fixed point of the mean-field ODE on the server
                states (count; small and giant jobs under PS; count and phase of
                the job in service under FCFS), its stability, and with --servers
                the refined 1/N correction (Gast–Van Houdt; exponential sizes,
                sampling with replacement).
  board-jsqd:D  one dispatcher on a board refreshed every --period (Mitzenmacher's
  board-jsq     periodic update): the attractor of the period map, least loaded for
                board-jsq.

Sizes are exp or h2:SCV (the balanced-means hyperexponential: with probability p a
giant of mean 1/(2p), otherwise a small job of mean 1/(2(1−p)), mean 1, SCV c²).`,
		Example: `  fluid meanfield --policy jsqd:2 --discipline ps --sizes h2:30
  fluid meanfield --policy jsqd:2 --servers 10,20,50,100
  fluid meanfield --policy board-jsqd:2 --period 100 --discipline ps --sizes h2:30`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMeanfield(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "jsqd:2", "dispatch policy: jsqd:D (best of D, live counts), board-jsqd:D or board-jsq (on a board refreshed every --period)")
	f.StringVar(&o.discipline, "discipline", "fcfs", "server discipline: fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "job sizes (mean 1): exp or h2:SCV")
	f.Float64Var(&o.load, "load", 0.9, "load λ: arrival rate per server, in jobs per mean service time, 0 < λ < 1")
	f.Float64Var(&o.period, "period", 0, "board refresh period T, in mean service times (board policies)")
	f.IntSliceVar(&o.servers, "servers", nil, "servers N for the refined 1/N correction (jsqd, exponential sizes): a list or ranges")
	f.IntVar(&o.iterations, "iterations", 2000, "board policies: most refresh periods iterated")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per --servers N with the refined value, else one row; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Meanfield; schema in docs/schema/meanfield.json)")
	board := func() bool { return strings.HasPrefix(strings.ToLower(strings.TrimSpace(o.policy)), "board-") }
	declare(cmd,
		flagRule{flag: "policy", field: "Policy"}, flagRule{flag: "discipline", field: "Discipline"},
		flagRule{flag: "sizes", field: "Sizes"}, flagRule{flag: "load", field: "Load"},
		flagRule{flag: "period", field: "Period", when: needs(board, "live jsqd:D reads no board; --period applies to board-jsqd:D and board-jsq")},
		flagRule{flag: "servers", field: "Servers", when: needs(func() bool { return !board() }, "the refined 1/N correction is for live jsqd:D only")},
		flagRule{flag: "iterations", field: "MaxIter", rng: in(1, 100000, "2000"), when: needs(board, "--iterations bounds the periods of the board policies' map (board-jsqd:D, board-jsq); live jsqd:D solves for its fixed point")},
	)
	cmd.Annotations[fieldKey+"D"] = "--policy\x00--policy" // the D of jsqd:D
	return cmd
}

// minRefinedN is the smallest N the refined mean field is printed for.
const minRefinedN = 10

func runMeanfield(w, stderr io.Writer, o *meanfieldOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	start := time.Now()
	pol, err := farm.ParsePolicy(o.policy)
	if err != nil {
		return err
	}
	switch pol.Kind {
	case farm.JSQd, farm.BoardJSQd, farm.BoardJSQ:
	default:
		return usagef("invalid --policy: %q (the mean field takes jsqd:D, board-jsqd:D or board-jsq; e.g. --policy jsqd:2)", o.policy)
	}
	disc, err := farm.ParseDiscipline(o.discipline)
	if err != nil {
		return err
	}
	sizes, err := farm.ParseSizes(o.sizes)
	if err != nil {
		return err
	}
	for _, n := range o.servers {
		if n < minRefinedN {
			return usagef("invalid --servers: %d, want N ≥ %d: the refined mean field is an expansion in 1/N (within 2%% of simulation at N = 10; at N = 1 it gives 7.04 where the exact answer is 10); simulate smaller systems with fluid sim", n, minRefinedN)
		}
	}
	rep := &report.Meanfield{Header: report.NewHeader("meanfield"), Policy: pol.String(), Discipline: disc.String(), Sizes: sizes.String(), Load: o.load}
	c := startComputation(stderr, "meanfield", "stopping the mean field")
	defer c.stop()
	var status outcome.Status // how the solve ended
	solve := func() { status, err = meanfieldBoard(rep, pol.D, disc, sizes, o) }
	if pol.Kind == farm.JSQd {
		solve = func() { status, err = meanfieldLive(rep, pol.D, disc, sizes, o) }
	}
	if !c.await(solve) {
		return c.interruptedBefore(w, output{json: o.json}, "meanfield", "the mean field had not been solved")
	}
	if err != nil {
		return err
	}
	rep.Seconds = time.Since(start).Seconds()
	unsettled := ended(status, fmt.Sprintf("the period map did not settle within %d periods: the values are at the last iterate, not a limit", o.iterations))
	err = emit(w, output{json: o.json, csv: o.csv, rows: "refined"}, rep, func(w io.Writer) error { return writeMeanfieldText(w, rep, pol, o) })
	return errors.Join(err, unsettled)
}

// meanfieldLive solves best of d on live counts into rep: the fixed
// point, and the refined values at --servers.
func meanfieldLive(rep *report.Meanfield, d int, disc farm.Discipline, sizes farm.Sizes, o *meanfieldOptions) (outcome.Status, error) {
	m := &bestofd.Model{D: d, Load: o.load, Discipline: disc, Sizes: sizes}
	res, err := bestofd.FixedPoint(m, nil)
	if err != nil {
		return 0, err
	}
	if err := ended(res.Status, fmt.Sprintf("best-of-%d mean field: no fixed point (residual %.3g)", d, res.Solve.Residual)); err != nil {
		return 0, err
	}
	rep.Sojourn, rep.MeanQueue, rep.Tail, rep.Lost, rep.States = res.Sojourn, res.MeanQueue, res.Tail, res.Lost, res.States
	rep.Abscissa = ptr(res.Abscissa)
	rep.Status = reportStatus(res.Status)
	if len(o.servers) > 0 {
		ref, err := bestofd.Refined(m)
		if err != nil {
			return 0, err
		}
		for _, n := range o.servers {
			rep.Refined = append(rep.Refined, report.RefinedRow{N: n, Sojourn: ref.Sojourn(n)})
		}
	}
	return res.Status, nil
}

// meanfieldBoard iterates the period map of best of d on a stale board
// into rep.
func meanfieldBoard(rep *report.Meanfield, d int, disc farm.Discipline, sizes farm.Sizes, o *meanfieldOptions) (outcome.Status, error) {
	m := &bestofd.PeriodicUpdate{D: d, Load: o.load, Period: o.period, Discipline: disc, Sizes: sizes}
	res, err := bestofd.Attractor(m, &bestofd.AttractorSettings{MaxIter: o.iterations})
	if err != nil {
		return 0, err
	}
	rep.Period, rep.MaxIterations = ptr(o.period), ptr(o.iterations)
	rep.Sojourn, rep.MeanQueue, rep.Board, rep.Lost, rep.States = res.Sojourn, res.MeanQueue, res.Board, res.Lost, res.States
	rep.BoardMean = ptr(res.BoardMean)
	rep.Attractor = ptr(res.Status.Name())
	rep.Status = reportStatus(res.Status)
	if res.Status != outcome.NotSettled {
		rep.Cycle = ptr(res.Cycle)
	}
	return res.Status, nil
}

func writeMeanfieldText(w io.Writer, rep *report.Meanfield, pol farm.Policy, o *meanfieldOptions) error {
	d := pol.D
	var b strings.Builder
	what := fmt.Sprintf("best of %d", d)
	if d == 0 {
		what = "least loaded"
	}
	if pol.Kind == farm.JSQd {
		fmt.Fprintf(&b, "Mean field (N → ∞), %s on live counts: λ = %g, %s servers, %s sizes\n\n", what, o.load, o.discipline, o.sizes)
	} else {
		fmt.Fprintf(&b, "Mean field (N → ∞), %s on a board refreshed every T = %g: λ = %g, %s servers, %s sizes\n\n", what, o.period, o.load, o.discipline, o.sizes)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mean time in system\t%.6g\n", rep.Sojourn)
	fmt.Fprintf(tw, "mean jobs per server\t%.6g\n", rep.MeanQueue)
	if rep.Abscissa != nil {
		verdict := "stable"
		if *rep.Abscissa >= 0 {
			verdict = "not stable"
		}
		fmt.Fprintf(tw, "fixed point\t%s (largest eigenvalue real part %.3g)\n", verdict, *rep.Abscissa)
		for n := 1; n < len(rep.Tail) && n <= 6; n++ {
			fmt.Fprintf(tw, "P(count ≥ %d)\t%.6g\n", n, rep.Tail[n])
		}
		fmt.Fprintf(tw, "truncated mass\t%.2g (%d server states)\n", rep.Lost, rep.States)
	} else {
		att := strings.ReplaceAll(*rep.Attractor, "_", " ")
		if rep.Cycle != nil && *rep.Cycle > 1 {
			att = fmt.Sprintf("cycle of period %d (values averaged over it)", *rep.Cycle)
		}
		if rep.Cycle == nil {
			att += fmt.Sprintf(" after %d periods (values at the last iterate)", o.iterations)
		}
		fmt.Fprintf(tw, "attractor\t%s\n", att)
		fmt.Fprintf(tw, "mean board at a refresh\t%.6g\n", *rep.BoardMean)
		fmt.Fprintf(tw, "arrivals lost to truncation\t%.2g (%d server states)\n", rep.Lost, rep.States)
	}
	for _, r := range rep.Refined {
		fmt.Fprintf(tw, "refined, N = %d\t%.6g\n", r.N, r.Sojourn)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%.2f s. Time in mean service times.\n", rep.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}
