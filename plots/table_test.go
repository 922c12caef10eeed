package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/report"
	"github.com/fluidlb/fluid/table"
)

// jiqTable is a small table as fluid sweep merge writes it: blocking over
// exchange × load for two share vectors, one cell missing.
func jiqTable() *table.Table {
	t := &table.Table{Columns: []table.Column{
		{Name: "alpha", Type: table.String, Grid: true},
		{Name: "load", Type: table.Float64, Grid: true},
		{Name: "exchange", Type: table.Int64, Grid: true},
		{Name: "blocking", Type: table.Float64},
		{Name: "task_status", Type: table.String},
	}}
	for _, a := range []string{"0.7,0.3", "0.6,0.4"} {
		for _, l := range []float64{0.9, 0.5} {
			for _, x := range []int64{0, 2, 4} {
				var b any = math.Max(0, 0.4-0.1*float64(x)) * l
				if a == "0.6,0.4" {
					b = b.(float64) / 2
				}
				if l == 0.5 && x == 4 {
					b = nil // a failed task
				}
				t.Rows = append(t.Rows, []any{a, l, x, b, "ok"})
			}
		}
	}
	return t
}

func TestTableHeatMapData(t *testing.T) {
	tab := jiqTable()
	o := TableOptions{X: "exchange", Y: "load", Z: "blocking", Where: map[string]string{"alpha": "0.7,0.3"}}
	d, err := TableHeatMapData(tab, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.X, []float64{0, 2, 4}) || !reflect.DeepEqual(d.Y, []float64{0.5, 0.9}) {
		t.Errorf("axes %v %v", d.X, d.Y)
	}
	// Z[y][x]: λ = 0.5 row first; the missing cell is NaN.
	if d.Z[0][0] != 0.2 || !approx.Equal(d.Z[1][1], 0.18, 1e-15, 0) || !math.IsNaN(d.Z[0][2]) || d.Z[1][2] != 0 {
		t.Errorf("z %v", d.Z)
	}
	// Without the filter two rows fall on each cell: the error names the
	// column that varies.
	o.Where = nil
	if _, err := TableHeatMapData(tab, o); err == nil || !strings.Contains(err.Error(), "alpha varies too") {
		t.Errorf("%v", err)
	}
	for _, bad := range []TableOptions{
		{X: "exchange", Y: "load", Z: "nope"},
		{X: "exchange", Y: "load", Z: "task_status"},
		{X: "exchange", Y: "load", Z: "blocking", Where: map[string]string{"alpha": "0.5,0.5"}},
		{X: "exchange", Y: "load", Z: "blocking", Where: map[string]string{"load": "x"}},
	} {
		t.Run(fmt.Sprintf("refuses %+v", bad), func(t *testing.T) {
			if _, err := TableHeatMapData(tab, bad); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestTableLinesData(t *testing.T) {
	tab := jiqTable()
	d, err := TableLinesData(tab, TableOptions{X: "exchange", Y: "alpha", Z: "blocking", Where: map[string]string{"load": "0.5"}})
	if err != nil {
		t.Fatal(err)
	}
	// One series per α, in table order; the row without a value is left out.
	if len(d.Series) != 2 || d.Series[0].Label != "0.7,0.3" || !reflect.DeepEqual(d.Series[1].X, []float64{0, 2}) ||
		!reflect.DeepEqual(d.Series[1].Z, []float64{0.1, 0.05}) {
		t.Errorf("%+v", d.Series)
	}
	// Numeric series are ordered by value.
	d, err = TableLinesData(tab, TableOptions{X: "exchange", Y: "load", Z: "blocking", Where: map[string]string{"alpha": "0.6,0.4"}})
	if err != nil || d.Series[0].Label != "0.5" || d.Series[1].Label != "0.9" {
		t.Errorf("%+v %v", d, err)
	}
}

func TestTableFigure(t *testing.T) {
	tab := jiqTable()
	heat, err := TableFigure(tab, TableOptions{X: "exchange", Y: "load", Z: "blocking", Where: map[string]string{"alpha": "0.7,0.3"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(heat.Plots) != 2 || heat.Plots[0].X.Label.Text != "token exchange rate ν (per token per service time)" ||
		heat.Plots[0].Y.Label.Text != "load λ (arrivals per server per service time)" {
		t.Errorf("heat map labels %q / %q", heat.Plots[0].X.Label.Text, heat.Plots[0].Y.Label.Text)
	}
	renders(t, heat, "blocking probability")
	lines, err := TableFigure(tab, TableOptions{X: "exchange", Y: "alpha", Z: "blocking", Where: map[string]string{"load": "0.9"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines.Plots) != 1 {
		t.Errorf("alpha holds words: want lines, got %d panels", len(lines.Plots))
	}
	renders(t, lines, "alpha = 0.7,0.3", "alpha = 0.6,0.4")
	path := filepath.Join(t.TempDir(), "table.png")
	if err := heat.Save(path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("%s: %v", path, err)
	}
	if ColumnLabel("alpha.2") != "arrival share α₂ of dispatcher 2" || ColumnLabel("whatever") != "whatever" {
		t.Error("labels")
	}
}

// Every labelled column is a field some report emits, under the name a
// table gives it (nested objects with dots; a report's rows as their own
// fields).
func TestColumnLabelsAreReportFields(t *testing.T) {
	fields := map[string]bool{}
	var walk func(ty reflect.Type, prefix string)
	walk = func(ty reflect.Type, prefix string) {
		for ty.Kind() == reflect.Pointer {
			ty = ty.Elem()
		}
		for i := range ty.NumField() {
			f := ty.Field(i)
			if f.Anonymous {
				walk(f.Type, prefix)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[prefix+name] = true
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			switch {
			case et.Kind() == reflect.Struct:
				walk(et, prefix+name+".")
			case et.Kind() == reflect.Slice && et.Elem().Kind() == reflect.Struct:
				walk(et.Elem(), "")
			}
		}
	}
	for _, r := range []any{report.Edge{}, report.Map{}, report.JIQ{}, report.JIQTrajectory{}, report.Jackson{},
		report.Meanfield{}, report.Sim{}, report.Validate{}, report.SweepStatus{}} {
		walk(reflect.TypeOf(r), "")
	}
	for name := range columnLabels {
		if !fields[name] {
			t.Errorf("label for %q, a field no report emits", name)
		}
	}
}
