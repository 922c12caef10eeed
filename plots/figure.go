package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is a finished figure: one or more plots drawn on one canvas.
type Figure struct {
	// Name is the figure's name in the catalogue (edge, bistability, …).
	Name          string
	Width, Height vg.Length
	// Plots are the panels, for tests to inspect (titles, axis labels).
	Plots []*plot.Plot
	draw  func(c draw.Canvas)
}

// panel is a plot with its legend, which is drawn outside the plot's data
// area: to its right, level with the top of the data area, or below the
// plot, under the axis label.
type panel struct {
	p      *plot.Plot
	legend *legendBox // nil: none
	below  bool
}

// gap separates a legend from its plot.
var gap = vg.Points(12)

// draw draws the panel in c.
func (pn panel) draw(c draw.Canvas) {
	if pn.legend == nil || len(pn.legend.items)+len(pn.legend.notes) == 0 {
		drawPlot(pn.p, c)
		return
	}
	w, h := pn.legend.size()
	if pn.below {
		dc := drawPlot(pn.p, draw.Crop(c, 0, 0, h+gap, 0))
		x := dc.Min.X + (dc.Max.X-dc.Min.X-w)/2
		pn.legend.draw(c, vg.Point{X: max(x, c.Min.X), Y: c.Min.Y + h})
		return
	}
	pc := draw.Crop(c, 0, -(w + gap), 0, 0)
	dc := drawPlot(pn.p, pc)
	pn.legend.draw(c, vg.Point{X: pc.Max.X + gap, Y: dc.Max.Y})
}

// drawPlot draws p in c and returns its data area. The label of a log
// axis is drawn here rather than by gonum/plot, which reserves room for it
// as if it stood at the arithmetic middle of the range (near the top or
// the right end of a log axis), shrinking the data area for nothing.
func drawPlot(p *plot.Plot, c draw.Canvas) draw.Canvas {
	_, logX := p.X.Scale.(plot.LogScale)
	_, logY := p.Y.Scale.(plot.LogScale)
	xl, yl := p.X.Label.Text, p.Y.Label.Text
	if (!logX || xl == "") && (!logY || yl == "") {
		p.Draw(c)
		return p.DataCanvas(c)
	}
	inner := c
	if logX && xl != "" {
		inner = draw.Crop(inner, 0, 0, p.X.Label.TextStyle.Height(xl)+p.X.Label.Padding, 0)
		p.X.Label.Text = ""
		defer func() { p.X.Label.Text = xl }()
	}
	if logY && yl != "" {
		sty := p.Y.Label.TextStyle
		inner = draw.Crop(inner, sty.FontExtents().Descent+sty.Height(yl)+p.Y.Label.Padding, 0, 0, 0)
		p.Y.Label.Text = ""
		defer func() { p.Y.Label.Text = yl }()
	}
	p.Draw(inner)
	dc := p.DataCanvas(inner)
	if logX && xl != "" {
		sty := p.X.Label.TextStyle
		c.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: c.Min.Y + sty.FontExtents().Descent}, xl)
	}
	if logY && yl != "" {
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		x := c.Min.X + p.Y.Label.TextStyle.Height(yl) - p.Y.Label.TextStyle.FontExtents().Descent
		c.FillText(sty, vg.Point{X: x, Y: (dc.Min.Y + dc.Max.Y) / 2}, yl)
	}
	return dc
}

// single draws one panel as a figure.
func single(name string, pn panel, w, h vg.Length) *Figure {
	return &Figure{Name: name, Width: w, Height: h, Plots: []*plot.Plot{pn.p}, draw: pn.draw}
}

// stacked draws plots one above the other, in equal heights.
func stacked(name string, w, h vg.Length, ps ...*plot.Plot) *Figure {
	f := &Figure{Name: name, Width: w, Height: h, Plots: ps}
	f.draw = func(c draw.Canvas) {
		rows := make([][]*plot.Plot, len(ps))
		for i, p := range ps {
			rows[i] = []*plot.Plot{p}
		}
		cs := plot.Align(rows, draw.Tiles{Rows: len(ps), Cols: 1, PadY: vg.Points(8)}, c)
		for i, p := range ps {
			drawPlot(p, cs[i][0])
		}
	}
	return f
}

