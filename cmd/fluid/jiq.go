package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/report"
)

// jiqOptions are the flags of `fluid jiq`.
type jiqOptions struct {
	scenario   string
	load       float64
	alpha      []float64
	beta       []float64
	exchange   float64
	imax       int
	tailTol    float64
	verify     bool
	trajectory bool
	until      float64
	every      float64
	rtol       float64
	csv        bool
	json       bool
}

func newJIQ() *cobra.Command {
	o := &jiqOptions{}
	cmd := &cobra.Command{
		Use:   "jiq",
		Short: "Join-the-idle-queue with several dispatchers: fluid limit and trajectories",
		Long: `jiq computes the N → ∞ limit of join-the-idle-queue with R dispatchers whose
arrival shares are --alpha: the blocking probability
(blocking scenario) or the mean wait, P(wait > 0) and fraction of jobs sent
at random (queueing scenario), the busy fraction, where the tokens sit, the
token exchange rate ν* above which blocking/wait vanish, and the stability
of the fixed point.

With --trajectory it integrates the fluid ODE from the empty system (tokens
placed according to β) and prints the state every --every time units up to
--until: t, x0, x1..xR (blocking) or t, y0..y_imax, x1..xR (queueing).

Dispatchers are reported in the order given.`,
		Example: `  fluid jiq
  fluid jiq --scenario queueing --load 0.5 --alpha 0.6,0.2,0.2
  fluid jiq --load 0.9 --alpha 0.7,0.3 --exchange 4 --verify
  fluid jiq --load 0.5 --alpha 0.7,0.3 --trajectory --until 20 --every 1 --csv`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runJIQ(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "blocking", "what a dispatcher without tokens does: blocking (discard) or queueing (random server)")
	f.Float64Var(&o.load, "load", 0.9, "load λ: arrival rate per server, in jobs per mean service time (> 0; < 1 for queueing)")
	f.Float64SliceVar(&o.alpha, "alpha", []float64{0.7, 0.3}, "arrival shares α_r of the dispatchers (positive, sum 1)")
	f.Float64SliceVar(&o.beta, "beta", nil, "token allotment β_r (Enhancement 1; non-negative, sum 1; default uniform 1/R)")
	f.Float64Var(&o.exchange, "exchange", 0, "token exchange rate ν ≥ 0 (Enhancement 2), per server per mean service time")
	f.IntVar(&o.imax, "imax", 0, "queueing: truncate queue lengths at imax jobs (0 = smallest with stationary tail ≤ --tail-tol)")
	f.Float64Var(&o.tailTol, "tail-tol", 1e-12, "queueing: largest stationary probability mass allowed above imax")
	f.BoolVar(&o.verify, "verify", false, "also integrate the fluid ODE to its long-time limit and report the difference")
	f.BoolVar(&o.trajectory, "trajectory", false, "print the fluid trajectory from the empty system instead of the limit")
	f.Float64Var(&o.until, "until", 20, "trajectory: end time, in mean service times")
	f.Float64Var(&o.every, "every", 0, "trajectory: output interval, in mean service times (default until/20)")
	f.Float64Var(&o.rtol, "rtol", 1e-10, "trajectory: relative error tolerance of the integrator")
	f.BoolVar(&o.csv, "csv", false, "write CSV: the limit as one row (columns named as the JSON fields), or the trajectory")
	f.BoolVar(&o.json, "json", false, "write JSON (report.JIQ, or report.JIQTrajectory with --trajectory; schema in docs/schema/)")
	return cmd
}

func (o *jiqOptions) model() (*jiq.Model, error) {
	scen, err := farm.ParseScenario(o.scenario)
	if err != nil {
		return nil, paramUsage(err)
	}
	m := &jiq.Model{
		Scenario: scen,
		Load:     o.load,
		Alpha:    o.alpha,
		Beta:     o.beta,
		Exchange: o.exchange,
		IMax:     o.imax,
		TailTol:  o.tailTol,
	}
	if err := m.Validate(); err != nil {
		return nil, paramUsage(err)
	}
	return m, nil
}

func runJIQ(cmd *cobra.Command, o *jiqOptions) error {
	flags := cmd.Flags()
	if !o.trajectory {
		for _, name := range []string{"until", "every", "rtol"} {
			if flags.Changed(name) {
				return usagef("--%s needs --trajectory", name)
			}
		}
	} else if flags.Changed("verify") {
		return usagef("--verify applies to the limit, not to --trajectory")
	}
	if o.csv && o.json {
		return usagef("--csv and --json are exclusive")
	}
	if o.tailTol == 0 {
		return usagef("invalid --tail-tol: 0, want a number in (0, 1)")
	}
	m, err := o.model()
	if err != nil {
		return err
	}
	if m.Scenario == jiq.Blocking {
		for _, name := range []string{"imax", "tail-tol"} {
			if flags.Changed(name) {
				return usagef("--%s applies to the queueing scenario (the blocking scenario has no queues)", name)
			}
		}
	}
	w := cmd.OutOrStdout()
	if o.trajectory {
		return runJIQTrajectory(w, m, o)
	}
	lim, err := jiq.Limit(m)
	if err != nil {
		return paramUsage(err)
	}
	rep := newJIQReport(m, lim)
	if o.verify {
		s, err := jiq.Settle(m, nil)
		if err != nil {
			return err
		}
		if err := ended(s.Status, fmt.Sprintf("fluid ODE check: no steady state at t = %g (largest |dy/dt| = %.3g)", s.T, s.Residual)); err != nil {
			return err
		}
		rep.ODE = compareODE(m, lim, s)
	}
	if o.csv {
		return writeCSVReport(w, rep, "")
	}
	if o.json {
		return writeJSON(w, rep)
	}
	return writeJIQTable(w, rep)
}

func newJIQReport(m *jiq.Model, lim *jiq.LimitResult) *report.JIQ {
	rep := &report.JIQ{
		Header:           report.NewHeader("jiq"),
		Scenario:         m.Scenario.String(),
		Load:             m.Load,
		Alpha:            m.Alpha,
		Beta:             farm.Allotment(m.Beta, m.R()),
		Exchange:         m.Exchange,
		Status:           lim.Status.Name(),
		Busy:             lim.Busy,
		Tokens:           lim.Tokens,
		EmptyPools:       lim.Empty,
		TokensDetermined: lim.TokensDetermined,
		ZeroLimit:        lim.ZeroDelay,
	}
	if m.Scenario == jiq.Blocking {
		rep.Blocking = ptr(lim.Blocking)
	} else {
		rep.MeanWait = ptr(lim.MeanWait)
		rep.ProbWait = ptr(lim.ProbWait)
		rep.FractionRandom = ptr(lim.FractionRandom)
		rep.Sojourn = ptr(lim.Sojourn)
		rep.IMax = ptr(lim.IMax)
		rep.TailTol = ptr(m.TailTol)
		rep.TruncatedMass = ptr(lim.TruncatedMass)
	}
	var sum float64
	for _, x := range lim.Tokens {
		sum += x
	}
	if sum > 0 {
		rep.TokenShares = make([]float64, len(lim.Tokens))
		for i, x := range lim.Tokens {
			rep.TokenShares[i] = x / sum
		}
	}
	if !math.IsInf(lim.NuStar, 1) {
		rep.NuStar = ptr(lim.NuStar)
	}
	st := lim.Stability
	rep.Stability = report.Stability{Verdict: st.Class.String(), Margins: st.Margins, Note: st.Note, Eigenvalues: []report.Complex{}}
	if !math.IsInf(st.Abscissa, -1) {
		rep.Stability.Abscissa = ptr(st.Abscissa)
	}
	for _, v := range st.Eigenvalues {
		rep.Stability.Eigenvalues = append(rep.Stability.Eigenvalues, complexOf(v))
	}
	return rep
}

func compareODE(m *jiq.Model, lim *jiq.LimitResult, s *jiq.SettleResult) *report.ODECheck {
	d := math.Abs(s.State.Busy - lim.Busy)
	if m.Scenario == jiq.Blocking {
		d = math.Max(d, math.Abs(s.Blocking-lim.Blocking))
	} else {
		d = math.Max(d, math.Abs(s.RandomRate-lim.RandomRate))
	}
	if lim.TokensDetermined {
		for r := range lim.Tokens {
			d = math.Max(d, math.Abs(s.State.Tokens[r]-lim.Tokens[r]))
		}
	}
	return &report.ODECheck{T: s.T, Residual: s.Residual, Steps: s.Stats.Steps, MaxDiff: d}
}

func writeJIQTable(w io.Writer, r *report.JIQ) error {
	var b strings.Builder
	fmt.Fprintf(&b, "JIQ fluid limit (N → ∞), %s scenario: load λ = %s, R = %d dispatchers, token exchange ν = %s\n\n",
		r.Scenario, g(r.Load), len(r.Alpha), g(r.Exchange))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dispatcher\talpha\tbeta\ttokens\tpool")
	for i := range r.Alpha {
		pool := "holds tokens"
		if r.EmptyPools[i] {
			pool = fmt.Sprintf("empty (margin %s)", g(r.Stability.Margins[i]))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, g(r.Alpha[i]), g(r.Beta[i]), g(r.Tokens[i]), pool)
	}
	tw.Flush()
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if r.Blocking != nil {
		fmt.Fprintf(tw, "blocking probability\t%s\n", g(*r.Blocking))
	} else {
		fmt.Fprintf(tw, "mean wait E[W]\t%s\n", g(*r.MeanWait))
		fmt.Fprintf(tw, "P(wait > 0)\t%s\n", g(*r.ProbWait))
		fmt.Fprintf(tw, "fraction sent at random\t%s\n", g(*r.FractionRandom))
		fmt.Fprintf(tw, "mean time in system\t%s\n", g(*r.Sojourn))
	}
	fmt.Fprintf(tw, "busy servers\t%s\n", g(r.Busy))
	if !r.TokensDetermined {
		fmt.Fprintf(tw, "token split\tnot fixed by the limit (depends on the start; shown: from empty)\n")
	}
	what := "blocking"
	if r.Blocking == nil {
		what = "wait"
	}
	switch {
	case r.NuStar == nil:
		fmt.Fprintf(tw, "zero %s\tnever (λ ≥ 1: at least 1 − 1/λ is blocked)\n", what)
	case r.ZeroLimit:
		fmt.Fprintf(tw, "zero %s\tyes (ν* = %s)\n", what, g(*r.NuStar))
	default:
		fmt.Fprintf(tw, "zero %s\tno: needs token exchange ν ≥ ν* = %s, or β = α\n", what, g(*r.NuStar))
	}
	st := r.Stability
	desc := st.Verdict
	if st.Abscissa != nil {
		desc += fmt.Sprintf(" (leading eigenvalue %s of %d)", g(*st.Abscissa), len(st.Eigenvalues))
	}
	if st.Note != "" {
		desc += ": " + st.Note
	}
	fmt.Fprintf(tw, "fixed point\t%s\n", desc)
	if r.IMax != nil {
		fmt.Fprintf(tw, "truncation\timax = %d, stationary mass above it %.2g\n", *r.IMax, *r.TruncatedMass)
	}
	if r.ODE != nil {
		fmt.Fprintf(tw, "fluid ODE check\tlong-time limit at t = %s (%d steps, residual %.2g): max difference %.2g\n",
			g(r.ODE.T), r.ODE.Steps, r.ODE.Residual, r.ODE.MaxDiff)
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

func runJIQTrajectory(w io.Writer, m *jiq.Model, o *jiqOptions) error {
	if o.until <= 0 || math.IsNaN(o.until) || math.IsInf(o.until, 0) {
		return usagef("invalid --until: %v, want a finite time > 0", o.until)
	}
	every := o.every
	if every == 0 {
		every = o.until / 20
	}
	if every <= 0 || math.IsNaN(every) || every > o.until {
		return usagef("invalid --every: %v, want a number in (0, --until]", o.every)
	}
	if o.rtol <= 0 || o.rtol >= 1 || math.IsNaN(o.rtol) {
		return usagef("invalid --rtol: %v, want a number in (0, 1)", o.rtol)
	}
	n := int(math.Floor(o.until/every + 1e-9))
	if n > 1000000 {
		return usagef("--until/--every asks for %d output rows; at most 1,000,000", n)
	}
	times := make([]float64, 0, n+2)
	for i := 0; i <= n; i++ {
		times = append(times, float64(i)*every)
	}
	if times[len(times)-1] < o.until {
		times = append(times, o.until)
	}
	times[len(times)-1] = math.Min(times[len(times)-1], o.until)

	var out func(p *jiq.Point) error
	var flush func(res *jiq.TrajectoryResult) error
	switch {
	case o.json:
		rep := &report.JIQTrajectory{Header: report.NewHeader("jiq"), Until: o.until, Every: every, RTol: o.rtol, Scenario: m.Scenario.String(), Load: m.Load, Alpha: m.Alpha, Beta: m.Beta, Exchange: m.Exchange}
		out = func(p *jiq.Point) error {
			pj := report.JIQPoint{T: p.T, Busy: p.Busy, Tokens: append([]float64(nil), p.Tokens...)}
			if m.Scenario == jiq.Blocking {
				pj.Blocking = ptr(p.Blocking)
			} else {
				pj.Occupancy = append([]float64(nil), p.Occupancy...)
				pj.RandomRate = ptr(p.RandomRate)
				pj.MeanQueue = ptr(p.MeanQueue)
			}
			rep.Points = append(rep.Points, pj)
			return nil
		}
		flush = func(res *jiq.TrajectoryResult) error {
			rep.Switches = []report.JIQSwitch{}
			for _, s := range res.Switches {
				rep.Switches = append(rep.Switches, report.JIQSwitch{T: s.T, Dispatcher: s.Dispatcher + 1, Empty: s.Empty})
			}
			rep.ConservationError = res.ConservationError
			rep.Steps = res.Stats.Steps
			if m.Scenario == jiq.Queueing {
				rep.IMax = ptr(res.IMax)
				rep.BoundaryMass = ptr(res.BoundaryMass)
			}
			return writeJSON(w, rep)
		}
	case o.csv:
		cw := csv.NewWriter(w)
		header := false
		var row []string
		out = func(p *jiq.Point) error {
			if !header {
				h := []string{"t"}
				if m.Scenario == jiq.Blocking {
					h = append(h, "x0")
				} else {
					for i := range p.Occupancy {
						h = append(h, fmt.Sprintf("y%d", i))
					}
				}
				for r := range p.Tokens {
					h = append(h, fmt.Sprintf("x%d", r+1))
				}
				if m.Scenario == jiq.Blocking {
					h = append(h, "blocking")
				} else {
					h = append(h, "lambda2")
				}
				if err := cw.Write(h); err != nil {
					return err
				}
				header = true
			}
			num := func(x float64) string { return strconv.FormatFloat(x, 'g', 12, 64) }
			row = append(row[:0], num(p.T))
			if m.Scenario == jiq.Blocking {
				row = append(row, num(p.Busy))
			} else {
				for _, y := range p.Occupancy {
					row = append(row, num(y))
				}
			}
			for _, x := range p.Tokens {
				row = append(row, num(x))
			}
			if m.Scenario == jiq.Blocking {
				row = append(row, num(p.Blocking))
			} else {
				row = append(row, num(p.RandomRate))
			}
			// Flushed row by row: output cut short by an error (or a
			// signal) ends at a complete line.
			if err := cw.Write(row); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		}
		flush = func(*jiq.TrajectoryResult) error {
			cw.Flush()
			return cw.Error()
		}
	default:
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := false
		out = func(p *jiq.Point) error {
			if !header {
				h := "t\t"
				if m.Scenario == jiq.Blocking {
					h += "busy x0\t"
				} else {
					h += "y0\ty1\ty2\ty3+\t"
				}
				for r := range p.Tokens {
					h += fmt.Sprintf("x%d\t", r+1)
				}
				if m.Scenario == jiq.Blocking {
					h += "blocking\t"
				} else {
					h += "lambda2\tmean queue\t"
				}
				fmt.Fprintln(tw, h)
				header = true
			}
			line := g(p.T) + "\t"
			f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
			if m.Scenario == jiq.Blocking {
				line += f(p.Busy) + "\t"
			} else {
				var rest float64
				for _, y := range p.Occupancy[min(3, len(p.Occupancy)):] {
					rest += y
				}
				at := func(i int) float64 {
					if i < len(p.Occupancy) {
						return p.Occupancy[i]
					}
					return 0
				}
				line += f(at(0)) + "\t" + f(at(1)) + "\t" + f(at(2)) + "\t" + f(rest) + "\t"
			}
			for _, x := range p.Tokens {
				line += f(x) + "\t"
			}
			if m.Scenario == jiq.Blocking {
				line += f(p.Blocking) + "\t"
			} else {
				line += f(p.RandomRate) + "\t" + f(p.MeanQueue) + "\t"
			}
			fmt.Fprintln(tw, line)
			return nil
		}
		flush = func(res *jiq.TrajectoryResult) error {
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, s := range res.Switches {
				what := "refills"
				if s.Empty {
					what = "empties"
				}
				fmt.Fprintf(w, "dispatcher %d's token pool %s at t = %s\n", s.Dispatcher+1, what, g(s.T))
			}
			fmt.Fprintf(w, "%d steps; conservation kept to %.2g", res.Stats.Steps, res.ConservationError)
			if m.Scenario == jiq.Queueing {
				fmt.Fprintf(w, "; imax %d, largest mass at imax %.2g", res.IMax, res.BoundaryMass)
			}
			fmt.Fprintln(w)
			return nil
		}
	}
	res, err := jiq.Trajectory(m, &jiq.TrajectorySettings{Until: o.until, RTol: o.rtol, ATol: o.rtol * 1e-2, Times: times, Output: out})
	if err != nil {
		return paramUsage(err)
	}
	if err := ended(res.Status, fmt.Sprintf("fluid ODE: the integration stopped at t = %g", res.T)); err != nil {
		return err
	}
	return flush(res)
}
