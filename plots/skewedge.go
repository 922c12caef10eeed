package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
)

// SkewEdgePoint is the N = ∞ tipping edge of the stale board with unequal
// dispatcher shares: one dispatcher takes the share Largest of the jobs,
// the others split the rest equally (Alpha, the shares).
type SkewEdgePoint struct {
	Largest float64   `json:"largest"`
	Alpha   []float64 `json:"alpha"`
	// Found is false when the balanced state stays stable down to the
	// floor; Scaled is T*(1−λ)² (the floor then) and Period T*.
	Found  bool    `json:"found"`
	Scaled float64 `json:"scaled"`
	Period float64 `json:"period"`
}

// SkewEdgeData is the data of the figure "does skew move the edge?": the
// edge against the largest share at k dispatchers, load λ
// (staleboard.Edge with System.Alpha; equal shares by the equal-share
// map).
type SkewEdgeData struct {
	K      int             `json:"k"`
	Load   float64         `json:"load"`
	Floor  float64         `json:"floor"`
	Points []SkewEdgePoint `json:"points"`
}

func (d *SkewEdgeData) check() error {
	if len(d.Points) == 0 {
		return fmt.Errorf("plots: skew-edge: no points")
	}
	if err := finite("skew-edge", d.Load, d.Floor); err != nil {
		return err
	}
	for _, p := range d.Points {
		if err := finite("skew-edge", append([]float64{p.Largest, p.Scaled, p.Period}, p.Alpha...)...); err != nil {
			return err
		}
		if len(p.Alpha) != d.K {
			return fmt.Errorf("plots: skew-edge: %d shares for k = %d", len(p.Alpha), d.K)
		}
		var sum, top float64
		for _, a := range p.Alpha {
			sum, top = sum+a, math.Max(top, a)
		}
		if math.Abs(sum-1) > 1e-9 || math.Abs(top-p.Largest) > 1e-12 {
			return fmt.Errorf("plots: skew-edge: shares %v sum to %v with largest %v, want 1 and %v", p.Alpha, sum, top, p.Largest)
		}
		if !(p.Scaled > 0) {
			return fmt.Errorf("plots: skew-edge: edge %v at largest share %v", p.Scaled, p.Largest)
		}
	}
	return nil
}

// skewShares are the shares of k dispatchers when the first takes a and
// the others split 1 − a.
func skewShares(k int, a float64) []float64 {
	alpha := make([]float64, k)
	alpha[0] = a
	for r := 1; r < k; r++ {
		alpha[r] = (1 - a) / float64(k-1)
	}
	return alpha
}

// skewLargest are the largest shares of the figure at k = 3 (equal shares
// first). Quick: equal shares and 0.4.
func skewLargest(quick bool) []float64 {
	if quick {
		return []float64{1.0 / 3, 0.4}
	}
	return []float64{1.0 / 3, 0.4, 0.5, 0.6, 0.7}
}

// computeSkewEdgeData computes the edges at k = 3, λ = 0.9 as fluid edge
// does (default settings, so that each point is fluid edge's): equal
// shares by the equal-share map's root path, unequal ones by the share
// evolution and the search (every dispatcher's pass border is a kink of
// the map). Cost, CPU time on one core: about a minute and a half (100 s on a
// loaded machine), the search of each skewed entry taking 600–3,000 map
// evaluations; quick (equal shares and α₁ = 0.4), about ten seconds. k = 3 is the smallest k with an edge (k = 2 has none), and the
// share evolution carries 2^k pending sets.
//
// Progress units: an edge weighs 1.
func computeSkewEdgeData(quick bool, m *meter) (*SkewEdgeData, error) {
	const k, load = 3, 0.9
	var systems []staleboard.System
	largest := skewLargest(quick)
	for _, a := range largest {
		sys := staleboard.System{K: k, Load: load}
		if math.Abs(a-1.0/k) > 1e-12 {
			copy(sys.Alpha[:], skewShares(k, a))
		}
		systems = append(systems, sys)
	}
	m.grow(len(systems))
	res, err := staleboard.EdgeTable(systems, &staleboard.EdgeSettings{Run: outcome.Run{Progress: m.share(len(systems))}})
	if err != nil {
		return nil, err
	}
	return NewSkewEdgeData(res)
}

