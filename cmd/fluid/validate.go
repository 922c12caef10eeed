package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/validate"
)

type validateOptions struct {
	quick  bool
	filter string
	seed   uint64
	json   bool
	csv    bool
}

func newValidate() *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check every theoretical result against the finite-N simulator",
		Long: `validate runs the catalogue of package validate: each theoretical prediction (JIQ
limits and fluid trajectories, the exact product form, the refresh-period map's fixed
points, edge and herd, M/G/1-PS, the JSQ(2) mean field) against simulation at one or
more N. A check passes when the simulated 99.9% interval, widened by the case's
stated finite-N allowance, contains the theory value:
|simulation − theory| ≤ 99.9% half-width + allowance. The table's "± 99.9%
(verdict)" column is that half-width (Student t over the replications); the JSON
gives it as half_width_999, next to the 95% half-width sim.ci95. The exit status
is 1 if any check fails. Ctrl-C abandons the case in progress and prints the cases
that finished (exit status 130; the JSON says interrupted).

--quick runs the quick part of the catalogue with fewer simulated jobs (one and a
half to two minutes on 2 cores); the full catalogue adds the edge at N = 800, the
finite-N edge at N = 25 and 800, the stale-board mean fields and longer runs (about
ten minutes).`,
		Example: `  fluid validate --quick
  fluid validate --filter 'jiq'
  fluid validate --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runValidate(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.quick, "quick", false, "only the quick cases, with fewer jobs")
	f.StringVar(&o.filter, "filter", "", "run only the cases whose name matches this regular expression")
	f.Uint64Var(&o.seed, "seed", 1, "base random seed")
	f.BoolVar(&o.csv, "csv", false, "write the table as CSV (one row per check; columns named as the JSON fields)")
	f.BoolVar(&o.json, "json", false, "write JSON (report.Validate; schema in docs/schema/validate.json)")
	declare(cmd,
		flagRule{flag: "seed", field: "Seed", rng: &flagRange{lo: 1, hi: math.MaxUint64, integer: true, example: "7"}},
		flagRule{flag: "filter", field: "Filter"},
	)
	return cmd
}

// errChecksFailed is the run error when a check fails (exit status 1).
var errChecksFailed = errors.New("validation failed")

func runValidate(stdout, stderr io.Writer, o *validateOptions) error {
	if err := exclusiveOutputs(o.json, o.csv); err != nil {
		return err
	}
	s := &validate.Settings{Quick: o.quick, Seed: o.seed}
	if o.filter != "" {
		re, err := regexp.Compile(o.filter)
		if err != nil {
			return usagef("invalid --filter: %v", err)
		}
		s.Filter = re
	}
	// Ctrl-C (or SIGTERM) abandons the case in progress and prints the
	// finished ones; a second signal ends the process.
	c := startComputation(stderr, "validating", "stopping; the finished cases follow")
	defer c.stop()
	s.Run = c.run(0)
	rep, err := validate.Run(s)
	c.done()
	if err != nil {
		if errors.Is(err, validate.ErrNoCase) {
			return usagef("invalid --filter: %q matches no case (the case names are those fluid validate prints, e.g. --filter jiq)", o.filter)
		}
		return err
	}
	doc := validateReport(rep, o)
	if rep.Done == 0 && rep.Status == outcome.Interrupted {
		return c.interruptedBefore(stdout, output{json: o.json}, "validate", "no case had finished")
	}
	if err := emit(stdout, output{json: o.json, csv: o.csv, rows: "checks"}, doc, func(w io.Writer) error { return writeValidateText(w, rep) }); err != nil {
		return err
	}
	if err := c.ended(rep.Status, "", fmt.Sprintf("%d of %d cases finished (%d checks, %d failed)", rep.Done, rep.Cases, len(rep.Checks), rep.Failed)); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%w: %d of %d checks", errChecksFailed, rep.Failed, len(rep.Checks))
	}
	return nil
}

// validateReport is the JSON document of a validation run.
func validateReport(rep *validate.Report, o *validateOptions) *report.Validate {
	doc := &report.Validate{Header: report.NewHeader("validate"), Seed: o.seed, Filter: o.filter,
		Cases: rep.Cases, Failed: rep.Failed, Seconds: rep.Elapsed.Seconds(), Quick: rep.Quick, Interrupted: rep.Status == outcome.Interrupted, Done: rep.Done}
	for _, c := range rep.Checks {
		doc.Checks = append(doc.Checks, report.Check{Case: c.Case, Source: c.Source, Quantity: c.Quantity, N: c.N,
			Theory: c.Theory, Allow: c.Allow, Sim: estimate(c.Sim), Half: c.Half, Pass: c.Pass, Seconds: c.Seconds})
	}
	return doc
}

func writeValidateText(w io.Writer, rep *validate.Report) error {
	var b strings.Builder
	what := "full catalogue"
	if rep.Quick {
		what = "quick catalogue"
	}
	if rep.Status == outcome.Interrupted {
		fmt.Fprintf(&b, "Theory against simulation (%s), interrupted: %d of %d cases, %d checks\n\n", what, rep.Done, rep.Cases, len(rep.Checks))
	} else {
		fmt.Fprintf(&b, "Theory against simulation (%s): %d cases, %d checks\n\n", what, rep.Cases, len(rep.Checks))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tcheck\tN\ttheory\tsimulation\t± 99.9% (verdict)\tallowance\tverdict\tseconds")
	last := ""
	for _, c := range rep.Checks {
		name, sec := c.Case, fmt.Sprintf("%.1f", c.Seconds)
		if name == last {
			name, sec = "", ""
		}
		last = c.Case
		verdict := "pass"
		if !c.Pass {
			verdict = "FAIL"
		}
		ci := fmt.Sprintf("%.3g", c.Half) // the verdict's 99.9% half-width
		if c.Sim.Samples < 2 {
			ci = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.5g\t%.5g\t%s\t%.3g\t%s\t%s\n", name, c.Quantity, c.N, c.Theory, c.Sim.Mean, ci, c.Allow, verdict, sec)
	}
	tw.Flush()
	// Blank trailing cells leave padding at line ends: trim it.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	b.Reset()
	b.WriteString(strings.Join(lines, "\n"))
	fmt.Fprintf(&b, "\n%d of %d checks passed in %.1f s. A check passes when |simulation − theory| ≤ the 99.9%% half-width (column ± 99.9%%) + the allowance.\n",
		len(rep.Checks)-rep.Failed, len(rep.Checks), rep.Elapsed.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}
