package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/plots"
)

type plotOptions struct {
	out    string
	format string
	quick  bool
	data   string
	seed   uint64
	table  tableOptions
}

func newPlot() *cobra.Command {
	o := &plotOptions{}
	cmd := &cobra.Command{
		Use:   "plot NAME|all|table FILE",
		Short: "Draw a figure (phase diagrams, theory against simulation)",
		Long: `plot computes a figure's data with the solvers and the simulator and draws it
with gonum/plot; the format follows the file name (.png, .svg or .pdf).

Figures:
` + figureList() + `
"plot all -o DIR" renders every figure into DIR (as --format, default png).
--data DIR caches each figure's data as JSON, so later renders skip the
computation (a cached file from an older version of a figure's data is
recomputed); --quick computes coarser data (fewer points, shorter
simulations). While data are computed, a progress bar shows on stderr when
it is a terminal.

"plot table FILE" draws a table written by "fluid sweep merge" (CSV, JSON Lines
or Parquet): a heat map of --z over --x and --y when --y is a numeric column
with several values, otherwise lines of --z against --x, one per value of --y
(--lines forces lines). --where COL=VALUE keeps the rows where COL holds
VALUE (repeatable). Axis labels come from the column names, with units.`,
		Example: `  fluid plot edge -o edge.png
  fluid plot jiq-blocking -o blocking.svg --quick
  fluid plot all -o docs --data docs/data
  fluid plot table jiq.csv --x exchange --y load --z blocking -o jiq.png
  fluid plot table jackson.csv --x servers --z blocking --y load --lines --log-x -o b.png`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && args[0] == "table" {
				return nil
			}
			if len(args) != 1 || args[0] == "table" {
				return &usageError{err: fmt.Errorf("give one figure name or all (one of %s), or table FILE", strings.Join(plots.Names(), ", ")), cmd: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "table" {
				return runPlotTable(cmd.OutOrStdout(), args[1], o)
			}
			for _, n := range tableFlags {
				if cmd.Flags().Changed(n) {
					return usagef("--%s is for plot table", n)
				}
			}
			return runPlot(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "output file (NAME) or directory (all)")
	f.StringVar(&o.format, "format", "png", "format for plot all: png, svg or pdf")
	f.BoolVar(&o.quick, "quick", false, "coarser, faster data")
	f.StringVar(&o.data, "data", "", "directory caching each figure's data as JSON")
	f.Uint64Var(&o.seed, "seed", 1, "base random seed of the simulations")
	addTableFlags(f, &o.table)
	return cmd
}

func figureList() string {
	var b strings.Builder
	for _, n := range plots.Names() {
		fmt.Fprintf(&b, "  %-15s %s\n", n, plots.Title(n))
	}
	return b.String()
}

// runPlot draws the figures, with a progress bar on stderr (a terminal)
// while a figure's data is computed.
func runPlot(w, stderr io.Writer, name string, o *plotOptions) error {
	if o.seed == 0 {
		return usagef("invalid --seed: 0, want ≥ 1 (0 stands for the default seed 1 in the library, so it would silently repeat seed 1)")
	}
	if o.out == "" {
		return usagef("invalid -o: give an output file (or a directory for all)")
	}
	s := &plots.Settings{Quick: o.quick, Seed: o.seed, DataDir: o.data}
	var names []string
	var paths []string
	if name == "all" {
		if !slices.Contains([]string{"png", "svg", "pdf"}, o.format) {
			return usagef("invalid --format: %q, want png, svg or pdf", o.format)
		}
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
		for _, n := range plots.Names() {
			names = append(names, n)
			paths = append(paths, filepath.Join(o.out, n+"."+o.format))
		}
	} else {
		if plots.Title(name) == "" {
			return usagef("unknown figure %q (want one of %s, or all)", name, strings.Join(plots.Names(), ", "))
		}
		ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(o.out), "."))
		if !slices.Contains([]string{"png", "svg", "pdf"}, ext) {
			return usagef("invalid -o: %q must end in .png, .svg or .pdf", o.out)
		}
		names, paths = []string{name}, []string{o.out}
	}
	for i, n := range names {
		t0 := time.Now()
		c := startComputation(stderr, n, "")
		c.work = true
		s.Progress = c.progress
		fig, err := plots.Make(n, s)
		c.stop()
		var mismatch *plots.CacheMismatchError
		if errors.As(err, &mismatch) {
			return usagef("invalid --data: %v", err)
		}
		if err != nil {
			return err
		}
		if err := fig.Save(paths[i]); err != nil {
			return err
		}
		fmt.Fprintf(w, "%-15s %s (%.1f s)\n", n, paths[i], time.Since(t0).Seconds())
	}
	return nil
}
