package plots

import (
	"fmt"
	"image"
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

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/table"
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
	// X and Y are the distinct values of the two columns, increasing;
	// XInt and YInt tell that the columns hold integers (k, N), to be
	// labelled at whole numbers.
	X, Y       []float64
	XInt, YInt bool
	// Z is indexed [y][x]; NaN where the table has no value.
	Z [][]float64
}

// LinesData is a value against a column, one series per value of another.
type LinesData struct {
	XName, ZName string
	// XInt tells that X holds integers (k, N), to be labelled at whole
	// numbers.
	XInt bool
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
	if _, ok := quantity.ConceptOf(name); ok {
		// The inputs the commands share read the same everywhere: their
		// label and unit are quantity's.
		return quantity.Axis(name)
	}
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

// columnLabels are the labels of the fields the reports emit (package
// report: table columns are their JSON names, nested ones with dots, as
// package table flattens them); TestColumnLabelsAreReportFields keeps the
// keys to those.
var columnLabels = map[string]string{
	"nu_star":              "ν* (per token per mean service time)",
	"blocking":             "blocking probability",
	"blocking.mean":        "blocking probability",
	"mean_wait":            "mean wait E[W] (mean service times)",
	"mean_wait.mean":       "mean wait E[W] (mean service times)",
	"prob_wait":            "P(wait > 0)",
	"fraction_random":      "fraction of jobs sent at random",
	"busy":                 "fraction of busy servers",
	"sojourn":              "mean time in system (mean service times)",
	"sojourn.mean":         "mean time in system (mean service times)",
	"mean":                 "mean time in system (mean service times)",
	"mean_queue":           "mean jobs per server",
	"scaled":               "tipping edge T*(1−λ)² (mean service times)",
	"line":                 "reference line 0.9(k − 2) (mean service times)",
	"ratio":                "T*(1−λ)² / 0.9(k − 2)",
	"radius":               "spectral radius",
	"board_mean":           "mean board at a refresh (jobs)",
	"board_mean.mean":      "mean board at a refresh (jobs)",
	"limit_diff":           "B − B∞",
	"jobs":                 "jobs",
	"reps":                 "replications",
	"slowdown.mean":        "time in system / size",
	"prob_wait.mean":       "P(wait > 0)",
	"fraction_random.mean": "fraction of jobs sent at random",
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
func rowsOf(t *table.Table, where map[string]string, names ...string) ([][]any, []int, error) {
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
		if typ := t.Columns[j].Type; typ == table.Int64 || typ == table.Float64 {
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

func columnNames(t *table.Table) string {
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
		return lists.FormatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func numericColumn(t *table.Table, name string) error {
	j := t.Index(name)
	if j >= 0 && t.Columns[j].Type != table.Int64 && t.Columns[j].Type != table.Float64 {
		return fmt.Errorf("plots: column %q holds %s values, not numbers", name, t.Columns[j].Type)
	}
	return nil
}

// clash explains two rows at the same place of a plot: the first column,
// other than those drawn, whose values differ.
func clash(t *table.Table, a, b []any, at string, skip ...int) error {
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
func TableHeatMapData(t *table.Table, o TableOptions) (*HeatMapData, error) {
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
	d := &HeatMapData{XName: o.X, YName: o.Y, ZName: o.Z, X: sortedKeys(xs), Y: sortedKeys(ys),
		XInt: t.Columns[idx[0]].Type == table.Int64, YInt: t.Columns[idx[1]].Type == table.Int64}
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
			return nil, clash(t, prev, r, fmt.Sprintf("%s=%s, %s=%s", o.X, lists.FormatFloat(x), o.Y, lists.FormatFloat(y)), idx...)
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
func TableLinesData(t *table.Table, o TableOptions) (*LinesData, error) {
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
	d := &LinesData{XName: o.X, ZName: o.Z, YName: o.Y, XInt: t.Columns[idx[0]].Type == table.Int64}
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
		if j := t.Index(o.Y); t.Columns[j].Type == table.Int64 || t.Columns[j].Type == table.Float64 {
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
				at := fmt.Sprintf("%s=%s", o.X, lists.FormatFloat(p.x))
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
func TableFigure(t *table.Table, o TableOptions) (*Figure, error) {
	if o.X == "" || o.Z == "" {
		return nil, fmt.Errorf("plots: a table figure needs the columns for x and z")
	}
	heat := false
	if o.Y != "" && !o.Lines {
		if j := t.Index(o.Y); j >= 0 && (t.Columns[j].Type == table.Int64 || t.Columns[j].Type == table.Float64) {
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

// raster draws a heat map as one image, each cell reaching halfway to its
// neighbours, missing values in colour nan. One image rather than a
// rectangle per cell: anti-aliased edges of rectangles that meet leave
// hairline seams in PNG, SVG and PDF viewers alike.
type raster struct {
	d   *HeatMapData
	cm  gpalette.ColorMap
	nan color.Color
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

func (r *raster) DataRange() (xmin, xmax, ymin, ymax float64) {
	xe, ye := edges(r.d.X), edges(r.d.Y)
	return xe[0], xe[len(xe)-1], ye[0], ye[len(ye)-1]
}

// cellOf maps n pixels across [e₀, e_last] to the cells bounded by e;
// down reverses the order (image rows run from the top).
func cellOf(e []float64, n int, down bool) []int {
	out := make([]int, n)
	for px := range out {
		f := (float64(px) + 0.5) / float64(n)
		if down {
			f = 1 - f
		}
		v := e[0] + f*(e[len(e)-1]-e[0])
		out[px] = min(max(sort.SearchFloat64s(e, v)-1, 0), len(e)-2)
	}
	return out
}

func (r *raster) Plot(c draw.Canvas, p *plot.Plot) {
	xe, ye := edges(r.d.X), edges(r.d.Y)
	// Enough pixels that a cell's edge is sharp in print: at least 1,200
	// across and 4 per cell, at most 3,000.
	w := min(max(1200, 4*len(r.d.X)), 3000)
	h := min(max(1200, 4*len(r.d.Y)), 3000)
	cols, rows := cellOf(xe, w, false), cellOf(ye, h, true)
	colour := make([][]color.RGBA, len(r.d.Z))
	for i, row := range r.d.Z {
		colour[i] = make([]color.RGBA, len(row))
		for j, z := range row {
			col := r.nan
			if !math.IsNaN(z) {
				z = math.Min(math.Max(z, r.cm.Min()), r.cm.Max())
				if cz, err := r.cm.At(z); err == nil {
					col = cz
				}
			}
			cr, cg, cb, ca := col.RGBA()
			colour[i][j] = color.RGBA{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), uint8(ca >> 8)}
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for py, i := range rows {
		line := img.Pix[py*img.Stride : py*img.Stride+4*w]
		for px, j := range cols {
			col := colour[i][j]
			line[4*px], line[4*px+1], line[4*px+2], line[4*px+3] = col.R, col.G, col.B, col.A
		}
	}
	plotter.NewImage(img, xe[0], ye[0], xe[len(xe)-1], ye[len(ye)-1]).Plot(c, p)
}

// HeatMapFigure draws a heat map in a luminance-monotone palette with a
// colour bar spanning the values; cells without a value are grey.
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
	h, err := newHeatMap(d, title, lo, hi)
	if err != nil {
		return nil, err
	}
	return h.figure("table"), nil
}

// heatMap is a heat map, its colour bar, and a legend (for lines drawn
// over the map) under the map.
type heatMap struct {
	p, bar *plot.Plot
	legend *legendBox
}

// shortLabel is a column's label without its unit, for titles.
func shortLabel(name string) string {
	l := ColumnLabel(name)
	if i := strings.Index(l, " ("); i > 0 {
		return l[:i]
	}
	return l
}

// newHeatMap is the heat map of d with the colour bar spanning [lo, hi].
func newHeatMap(d *HeatMapData, title string, lo, hi float64) (*heatMap, error) {
	if err := finite("heat map axes", append(append([]float64{}, d.X...), d.Y...)...); err != nil {
		return nil, err
	}
	if len(d.X) < 2 || len(d.Y) < 2 {
		return nil, fmt.Errorf("plots: a heat map needs at least two values on each axis")
	}
	if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	if title == "" {
		title = fmt.Sprintf("%s over %s and %s", shortLabel(d.ZName), shortLabel(d.XName), shortLabel(d.YName))
	}
	p := plot.New() // no grid lines: they would show through the cells
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = ColumnLabel(d.XName)
	p.Y.Label.Text = ColumnLabel(d.YName)
	p.X.Padding, p.Y.Padding = 0, 0
	cm := &dimmed{ColorMap: moreland.ExtendedBlackBody(), top: 0.88}
	cm.SetMin(lo)
	cm.SetMax(hi)
	p.Add(&raster{d: d, cm: cm, nan: color.RGBA{200, 200, 200, 255}})
	// A few cells per axis: a tick at each value.
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{integer: d.XInt}, linTicks{integer: d.YInt}
	if len(d.X) <= 12 {
		p.X.Tick.Marker = valueTicks(d.X)
	}
	if len(d.Y) <= 12 {
		p.Y.Tick.Marker = valueTicks(d.Y)
	}
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 256})
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Y.Label.Text = ColumnLabel(d.ZName)
	bar.Y.Tick.Marker = linTicks{n: 6}
	return &heatMap{p: p, bar: bar}, nil
}

// figure draws the map with its legend under it and the colour bar on
// the right, level with the map.
func (h *heatMap) figure(name string) *Figure {
	f := &Figure{Name: name, Width: 20 * vg.Centimeter, Height: 14 * vg.Centimeter, Plots: []*plot.Plot{h.p, h.bar}}
	f.draw = func(c draw.Canvas) {
		split := c.Max.X - 3*vg.Centimeter
		mc := draw.Crop(c, 0, split-c.Max.X, 0, 0)
		withLegend := h.legend != nil && len(h.legend.items)+len(h.legend.notes) > 0
		pc := mc
		var lw, lh vg.Length
		if withLegend {
			lw, lh = h.legend.size()
			pc = draw.Crop(mc, 0, 0, lh+gap, 0)
		}
		dc := drawPlot(h.p, pc)
		if withLegend {
			x := dc.Min.X + (dc.Max.X-dc.Min.X-lw)/2
			h.legend.draw(c, vg.Point{X: max(x, c.Min.X), Y: c.Min.Y + lh})
		}
		// The bar's data area level with the map's: grow its canvas by what
		// the bar's axis takes at the ends.
		bc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: split + vg.Points(14), Y: dc.Min.Y}, Max: vg.Point{X: c.Max.X - vg.Points(8), Y: dc.Max.Y}}}
		inner := h.bar.DataCanvas(bc)
		bc.Min.Y -= inner.Min.Y - dc.Min.Y
		bc.Max.Y += dc.Max.Y - inner.Max.Y
		h.bar.Draw(bc)
	}
	return f
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

// LinesFigure draws each series as a line with markers, the legend to the
// right of the plot.
func LinesFigure(d *LinesData, title string, logX, logY bool) (*Figure, error) {
	if title == "" {
		title = fmt.Sprintf("%s against %s", shortLabel(d.ZName), shortLabel(d.XName))
		if d.YName != "" {
			title += ", by " + shortLabel(d.YName)
		}
	}
	p := newPlot(title, ColumnLabel(d.XName), ColumnLabel(d.ZName))
	p.X.Tick.Marker = linTicks{integer: d.XInt}
	if logX {
		logAxes(p, "x")
	}
	if logY {
		logAxes(p, "y")
	}
	lg := newLegend(1)
	for i, s := range d.Series {
		if err := finite("series "+s.Label, append(append([]float64{}, s.X...), s.Z...)...); err != nil {
			return nil, err
		}
		for k := range s.X {
			if (logX && s.X[k] <= 0) || (logY && s.Z[k] <= 0) {
				return nil, fmt.Errorf("plots: a log axis cannot show %s=%s, %s=%s", d.XName, lists.FormatFloat(s.X[k]), d.ZName, lists.FormatFloat(s.Z[k]))
			}
		}
		l, err := addLine(p, i, s.X, s.Z)
		if err != nil {
			return nil, err
		}
		m, err := addPoints(p, i, s.X, s.Z, nil)
		if err != nil {
			return nil, err
		}
		if d.YName != "" {
			lg.add(shortLabel(d.YName)+" = "+s.Label, l, m)
		}
	}
	pad(&p.X, 0.02)
	pad(&p.Y, 0.03)
	w := 18 * vg.Centimeter
	if len(lg.items) > 0 {
		lw, _ := lg.size()
		w += lw + gap
	}
	return single("table", panel{p: p, legend: lg}, w, 13*vg.Centimeter), nil
}
