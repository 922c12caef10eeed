package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fluidlb/fluid/sweep"
)

// TableOptions choose what TableFigure draws from a table.
type TableOptions struct {
	// X and Z are the columns on the horizontal axis and the value drawn.
	X, Z string
	// Y, if set, is a heat map's vertical axis, or (with Lines, or when it
	// holds words) the column telling the lines apart.
	Y string
	// Lines draws one line of Z against X per value of Y instead of a heat
	// map.
	Lines bool
	// Where keeps the rows whose column (key) holds the value (numbers
	// compared as numbers).
	Where map[string]string
	// Title overrides the title; LogX and LogY put an axis of a line plot
	// on a log scale.
	Title      string
	LogX, LogY bool
}

// HeatMapData is a value over a rectangular grid of two columns: JIQ
// blocking over (α₁, λ), the edge over (λ, k), …
type HeatMapData struct {
	XName, YName, ZName string
	// X and Y are the distinct values of the two columns, increasing.
	X, Y []float64
	// Z is indexed [y][x]; NaN where the table has no value.
	Z [][]float64
}

// LinesData is a value against a column, one series per value of another.
type LinesData struct {
	XName, ZName string
	// YName is the column telling the series apart ("" for one series).
	YName  string
	Series []Series
}

// Series is one line: its label (the value of LinesData.YName) and points
// in increasing x.
type Series struct {
	Label string
	X, Z  []float64
}

// ColumnLabel is an axis label for a table column: the quantity and its
// unit for fluid's flags and results (time in mean service times, loads
// and rates per server), the column's name otherwise.
func ColumnLabel(name string) string {
	if l, ok := columnLabels[name]; ok {
		return l
	}
	if base, n, ok := strings.Cut(name, "."); ok {
		if _, err := strconv.Atoi(n); err == nil {
			switch base {
			case "alpha":
				return "arrival share α" + subscript(n) + " of dispatcher " + n
			case "beta":
				return "token share β" + subscript(n) + " of dispatcher " + n
			}
		}
		if l, ok := columnLabels[base]; ok {
			return l + " (" + n + ")"
		}
	}
	return name
}

var columnLabels = map[string]string{
	"load":                 "load λ (arrivals per server per service time)",
	"exchange":             "token exchange rate ν (per token per service time)",
	"nu_star":              "ν* (per token per service time)",
	"blocking":             "blocking probability",
	"blocking.mean":        "blocking probability",
	"mean_wait":            "mean wait E[W] (service times)",
	"mean_wait.mean":       "mean wait E[W] (service times)",
	"prob_wait":            "P(wait > 0)",
	"fraction_random":      "fraction of jobs sent at random",
	"busy":                 "fraction of busy servers",
	"sojourn":              "mean time in system (service times)",
	"sojourn.mean":         "mean time in system (service times)",
	"mean":                 "mean time in system (service times)",
	"mean_queue":           "mean jobs per server",
	"period":               "refresh period T (service times)",
	"scaled":               "tipping edge T*(1−λ)² (service times)",
	"line":                 "reference line 0.9(k − 2) (service times)",
	"ratio":                "T*(1−λ)² / 0.9(k − 2)",
	"radius":               "spectral radius",
	"board_mean":           "mean board at a refresh (jobs)",
	"board_mean.mean":      "mean board at a refresh (jobs)",
	"servers":              "servers N",
	"dispatchers":          "dispatchers k",
	"k":                    "dispatchers k",
	"limit_diff":           "B − B∞",
	"jobs":                 "jobs",
	"reps":                 "replications",
	"slowdown.mean":        "time in system / size",
	"wait_prob.mean":       "P(wait > 0)",
	"random_fraction.mean": "fraction of jobs sent at random",
}

func subscript(n string) string {
	var b strings.Builder
	for _, r := range n {
		b.WriteRune('₀' + (r - '0'))
	}
	return b.String()
}

