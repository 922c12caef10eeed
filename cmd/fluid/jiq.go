package main

import (
	"fmt"
	"io"
	"math"
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
	o.declare(cmd)
	return cmd
}

// jiqRows bounds the trajectory's output rows, and jiqNumbers the numbers
// --json or --csv writes in all (rows × columns; about 20 bytes each:
// 200 MB), so the output is admitted before any work.
const (
	jiqRows    = 1_000_000
	jiqNumbers = 10_000_000
)

// jiqMaxUntil bounds --until: the integrator's default step budget
// (1,000,000 steps) reached t ≈ 6.6·10⁶ for the default model, and the
// fluid limit settles within a few hundred mean service times, so 10⁵ is
// far beyond any transient and well inside the budget.
const jiqMaxUntil = 1e5

func (o *jiqOptions) declare(cmd *cobra.Command) {
	traj := needs(func() bool { return o.trajectory }, "it applies to the trajectory: add --trajectory")
	queueing := needs(func() bool { return strings.EqualFold(strings.TrimSpace(o.scenario), "queueing") },
		"the blocking scenario has no queues: it applies with --scenario queueing")
	declare(cmd,
		flagRule{flag: "scenario", field: "Scenario"}, flagRule{flag: "load", field: "Load"},
		flagRule{flag: "alpha", field: "Alpha"}, flagRule{flag: "beta", field: "Beta"},
		flagRule{flag: "exchange", field: "Exchange"},
		flagRule{flag: "imax", field: "IMax", when: queueing},
		flagRule{flag: "tail-tol", field: "TailTol", rng: between(0, 1, "()", "1e-12"), when: queueing},
		flagRule{flag: "verify", when: needs(func() bool { return !o.trajectory }, "--verify checks the limit; a trajectory is the ODE itself")},
		flagRule{flag: "until", field: "Until", rng: between(0, jiqMaxUntil, "(]", "20"), when: traj},
		flagRule{flag: "every", rng: between(0, jiqMaxUntil, "(]", "1"), when: traj},
		flagRule{flag: "rtol", field: "RTol", rng: between(1e-15, 0.1, "[]", "1e-10"), when: traj},
	)
}

func (o *jiqOptions) model() (*jiq.Model, error) {
	scen, err := farm.ParseScenario(o.scenario)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	return m, nil
}

func runJIQ(cmd *cobra.Command, o *jiqOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	m, err := o.model()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	c := startComputation(cmd.ErrOrStderr(), "jiq", "stopping; what finished follows")
	defer c.stop()
	if o.trajectory {
		return runJIQTrajectory(w, c, m, o)
	}
	var rep *report.JIQ
	if !c.await(func() { rep, err = jiqLimit(m, o.verify) }) {
		return c.interruptedBefore(w, output{json: o.json}, "jiq", "the limit had not been computed")
	}
	if err != nil {
		return err
	}
	return emit(w, output{json: o.json, csv: o.csv}, rep, func(w io.Writer) error { return writeJIQTable(w, rep) })
}

// jiqLimit computes the limit's report, with verify also the fluid ODE's
// long-time limit beside it.
func jiqLimit(m *jiq.Model, verify bool) (*report.JIQ, error) {
	lim, err := jiq.Limit(m)
	if err != nil {
		return nil, err
	}
	rep := newJIQReport(m, lim)
	if verify {
		s, err := jiq.Settle(m, nil)
		if err != nil {
			return nil, err
		}
		if err := ended(s.Status, fmt.Sprintf("fluid ODE check: no steady state at t = %g (largest |dy/dt| = %.3g)", s.T, s.Residual)); err != nil {
			return nil, err
		}
		rep.ODE = compareODE(m, lim, s)
	}
	return rep, nil
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
