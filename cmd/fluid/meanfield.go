package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/solver"
	"github.com/fluidlb/fluid/spec"
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runMeanfield(cmd.OutOrStdout(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "jsqd:2", "jsqd:D, board-jsqd:D or board-jsq")
	f.StringVar(&o.discipline, "discipline", "fcfs", "fcfs or ps")
	f.StringVar(&o.sizes, "sizes", "exp", "exp or h2:SCV")
	f.Float64Var(&o.load, "load", 0.9, "load λ per server, 0 < λ < 1")
	f.Float64Var(&o.period, "period", 0, "board refresh period T (board policies)")
	f.IntSliceVar(&o.servers, "servers", nil, "N for the refined 1/N correction (jsqd, exponential sizes)")
	f.IntVar(&o.iterations, "iterations", 2000, "most refresh periods iterated (board policies)")
	f.BoolVar(&o.json, "json", false, "write JSON (see meanfieldReport in doc.go)")
	return cmd
}

// meanfieldReport is the JSON output of `fluid meanfield`.
type meanfieldReport struct {
	Policy     string  `json:"policy"`
	Discipline string  `json:"discipline"`
	Sizes      string  `json:"sizes"`
	Load       float64 `json:"load"`
	Period     float64 `json:"period,omitempty"`
	// Sojourn is the mean time in system (N → ∞); MeanQueue the mean count.
	Sojourn   float64 `json:"sojourn"`
	MeanQueue float64 `json:"mean_queue"`
	// Tail is P(count ≥ n), n = 0, 1, … (live jsqd; the board distribution
	// P(B = n) for board policies is in Board).
	Tail  []float64 `json:"tail,omitempty"`
	Board []float64 `json:"board,omitempty"`
	// BoardMean is the mean board value at a refresh (board policies).
	BoardMean *float64 `json:"board_mean"`
	// Attractor: "fixed point", "cycle" or "not settled" (board policies).
	Attractor string `json:"attractor,omitempty"`
	Cycle     int    `json:"cycle_period,omitempty"`
	// Abscissa is the largest real part of the ODE Jacobian's eigenvalues
	// at the fixed point (live jsqd): negative means stable.
	Abscissa *float64 `json:"abscissa"`
	// Lost is the truncated mass (live) or the fraction of arrivals lost to
	// the truncation (board).
	Lost   float64 `json:"lost"`
	States int     `json:"states"`
	// Status is converged, or how the solve ended (not_settled: the board
	// policies' period map found no fixed point or cycle).
	Status solver.Status `json:"status"`
	// Refined: mean time in system at each --servers N.
	Refined []refinedRow `json:"refined,omitempty"`
	Seconds float64      `json:"seconds"`
}

type refinedRow struct {
	N       int     `json:"servers"`
	Sojourn float64 `json:"sojourn"`
}

func runMeanfield(w io.Writer, o *meanfieldOptions) error {
	start := time.Now()
	pol, err := spec.ParsePolicy(o.policy)
	if err != nil {
		return paramUsage(err)
	}
	switch pol.Kind {
	case spec.JSQd, spec.BoardJSQd, spec.BoardJSQ:
	default:
		return usagef("invalid --policy: %q (the mean field takes jsqd:D, board-jsqd:D or board-jsq)", o.policy)
	}
	disc, err := spec.ParseDiscipline(o.discipline)
	if err != nil {
		return paramUsage(err)
	}
	sizes, err := spec.ParseSizes(o.sizes)
	if err != nil {
		return paramUsage(err)
	}
	d := pol.D
	rep := &meanfieldReport{Policy: o.policy, Discipline: o.discipline, Sizes: o.sizes, Load: o.load}
	if pol.Kind == spec.JSQd {
		if o.period != 0 {
			return usagef("invalid --period: live jsqd reads no board")
		}
		m := &bestofd.Model{D: d, Load: o.load, Discipline: disc, Sizes: sizes}
		res, err := bestofd.FixedPoint(m, nil)
		if err != nil {
			return paramUsage(err)
		}
		if err := res.Status.Err(); err != nil {
			return fmt.Errorf("best-of-%d mean field: %w (residual %.3g)", d, err, res.Solve.Residual)
		}
		rep.Sojourn, rep.MeanQueue, rep.Tail, rep.Lost, rep.States = res.Sojourn, res.MeanQueue, res.Tail, res.Lost, res.States
		rep.Abscissa = ptr(res.Abscissa)
		rep.Status = res.Status
		if len(o.servers) > 0 {
			ref, err := bestofd.Refined(m, nil)
			if err != nil {
				return paramUsage(err)
			}
			for _, n := range o.servers {
				if n < 1 {
					return usagef("invalid --servers: %d, want N ≥ 1", n)
				}
				rep.Refined = append(rep.Refined, refinedRow{N: n, Sojourn: ref.Sojourn(n)})
			}
		}
	} else {
		if len(o.servers) > 0 {
			return usagef("invalid --servers: the refined correction is for live jsqd only")
		}
		if o.iterations == 0 {
			return usagef("invalid --iterations: 0, want at least 1")
		}
		m := &bestofd.PeriodicUpdate{D: d, Load: o.load, Period: o.period, Discipline: disc, Sizes: sizes}
		res, err := bestofd.Attractor(m, &bestofd.AttractorSettings{MaxIter: o.iterations})
		if err != nil {
			return paramUsage(err)
		}
		rep.Period = o.period
		rep.Sojourn, rep.MeanQueue, rep.Board, rep.Lost, rep.States = res.Sojourn, res.MeanQueue, res.Board, res.Lost, res.States
		rep.BoardMean = ptr(res.BoardMean)
		rep.Attractor, rep.Cycle = res.Kind.String(), res.Cycle
		rep.Status = res.Status
		if res.Kind == fixedpoint.NotSettled {
			rep.Cycle = 0
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	if o.json {
		return writeJSON(w, rep)
	}
	var b strings.Builder
	what := fmt.Sprintf("best of %d", d)
	if d == 0 {
		what = "least loaded"
	}
	if pol.Kind == spec.JSQd {
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
		att := rep.Attractor
		if rep.Cycle > 1 {
			att = fmt.Sprintf("cycle of period %d (values averaged over it)", rep.Cycle)
		}
		if rep.Attractor == fixedpoint.NotSettled.String() {
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
	_, err = io.WriteString(w, b.String())
	return err
}