// rowsOf returns the table's rows that pass the filters, and the columns
// named, which must exist.
func rowsOf(t *sweep.Table, where map[string]string, names ...string) ([][]any, []int, error) {
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = t.Index(n); idx[i] < 0 {
			return nil, nil, fmt.Errorf("plots: the table has no column %q (it has %s)", n, columnNames(t))
		}
	}
	keys := make([]string, 0, len(where))
	for k := range where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type filter struct {
		col  int
		text string
		num  float64
		isN  bool
	}
	var fs []filter
	for _, k := range keys {
		j := t.Index(k)
		if j < 0 {
			return nil, nil, fmt.Errorf("plots: cannot filter on %q: the table has no such column (it has %s)", k, columnNames(t))
		}
		f := filter{col: j, text: where[k]}
		if typ := t.Columns[j].Type; typ == sweep.Int64 || typ == sweep.Float64 {
			x, err := strconv.ParseFloat(where[k], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("plots: %s=%s: %s holds numbers", k, where[k], k)
			}
			f.num, f.isN = x, true
		}
		fs = append(fs, f)
	}
	var rows [][]any
	for _, r := range t.Rows {
		keep := true
		for _, f := range fs {
			if f.isN {
				x, ok := number(r[f.col])
				keep = ok && math.Abs(x-f.num) <= 1e-12*math.Max(1, math.Abs(f.num))
			} else {
				keep = cellText(r[f.col]) == f.text
			}
			if !keep {
				break
			}
		}
		if keep {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("plots: no row of the table passes the filters")
	}
	return rows, idx, nil
}

