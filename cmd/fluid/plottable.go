package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/plots"
	"github.com/fluidlb/fluid/table"
)

// tableOptions are the flags of `fluid plot table`.
type tableOptions struct {
	x, y, z    string
	lines      bool
	where      []string
	title      string
	logX, logY bool
}

// tableFlags are the flags only plot table takes.
var tableFlags = []string{"x", "y", "z", "lines", "where", "title", "log-x", "log-y"}

func addTableFlags(f *pflag.FlagSet, o *tableOptions) {
	f.StringVar(&o.x, "x", "", "table: column on the horizontal axis")
	f.StringVar(&o.y, "y", "", "table: column on the vertical axis of a heat map, or telling lines apart")
	f.StringVar(&o.z, "z", "", "table: column drawn (colour of a heat map, height of lines)")
	f.BoolVar(&o.lines, "lines", false, "table: lines of --z against --x, one per value of --y, instead of a heat map")
	f.StringArrayVar(&o.where, "where", nil, "table: keep the rows where COL=VALUE (repeatable)")
	f.StringVar(&o.title, "title", "", "table: the figure's title (default from the columns)")
	f.BoolVar(&o.logX, "log-x", false, "table: log scale on x (lines)")
	f.BoolVar(&o.logY, "log-y", false, "table: log scale on the value axis (lines)")
}

func runPlotTable(w io.Writer, file string, o *plotOptions) error {
	t0 := time.Now()
	to := o.table
	if to.x == "" || to.z == "" {
		return usagef("plot table needs --x and --z (and --y for a heat map or several lines)")
	}
	if o.out == "" {
		return usagef("invalid -o: give an output file (.png, .svg or .pdf), e.g. -o table.png")
	}
	if err := outputFile("-o", o.out, "png", "svg", "pdf"); err != nil {
		return err
	}
	if _, err := table.FormatOf(file); err != nil {
		return usagef("invalid table file: %v", err)
	}
	where := map[string]string{}
	for _, c := range to.where {
		k, v, ok := strings.Cut(c, "=")
		if !ok || k == "" {
			return usagef("invalid --where %q: want COLUMN=VALUE (e.g. --where load=0.9)", c)
		}
		if prev, dup := where[k]; dup {
			return usagef("invalid --where: column %s is given twice (%s=%s and %s=%s); a row holds one value, so keep one", k, k, prev, k, v)
		}
		where[k] = v
	}
	t, err := table.Read(file)
	if err != nil {
		return usagef("invalid table file: %v", err)
	}
	if len(t.Rows) == 0 {
		return usagef("invalid table file: %s has a header and no rows (nothing to draw)", file)
	}
	fig, err := plots.TableFigure(t, plots.TableOptions{X: to.x, Y: to.y, Z: to.z, Lines: to.lines, Where: where,
		Title: to.title, LogX: to.logX, LogY: to.logY})
	if err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "plots: "))
	}
	if err := fig.Save(o.out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%-15s %s (%.1f s)\n", "table", o.out, time.Since(t0).Seconds())
	return err
}