// sideBySide draws panels in one row, in equal widths; legends below the
// plots share one band, so that the plots keep the same height.
func sideBySide(name string, w, h vg.Length, pns ...panel) *Figure {
	f := &Figure{Name: name, Width: w, Height: h}
	for _, pn := range pns {
		f.Plots = append(f.Plots, pn.p)
	}
	f.draw = func(c draw.Canvas) {
		band := vg.Length(0)
		for _, pn := range pns {
			if pn.legend != nil && pn.below {
				_, lh := pn.legend.size()
				band = max(band, lh+gap)
			}
		}
		pad := vg.Points(18)
		tw := (c.Max.X - c.Min.X - pad*vg.Length(len(pns)-1)) / vg.Length(len(pns))
		for i, pn := range pns {
			x0 := c.Min.X + vg.Length(i)*(tw+pad)
			tile := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x0 + tw, Y: c.Max.Y}}}
			if pn.below {
				dc := drawPlot(pn.p, draw.Crop(tile, 0, 0, band, 0))
				if pn.legend != nil {
					lw, _ := pn.legend.size()
					x := dc.Min.X + (dc.Max.X-dc.Min.X-lw)/2
					pn.legend.draw(c, vg.Point{X: max(x, tile.Min.X), Y: tile.Min.Y + band - gap})
				}
				continue
			}
			pn.draw(tile)
		}
	}
	return f
}

// WriteTo renders the figure in format ("png", "svg" or "pdf"). A panic
// of the drawing library (it panics on data it cannot draw) comes back as
// an error.
func (f *Figure) WriteTo(w io.Writer, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing %s: %v", f.Name, r)
		}
	}()
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch strings.ToLower(format) {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(110))}
	case "svg":
		c = vgsvg.New(f.Width, f.Height)
	case "pdf":
		c = vgpdf.New(f.Width, f.Height)
	default:
		return fmt.Errorf("plots: unknown format %q (want png, svg or pdf)", format)
	}
	dc := draw.New(c)
	// A white page (transparent PNGs show black in some viewers), and a
	// margin so that nothing touches the edge.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	f.draw(draw.Crop(dc, vg.Points(4), -vg.Points(6), vg.Points(4), -vg.Points(4)))
	_, err = c.WriteTo(w)
	return err
}

// Save renders the figure to path; the format comes from the extension.
func (f *Figure) Save(path string) error {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	switch strings.ToLower(format) {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("plots: %s: the file name must end in .png, .svg or .pdf", path)
	}
	// Rendered in memory and renamed into place: an interrupted run
	// leaves the old file or the new one, never a truncated image.
	var buf bytes.Buffer
	if err := f.WriteTo(&buf, format); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}

// Series styles: colours from Okabe and Ito's colour-blind-safe set, each
// paired with its own dash pattern and marker so that the series stay
// apart in greyscale.
var (
	palette = []color.Color{
		color.RGBA{0, 0, 0, 255},       // black
		color.RGBA{0, 114, 178, 255},   // blue
		color.RGBA{213, 94, 0, 255},    // vermillion
		color.RGBA{0, 158, 115, 255},   // bluish green
		color.RGBA{204, 121, 167, 255}, // reddish purple
		color.RGBA{230, 159, 0, 255},   // orange
	}
	dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}, {vg.Points(1), vg.Points(3)}, {vg.Points(10), vg.Points(4)}}
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, diamondGlyph{}, draw.PlusGlyph{}}
)

func styleLine(l *plotter.Line, i int) {
	l.Color = palette[i%len(palette)]
	l.Dashes = dashes[i%len(dashes)]
	l.Width = vg.Points(1.5)
}

func styleScatter(s *plotter.Scatter, i int) {
	s.Color = palette[i%len(palette)]
	s.Shape = glyphs[i%len(glyphs)]
	s.Radius = vg.Points(3)
}