func columnNames(t *sweep.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// number reads a numeric cell.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return 0, false
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return sweep.FormatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func numericColumn(t *sweep.Table, name string) error {
	j := t.Index(name)
	if j >= 0 && t.Columns[j].Type != sweep.Int64 && t.Columns[j].Type != sweep.Float64 {
		return fmt.Errorf("plots: column %q holds %s values, not numbers", name, t.Columns[j].Type)
	}
	return nil
}

// clash explains two rows at the same place of a plot: the first column,
// other than those drawn, whose values differ.
func clash(t *sweep.Table, a, b []any, at string, skip ...int) error {
	for j := range t.Columns {
		if contains(skip, j) {
			continue
		}
		if cellText(a[j]) != cellText(b[j]) {
			return fmt.Errorf("plots: several rows at %s: %s varies too (%s, %s): choose one with a filter %s=%s",
				at, t.Columns[j].Name, cellText(a[j]), cellText(b[j]), t.Columns[j].Name, cellText(a[j]))
		}
	}
	return fmt.Errorf("plots: several identical rows at %s", at)
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TableHeatMapData arranges column Z of the table over the grid of
// columns X and Y. Every (x, y) may appear once (filter the other columns
// with Where); missing cells are NaN.
func TableHeatMapData(t *sweep.Table, o TableOptions) (*HeatMapData, error) {
	for _, n := range []string{o.X, o.Y, o.Z} {
		if err := numericColumn(t, n); err != nil {
			return nil, err
		}
	}
	rows, idx, err := rowsOf(t, o.Where, o.X, o.Y, o.Z)
	if err != nil {
		return nil, err
	}
	xs, ys := map[float64]bool{}, map[float64]bool{}
	for _, r := range rows {
		x, okx := number(r[idx[0]])
		y, oky := number(r[idx[1]])
		if okx && oky {
			xs[x], ys[y] = true, true
		}
	}
	d := &HeatMapData{XName: o.X, YName: o.Y, ZName: o.Z, X: sortedKeys(xs), Y: sortedKeys(ys)}
	if len(d.X) < 2 || len(d.Y) < 2 {
		return nil, fmt.Errorf("plots: a heat map needs at least two values of %s and of %s (%d and %d)", o.X, o.Y, len(d.X), len(d.Y))
	}
	if len(d.X)*len(d.Y) > 4_000_000 {
		return nil, fmt.Errorf("plots: a heat map of %d × %d cells is too large", len(d.X), len(d.Y))
	}
	col := indexOf(d.X)
	row := indexOf(d.Y)
	d.Z = make([][]float64, len(d.Y))
	from := make([][][]any, len(d.Y))
	for i := range d.Z {
		d.Z[i] = make([]float64, len(d.X))
		from[i] = make([][]any, len(d.X))
		for j := range d.Z[i] {
			d.Z[i][j] = math.NaN()
		}
	}
	for _, r := range rows {
		x, okx := number(r[idx[0]])
		y, oky := number(r[idx[1]])
		if !okx || !oky {
			continue
		}
		i, j := row[y], col[x]
		if prev := from[i][j]; prev != nil {
			return nil, clash(t, prev, r, fmt.Sprintf("%s=%s, %s=%s", o.X, sweep.FormatFloat(x), o.Y, sweep.FormatFloat(y)), idx...)
		}
		from[i][j] = r
		if z, ok := number(r[idx[2]]); ok {
			d.Z[i][j] = z
		}
	}
	return d, nil
}

// TableLinesData arranges column Z of the table against column X, one
// series per value of Y (one series if Y is empty), each in increasing x.
// Rows without a value of Z are left out.
func TableLinesData(t *sweep.Table, o TableOptions) (*LinesData, error) {
	for _, n := range []string{o.X, o.Z} {
		if err := numericColumn(t, n); err != nil {
			return nil, err
		}
	}
	names := []string{o.X, o.Z}
	if o.Y != "" {
		names = append(names, o.Y)
	}
	rows, idx, err := rowsOf(t, o.Where, names...)
	if err != nil {
		return nil, err
	}
	d := &LinesData{XName: o.X, ZName: o.Z, YName: o.Y}
	series := map[string]int{}
	var order []string
	type pt struct {
		x, z float64
		row  []any
	}
	points := map[string][]pt{}
	for _, r := range rows {
		x, okx := number(r[idx[0]])
		z, okz := number(r[idx[1]])
		if !okx || !okz {
			continue
		}
		label := ""
		if o.Y != "" {
			label = cellText(r[idx[2]])
		}
		if _, ok := series[label]; !ok {
			series[label] = len(order)
			order = append(order, label)
		}
		points[label] = append(points[label], pt{x, z, r})
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("plots: no row has numbers in both %s and %s", o.X, o.Z)
	}
	if len(order) > 50 {
		return nil, fmt.Errorf("plots: %s has %d values: too many lines (at most 50; filter some out)", o.Y, len(order))
	}
	if o.Y != "" {
		if j := t.Index(o.Y); t.Columns[j].Type == sweep.Int64 || t.Columns[j].Type == sweep.Float64 {
			sort.SliceStable(order, func(a, b int) bool {
				x, _ := strconv.ParseFloat(order[a], 64)
				y, _ := strconv.ParseFloat(order[b], 64)
				return x < y
			})
		}
	}
	for _, label := range order {
		ps := points[label]
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].x < ps[b].x })
		s := Series{Label: label}
		for k, p := range ps {
			if k > 0 && p.x == ps[k-1].x {
				at := fmt.Sprintf("%s=%s", o.X, sweep.FormatFloat(p.x))
				if o.Y != "" {
					at += fmt.Sprintf(", %s=%s", o.Y, label)
				}
				return nil, clash(t, ps[k-1].row, p.row, at, idx...)
			}
			s.X, s.Z = append(s.X, p.x), append(s.Z, p.z)
		}
		d.Series = append(d.Series, s)
	}
	return d, nil
}

