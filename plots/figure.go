package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
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

// single wraps one plot as a figure.
func single(name string, p *plot.Plot, w, h vg.Length) *Figure {
	return &Figure{Name: name, Width: w, Height: h, Plots: []*plot.Plot{p}, draw: p.Draw}
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
			p.Draw(cs[i][0])
		}
	}
	return f
}

// sideBySide draws plots in one row, in equal widths.
func sideBySide(name string, w, h vg.Length, ps ...*plot.Plot) *Figure {
	f := &Figure{Name: name, Width: w, Height: h, Plots: ps}
	f.draw = func(c draw.Canvas) {
		cs := plot.Align([][]*plot.Plot{ps}, draw.Tiles{Rows: 1, Cols: len(ps), PadX: vg.Points(12)}, c)
		for i, p := range ps {
			p.Draw(cs[0][i])
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
	f.draw(draw.New(c))
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
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := f.WriteTo(out, format); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}}
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

// newPlot returns a plot with title and axis labels set.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
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

// addPoints adds simulated points with 95% error bars in style i.
func addPoints(p *plot.Plot, name string, i int, x, y, ci []float64) (*plotter.Scatter, error) {
	pts := newErrorPoints(x, y, ci)
	return addScatter(p, name, i, pts)
}

// addErrorPoints adds points with their own (possibly asymmetric) error
// bars in style i.
func addErrorPoints(p *plot.Plot, name string, i int, pts *errorPoints) error {
	_, err := addScatter(p, name, i, pts)
	return err
}

func addScatter(p *plot.Plot, name string, i int, pts *errorPoints) (*plotter.Scatter, error) {
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
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	bars.Color = palette[i%len(palette)]
	p.Add(s, bars)
	if name != "" {
		p.Legend.Add(name, s)
	}
	return s, nil
}

// addLine adds a curve in style i.
func addLine(p *plot.Plot, name string, i int, x, y []float64) (*plotter.Line, error) {
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
	if name != "" {
		p.Legend.Add(name, l)
	}
	return l, nil
}