// newPlot returns a plot with title and axis labels set, grid lines and
// ticks at round numbers (linTicks).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{}, linTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// logAxes puts the named axes of p ("x", "y" or "xy") on log scales
// labelled by logTicks.
func logAxes(p *plot.Plot, axes string) {
	if strings.Contains(axes, "x") {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if strings.Contains(axes, "y") {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
}

// pad widens an axis's range by frac of its span at each end (on a log
// axis, of its span in decades), so that markers and error bars at the
// ends of the data clear the axes. Call it after adding the data.
func pad(a *plot.Axis, frac float64) {
	if _, ok := a.Scale.(plot.LogScale); ok && a.Min > 0 {
		d := math.Max(math.Log10(a.Max/a.Min), 0.3)
		f := math.Pow(10, frac*d)
		a.Min, a.Max = a.Min/f, a.Max*f
		return
	}
	r := a.Max - a.Min
	if r == 0 {
		r = math.Max(math.Abs(a.Max), 1)
	}
	a.Min, a.Max = a.Min-frac*r, a.Max+frac*r
}

// finite checks that every value is finite; what names the data.
func finite(what string, xs ...float64) error {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("plots: %s: non-finite value %v", what, x)
		}
	}
	return nil
}

// errorPoints are points with symmetric vertical error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// newErrorPoints returns the points with error bars ±ci (none when ci is
// nil).
func newErrorPoints(x, y, ci []float64) *errorPoints {
	e := &errorPoints{XYs: make(plotter.XYs, len(x)), YErrors: make(plotter.YErrors, len(x))}
	for i := range x {
		e.XYs[i].X, e.XYs[i].Y = x[i], y[i]
		if ci != nil {
			e.YErrors[i].Low, e.YErrors[i].High = ci[i], ci[i]
		}
	}
	return e
}

// marks is a series of simulated points drawn as markers with error bars,
// and its legend thumbnails (the error bar and the marker, as drawn).
type marks struct {
	*plotter.Scatter
	bars *plotter.YErrorBars
}

// thumbs are the legend thumbnails of the points: an error bar when they
// have any, and the marker.
func (m *marks) thumbs() []plot.Thumbnailer {
	var ts []plot.Thumbnailer
	if m.bars != nil {
		ts = append(ts, errorBarThumb{m.bars.LineStyle})
	}
	return append(ts, m.Scatter)
}

// addPoints adds simulated points with 95% error bars in style i.
func addPoints(p *plot.Plot, i int, x, y, ci []float64) (*marks, error) {
	return addErrorPoints(p, i, newErrorPoints(x, y, ci))
}

// addErrorPoints adds points with their own (possibly asymmetric) error
// bars in style i; points without an error bar get none.
func addErrorPoints(p *plot.Plot, i int, pts *errorPoints) (*marks, error) {
	if _, log := p.Y.Scale.(plot.LogScale); log {
		// An interval reaching zero cannot be drawn on a log axis: cut its
		// lower arm at a tenth of the value.
		for k := range pts.YErrors {
			pts.YErrors[k].Low = math.Min(pts.YErrors[k].Low, 0.9*pts.XYs[k].Y)
		}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	styleScatter(s, i)
	m := &marks{Scatter: s}
	any := false
	for _, e := range pts.YErrors {
		any = any || e.Low > 0 || e.High > 0
	}
	if any {
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = palette[i%len(palette)]
		bars.CapWidth = vg.Points(5)
		p.Add(bars)
		m.bars = bars
	}
	p.Add(s)
	return m, nil
}

// addLine adds a curve in style i.
func addLine(p *plot.Plot, i int, x, y []float64) (*plotter.Line, error) {
	xy := make(plotter.XYs, len(x))
	for k := range x {
		xy[k].X, xy[k].Y = x[k], y[k]
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	styleLine(l, i)
	p.Add(l)
	return l, nil
}

// errorBarThumb is the legend thumbnail of an error bar: a vertical bar
// with caps through the middle.
type errorBarThumb struct{ sty draw.LineStyle }

func (e errorBarThumb) Thumbnail(c *draw.Canvas) {
	x, y := c.Center().X, c.Center().Y
	h := (c.Max.Y - c.Min.Y) * 0.4
	cw := vg.Points(2.5)
	c.StrokeLine2(e.sty, x, y-h, x, y+h)
	c.StrokeLine2(e.sty, x-cw, y-h, x+cw, y-h)
	c.StrokeLine2(e.sty, x-cw, y+h, x+cw, y+h)
}

// diamondGlyph is a diamond marker, filled or open.
type diamondGlyph struct{ filled bool }

func (g diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	if g.filled {
		c.SetColor(sty.Color)
		c.Fill(path)
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.5)})
	c.Stroke(path)
}
