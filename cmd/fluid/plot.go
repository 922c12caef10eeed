package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/plots"
)

type plotOptions struct {
	args   []string // the positional arguments: NAME, all, or table FILE
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
			o.args = args
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
	table := func() bool { return len(o.args) > 0 && o.args[0] == "table" }
	figures := needs(func() bool { return !table() }, "plot table draws the table's own data: it computes nothing")
	rules := []flagRule{
		{flag: "output"},
		{flag: "format", when: needs(func() bool { return len(o.args) > 0 && o.args[0] == "all" }, "the format of one figure follows the -o file name (.png, .svg or .pdf); --format is for plot all")},
		{flag: "quick", when: figures}, {flag: "data", when: figures},
		{flag: "seed", rng: &flagRange{lo: 1, hi: math.MaxUint64, integer: true, example: "7"}, when: figures},
	}
	for _, n := range tableFlags {
		rules = append(rules, flagRule{flag: n, when: needs(table, "it is for plot table FILE")})
	}
	declare(cmd, rules...)
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
// while a figure's data is computed. A signal abandons the figure in
// progress; the figures finished are kept (each file is written whole or
// not at all).
func runPlot(w, stderr io.Writer, name string, o *plotOptions) error {
	names, paths, err := plotTargets(name, o)
	if err != nil {
		return err
	}
	if o.data != "" {
		if err := outputDir("--data", o.data); err != nil {
			return err
		}
	}
	s := &plots.Settings{Quick: o.quick, Seed: o.seed, DataDir: o.data}
	c := startComputation(stderr, "", "abandoning the figure in progress; the finished ones are kept")
	c.work = true
	defer c.stop()
	s.Progress = c.progress
	done, err := c.each(len(names), func(i int) error {
		t0 := time.Now()
		c.mu.Lock()
		c.label = names[i]
		c.mu.Unlock()
		fig, err := plots.Make(names[i], s)
		c.done()
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
		// "in X s": the docs' transcripts mask the wall time.
		_, err = fmt.Fprintf(w, "%-15s %s, in %.1f s\n", names[i], paths[i], time.Since(t0).Seconds())
		return err
	})
	if err != nil {
		return err
	}
	if done < len(names) {
		return c.halted("%d of %d figures written", done, len(names))
	}
	return nil
}

// plotTargets are the figures to draw and their files, checked before
// any work: -o a file in an existing folder (one figure) or a folder
// (all).
func plotTargets(name string, o *plotOptions) (names, paths []string, err error) {
	if o.out == "" {
		return nil, nil, usagef("invalid -o: give an output file (or a directory for all), e.g. -o edge.png")
	}
	if name == "all" {
		if !slices.Contains([]string{"png", "svg", "pdf"}, o.format) {
			return nil, nil, usagef("invalid --format: %q, want png, svg or pdf (e.g. --format svg)", o.format)
		}
		if err := outputDir("-o", o.out); err != nil {
			return nil, nil, err
		}
		for _, n := range plots.Names() {
			names = append(names, n)
			paths = append(paths, filepath.Join(o.out, n+"."+o.format))
		}
		return names, paths, nil
	}
	if plots.Title(name) == "" {
		return nil, nil, usagef("unknown figure %q (want one of %s, or all)", name, strings.Join(plots.Names(), ", "))
	}
	if err := outputFile("-o", o.out, "png", "svg", "pdf"); err != nil {
		return nil, nil, err
	}
	return []string{name}, []string{o.out}, nil
}

// outputFile checks, before any work, that path can be written as an
// output file with one of the extensions (at least one): not a
// directory, in a folder that exists.
func outputFile(flag, path string, exts ...string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("invalid %s: %s is a directory; give a file in it, e.g. %s %s", flag, path, flag, filepath.Join(path, "out."+exts[0]))
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if !slices.Contains(exts, ext) {
		return usagef("invalid %s: %q must end in .%s (e.g. %s out.%s)", flag, path, strings.Join(exts, ", ."), flag, exts[0])
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return usagef("invalid %s: the folder %s does not exist (create it, or write elsewhere)", flag, dir)
	}
	if !fi.IsDir() {
		return usagef("invalid %s: %s is not a folder", flag, dir)
	}
	return nil
}

// outputDir checks, before any work, that path is a directory or can be
// made one (its parent exists), and makes it.
func outputDir(flag, path string) error {
	if fi, err := os.Stat(path); err == nil {
		if !fi.IsDir() {
			return usagef("invalid %s: %s is a file, want a directory", flag, path)
		}
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return usagef("invalid %s: the folder %s does not exist (create it, or write elsewhere)", flag, filepath.Dir(path))
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return usagef("invalid %s: %v", flag, err)
	}
	return nil
}