func sortedKeys(m map[float64]bool) []float64 {
	out := make([]float64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Float64s(out)
	return out
}

func indexOf(xs []float64) map[float64]int {
	m := make(map[float64]int, len(xs))
	for i, x := range xs {
		m[x] = i
	}
	return m
}

// TableFigure draws a table: a heat map of Z over X and Y when Y is a
// numeric column with several values (and Lines is not set), lines of Z
// against X otherwise (one per value of Y, if given). Axis labels come
// from the column names (ColumnLabel).
func TableFigure(t *sweep.Table, o TableOptions) (*Figure, error) {
	if o.X == "" || o.Z == "" {
		return nil, fmt.Errorf("plots: a table figure needs the columns for x and z")
	}
	heat := false
	if o.Y != "" && !o.Lines {
		if j := t.Index(o.Y); j >= 0 && (t.Columns[j].Type == sweep.Int64 || t.Columns[j].Type == sweep.Float64) {
			rows, idx, err := rowsOf(t, o.Where, o.Y)
			if err != nil {
				return nil, err
			}
			distinct := map[string]bool{}
			for _, r := range rows {
				distinct[cellText(r[idx[0]])] = true
			}
			heat = len(distinct) > 1
		}
	}
	if heat {
		if o.LogX || o.LogY {
			return nil, fmt.Errorf("plots: log axes are for line plots")
		}
		d, err := TableHeatMapData(t, o)
		if err != nil {
			return nil, err
		}
		return HeatMapFigure(d, o.Title)
	}
	d, err := TableLinesData(t, o)
	if err != nil {
		return nil, err
	}
	return LinesFigure(d, o.Title, o.LogX, o.LogY)
}

// cells draws a heat map as one filled rectangle per value, reaching
// halfway to its neighbours, each drawn a hair wider than its place so that
// no seams show between cells; missing values in colour nan.
type cells struct {
	d      *HeatMapData
	pal    []color.Color
	lo, hi float64
	nan    color.Color
}

// edges are the cells' boundaries: midpoints between values, and half a
// step beyond the first and the last.
func edges(v []float64) []float64 {
	e := make([]float64, len(v)+1)
	for i := 1; i < len(v); i++ {
		e[i] = (v[i-1] + v[i]) / 2
	}
	e[0] = v[0] - (e[1] - v[0])
	e[len(v)] = v[len(v)-1] + (v[len(v)-1] - e[len(v)-1])
	return e
}

func (c *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	xe, ye := edges(c.d.X), edges(c.d.Y)
	return xe[0], xe[len(xe)-1], ye[0], ye[len(ye)-1]
}

func (c *cells) Plot(cv draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&cv)
	xe, ye := edges(c.d.X), edges(c.d.Y)
	hair := vg.Points(0.6)
	for i, row := range c.d.Z {
		for j, z := range row {
			col := c.nan
			if !math.IsNaN(z) {
				k := int(math.Round((z - c.lo) / (c.hi - c.lo) * float64(len(c.pal)-1)))
				col = c.pal[min(max(k, 0), len(c.pal)-1)]
			}
			x0, x1 := trX(xe[j]), trX(xe[j+1])
			y0, y1 := trY(ye[i]), trY(ye[i+1])
			if j+1 < len(row) {
				x1 += hair
			}
			if i+1 < len(c.d.Z) {
				y1 += hair
			}
			var path vg.Path
			path.Move(vg.Point{X: x0, Y: y0})
			path.Line(vg.Point{X: x1, Y: y0})
			path.Line(vg.Point{X: x1, Y: y1})
			path.Line(vg.Point{X: x0, Y: y1})
			path.Close()
			cv.SetColor(col)
			cv.Fill(path)
		}
	}
}