// NewSkewEdgeData builds the data from edge results of k dispatchers
// (System.Alpha their shares; zero: equal); it rejects an entry that did
// not finish and non-finite values.
func NewSkewEdgeData(res []*staleboard.EdgeResult) (*SkewEdgeData, error) {
	if len(res) == 0 {
		return nil, fmt.Errorf("plots: skew-edge: no edge results")
	}
	d := &SkewEdgeData{K: res[0].K, Load: res[0].Load, Floor: staleboard.DefaultFloor}
	for _, r := range res {
		if r.Status != outcome.EdgeFound && r.Status != outcome.NoEdge {
			return nil, fmt.Errorf("plots: skew-edge: shares %v: %v", r.Alpha, r.Status)
		}
		alpha := append([]float64(nil), r.Alpha[:r.K]...)
		if alpha[0] == 0 {
			alpha = skewShares(r.K, 1/float64(r.K))
		}
		top := 0.0
		for _, a := range alpha {
			top = math.Max(top, a)
		}
		p := SkewEdgePoint{Largest: top, Alpha: alpha, Found: r.Status == outcome.EdgeFound, Scaled: r.Scaled, Period: r.Period}
		if !p.Found {
			d.Floor = r.Scaled
		}
		d.Points = append(d.Points, p)
	}
	return d, d.check()
}

// SkewEdgeFigure draws the edge T*(1−λ)² against the largest share, the
// equal-share edge as a reference line.
func SkewEdgeFigure(d *SkewEdgeData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("Does skew move the edge? k = %d dispatchers, λ = %g", d.K, d.Load),
		"largest dispatcher share α₁ (the others split the rest equally)", "scaled tipping edge T*·(1 − λ)²  (mean service times)")
	lg := newLegend(1)
	var xs, ys, nx, ny []float64
	equal := math.NaN()
	for _, pt := range d.Points {
		if math.Abs(pt.Largest-1/float64(d.K)) < 1e-9 {
			equal = pt.Scaled
		}
		if pt.Found {
			xs, ys = append(xs, pt.Largest), append(ys, pt.Scaled)
		} else {
			nx, ny = append(nx, pt.Largest), append(ny, d.Floor)
		}
	}
	if len(xs) > 0 {
		l, err := addLine(p, 1, xs, ys)
		if err != nil {
			return nil, err
		}
		pts, err := addPoints(p, 1, xs, ys, nil)
		if err != nil {
			return nil, err
		}
		lg.add("refresh-period map (share evolution)", l, pts)
	}
	if len(nx) > 0 {
		mk, err := addPoints(p, 3, nx, ny, nil)
		if err != nil {
			return nil, err
		}
		mk.Shape = diamondGlyph{}
		mk.Radius = vg.Points(4)
		lg.add(fmt.Sprintf("no edge: balanced down to the floor %g", d.Floor), mk.Scatter)
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: nx[0], Y: d.Floor + 0.05}}, Labels: []string{"no edge"}})
		if err != nil {
			return nil, err
		}
		labels.TextStyle[0].Color = color.Gray{Y: 70}
		labels.TextStyle[0].XAlign = draw.XCenter
		p.Add(labels)
	}
	if !math.IsNaN(equal) {
		lo, hi := 1/float64(d.K), 1/float64(d.K)
		for _, pt := range d.Points {
			hi = math.Max(hi, pt.Largest)
		}
		ref, err := addLine(p, 0, []float64{lo, hi}, []float64{equal, equal})
		if err != nil {
			return nil, err
		}
		ref.Width = vg.Points(1)
		lg.add(fmt.Sprintf("equal shares: %.3g", equal), ref)
	}
	lg.note("map: the N → ∞ limit")
	lg.note("below the curve: the balanced state is gone (herd)")
	p.Y.Min = 0
	pad(&p.X, 0.04)
	pad(&p.Y, 0.03)
	p.Y.Min = 0
	return single("skew-edge", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}
