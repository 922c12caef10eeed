package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
)

type jacksonOptions struct {
	servers  string
	load     float64
	alpha    []float64
	beta     []float64
	exchange float64
	json     bool
	csv      bool
}

func newJackson() *cobra.Command {
	o := &jacksonOptions{}
	cmd := &cobra.Command{
		Use:   "jackson",
		Short: "Exact finite-N blocking of join-the-idle-queue via its closed Jackson network",
		Long: `jackson computes the exact blocking probability of the blocking JIQ system with
N servers and R dispatchers (basic JIQ, or Enhancement 1 with --beta): the
tokens circulate in a closed Jackson network whose product form is solved by
Buzen's convolution, in milliseconds even at N = 100,000. It
prints B, the probability that each dispatcher holds no token, the N → ∞
limit (Theorem 1 and its β extension) and the difference.

--servers takes a list and ranges: 10,100,1000 or 10..100000*10 (geometric)
or 10..50:10 (step).`,
		Example: `  fluid jackson
  fluid jackson --servers 100 --load 0.9 --alpha 0.5,0.3,0.2
  fluid jackson --servers 10..100000*10 --load 0.9 --alpha 0.5,0.5 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runJackson(cmd.OutOrStdout(), cmd.ErrOrStderr(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.servers, "servers", "10,100,1000,10000,100000", "servers N: a list or ranges")
	f.Float64Var(&o.load, "load", 0.9, "load λ: arrival rate per server, in jobs per mean service time (> 0)")
	f.Float64SliceVar(&o.alpha, "alpha", []float64{0.7, 0.3}, "arrival shares α_r of the dispatchers (positive, sum 1)")
	f.Float64SliceVar(&o.beta, "beta", nil, "token allotment β_r (Enhancement 1; default uniform 1/R)")
	f.Float64Var(&o.exchange, "exchange", 0, "token exchange rate ν (only 0: exchange breaks the product form)")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per N; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Jackson; schema in docs/schema/jackson.json)")
	declare(cmd,
		flagRule{flag: "servers", field: "Servers", list: kind(lists.Int)},
		flagRule{flag: "load", field: "Load"}, flagRule{flag: "alpha", field: "Alpha"},
		flagRule{flag: "beta", field: "Beta"}, flagRule{flag: "exchange", field: "Exchange"},
	)
	return cmd
}

func runJackson(w, stderr io.Writer, o *jacksonOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	ns, err := parseIntList("servers", o.servers)
	if err != nil {
		return err
	}
	// The rows' cost together, like each row's alone (Validate).
	var work float64
	for _, n := range ns {
		work += float64(n) * float64(len(o.alpha))
	}
	if work > jackson.MaxWork {
		return usagef("invalid --servers with --alpha: %s at R = %d dispatchers cost Σ N·R = %.3g steps together, more than %.0e (about 20 s); fewer or smaller N, or fewer dispatchers (e.g. --servers 10..100000*10)", plural(len(ns), "value"), len(o.alpha), work, float64(jackson.MaxWork))
	}
	if o.exchange != 0 {
		return usagef("invalid --exchange: %v; token exchange breaks the product form, so only 0 is exact here (simulate it with fluid sim --policy jiq-blocking --exchange %v)", o.exchange, o.exchange)
	}
	// Every N is checked before any is solved.
	for _, n := range ns {
		err := (&jackson.JIQ{Servers: n, Load: o.load, Alpha: o.alpha, Beta: o.beta, Exchange: o.exchange}).Validate()
		if err != nil {
			return err
		}
	}
	// The limit also validates λ, α and β (naming the flag).
	lim, err := jiq.Limit(&jiq.Model{Scenario: jiq.Blocking, Load: o.load, Alpha: o.alpha, Beta: o.beta})
	if err != nil {
		return err
	}
	rep := &report.Jackson{Header: report.NewHeader("jackson"), Load: o.load, Alpha: o.alpha, Beta: farm.Allotment(o.beta, len(o.alpha)), Exchange: o.exchange, Limit: lim.Blocking}
	rows := make([]report.JacksonRow, len(ns))
	c := startComputation(stderr, "jackson", "stopping; the finished rows follow")
	defer c.stop()
	done, err := c.each(len(ns), func(i int) error {
		res, err := jackson.Solve(&jackson.JIQ{Servers: ns[i], Load: o.load, Alpha: o.alpha, Beta: o.beta, Exchange: o.exchange})
		if err != nil {
			return err
		}
		rows[i] = report.JacksonRow{
			Servers: ns[i], Blocking: res.Blocking, NoTokens: res.NoTokens, Busy: res.Busy, Tokens: res.Tokens,
			LimitDiff: res.Blocking - lim.Blocking, Seconds: res.Elapsed.Seconds(),
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Rows = rows[:done]
	rep.Status = outcome.Exact.Name() // the product form, without iteration or truncation
	if done == 0 {
		return c.interruptedBefore(w, output{json: o.json}, "jackson", "no row had finished")
	}
	var halted error
	if done < len(ns) {
		rep.Status = outcome.Interrupted.Name()
		halted = c.halted("%d of %d rows finished (printed)", done, len(ns))
	}
	err = emit(w, output{json: o.json, csv: o.csv, rows: "rows"}, rep, func(w io.Writer) error { return writeJacksonText(w, rep, lim.Blocking, o) })
	return errors.Join(err, halted)
}

func writeJacksonText(w io.Writer, rep *report.Jackson, limit float64, o *jacksonOptions) error {
	var b strings.Builder
	beta := "uniform (basic JIQ)"
	if o.beta != nil {
		beta = fmt.Sprint(o.beta)
	}
	fmt.Fprintf(&b, "JIQ blocking, exact at finite N (closed Jackson network): λ = %s, α = %v, β %s\n", g(o.load), o.alpha, beta)
	fmt.Fprintf(&b, "N → ∞ limit: B∞ = %s\n\n", g(limit))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	h := "N\tblocking B\tB − B∞\tN·(B − B∞)\t"
	for r := range o.alpha {
		h += fmt.Sprintf("P(no tokens %d)\t", r+1)
	}
	fmt.Fprintln(tw, h+"ms\t")
	for _, row := range rep.Rows {
		line := fmt.Sprintf("%d\t%.6g\t%.3g\t%.4g\t", row.Servers, row.Blocking, row.LimitDiff, float64(row.Servers)*row.LimitDiff)
		for _, p := range row.NoTokens {
			line += fmt.Sprintf("%.4g\t", p)
		}
		fmt.Fprintln(tw, line+fmt.Sprintf("%.2f\t", row.Seconds*1000))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}