// HeatMapFigure draws a heat map in a luminance-monotone palette with a
// colour bar spanning the values; cells without a value are left blank.
// The figures with a heat map of their own (the JIQ blocking map) draw it
// through the same path.
func HeatMapFigure(d *HeatMapData, title string) (*Figure, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range d.Z {
		for _, z := range row {
			if !math.IsNaN(z) {
				lo, hi = math.Min(lo, z), math.Max(hi, z)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("plots: %s has no value to draw", d.ZName)
	}
	return heatMapFigure(d, title, lo, hi)
}

// heatMapFigure is HeatMapFigure with the colour bar spanning [lo, hi].
// The figure's first plot is the map, to which callers may add lines.
func heatMapFigure(d *HeatMapData, title string, lo, hi float64) (*Figure, error) {
	if err := finite("heat map axes", append(append([]float64{}, d.X...), d.Y...)...); err != nil {
		return nil, err
	}
	if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	if title == "" {
		title = fmt.Sprintf("%s over %s and %s", d.ZName, d.XName, d.YName)
	}
	p := plot.New() // no grid lines: they would show through the cells
	p.Title.Text = title
	p.X.Label.Text = ColumnLabel(d.XName)
	p.Y.Label.Text = ColumnLabel(d.YName)
	cm := &dimmed{ColorMap: moreland.ExtendedBlackBody(), top: 0.88}
	cm.SetMin(lo)
	cm.SetMax(hi)
	p.Add(&cells{d: d, pal: cm.Palette(128).Colors(), lo: lo, hi: hi, nan: color.RGBA{200, 200, 200, 255}})
	// A few cells per axis: a tick at each value.
	if len(d.X) <= 12 {
		p.X.Tick.Marker = valueTicks(d.X)
	}
	if len(d.Y) <= 12 {
		p.Y.Tick.Marker = valueTicks(d.Y)
	}
	bar := plot.New()
	bar.Title.Text = d.ZName
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Padding = 0
	bar.Y.Label.Text = ColumnLabel(d.ZName)
	w, ht := 20*vg.Centimeter, 14*vg.Centimeter
	f := &Figure{Name: "table", Width: w, Height: ht, Plots: []*plot.Plot{p, bar}}
	f.draw = func(c draw.Canvas) {
		split := c.Max.X - 3.5*vg.Centimeter
		p.Draw(draw.Crop(c, 0, split-c.Max.X, 0, 0))
		bar.Draw(draw.Crop(c, split-c.Min.X+vg.Points(6), 0, vg.Centimeter, -vg.Centimeter))
	}
	return f, nil
}

// valueTicks labels each value.
func valueTicks(vs []float64) plot.ConstantTicks {
	ts := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		ts[i] = plot.Tick{Value: v, Label: sweep.FormatFloat(v)}
	}
	return ts
}

// dimmed is a colour map that stops short of its last colours (black
// body's white would vanish into the page): its range maps onto [0, top]
// of the underlying map's.
type dimmed struct {
	gpalette.ColorMap
	top    float64
	lo, hi float64
}

func (d *dimmed) SetMin(x float64) { d.lo = x; d.sync() }
func (d *dimmed) SetMax(x float64) { d.hi = x; d.sync() }
func (d *dimmed) Min() float64     { return d.lo }
func (d *dimmed) Max() float64     { return d.hi }

// sync sets the underlying range so that hi falls at top of it.
func (d *dimmed) sync() {
	if d.hi > d.lo {
		d.ColorMap.SetMin(d.lo)
		d.ColorMap.SetMax(d.lo + (d.hi-d.lo)/d.top)
	}
}

func (d *dimmed) At(x float64) (color.Color, error) {
	if x < d.lo || x > d.hi {
		return nil, gpalette.ErrOverflow
	}
	return d.ColorMap.At(x)
}

func (d *dimmed) Palette(n int) gpalette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		c, err := d.At(d.lo + (d.hi-d.lo)*float64(i)/float64(max(n-1, 1)))
		if err != nil {
			c = color.Black
		}
		cs[i] = c
	}
	return colors(cs)
}

type colors []color.Color

func (c colors) Colors() []color.Color { return c }

// LinesFigure draws each series as a line with markers.
func LinesFigure(d *LinesData, title string, logX, logY bool) (*Figure, error) {
	if title == "" {
		title = fmt.Sprintf("%s against %s", d.ZName, d.XName)
		if d.YName != "" {
			title += ", by " + d.YName
		}
	}
	p := newPlot(title, ColumnLabel(d.XName), ColumnLabel(d.ZName))
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	}
	for i, s := range d.Series {
		if err := finite("series "+s.Label, append(append([]float64{}, s.X...), s.Z...)...); err != nil {
			return nil, err
		}
		for k := range s.X {
			if (logX && s.X[k] <= 0) || (logY && s.Z[k] <= 0) {
				return nil, fmt.Errorf("plots: a log axis cannot show %s=%s, %s=%s", d.XName, sweep.FormatFloat(s.X[k]), d.ZName, sweep.FormatFloat(s.Z[k]))
			}
		}
		name := ""
		if d.YName != "" {
			name = d.YName + " = " + s.Label
		}
		l, err := addLine(p, name, i, s.X, s.Z)
		if err != nil {
			return nil, err
		}
		sc, err := plotter.NewScatter(l.XYs)
		if err != nil {
			return nil, err
		}
		styleScatter(sc, i)
		p.Add(sc)
	}
	p.Legend.Left = false
	return single("table", p, 18*vg.Centimeter, 13*vg.Centimeter), nil
}
