package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/tipping"
)

// EdgePoint is one entry of the tipping-edge table.
type EdgePoint struct {
	K      int     `json:"k"`
	Load   float64 `json:"load"`
	Found  bool    `json:"found"`  // false: no edge down to the floor
	Scaled float64 `json:"scaled"` // T*(1−λ)² (the floor when !Found)
}

// EdgeBracket is the finite-N edge measured by simulation (scaled
// units): where the fitted probability of tipping within Horizon refresh
// periods crosses ½ (Edge), with its 95% interval [Lo, Hi].
type EdgeBracket struct {
	K       int     `json:"k"`
	Load    float64 `json:"load"`
	N       int     `json:"servers"`
	Horizon int     `json:"horizon"`
	Edge    float64 `json:"edge"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
}

// EdgeData is the data of the tipping-edge phase diagram.
type EdgeData struct {
	Points []EdgePoint   `json:"points"`
	Sim    []EdgeBracket `json:"sim"`
}

// NewEdgeData builds the data from edge results (staleboard.Edge or
// EdgeTable) and simulated brackets; it rejects non-finite values.
func NewEdgeData(res []*staleboard.EdgeResult, brackets []EdgeBracket) (*EdgeData, error) {
	d := &EdgeData{Sim: brackets}
	for _, r := range res {
		if err := finite("edge", r.Scaled, r.Load); err != nil {
			return nil, err
		}
		d.Points = append(d.Points, EdgePoint{K: r.K, Load: r.Load, Found: r.Status == outcome.EdgeFound, Scaled: r.Scaled})
	}
	for _, b := range brackets {
		if err := finite("simulated edge", b.Edge, b.Lo, b.Hi); err != nil {
			return nil, err
		}
	}
	if len(d.Points) == 0 {
		return nil, fmt.Errorf("plots: no edge results")
	}
	return d, nil
}

// computeEdgeData computes the table k = 2…10 × λ ∈ {0.8, 0.9, 0.95} from
// the refresh-period map, and brackets the edge for k = 5, λ = 0.9 by
// simulation at N = 100 (and 800 unless quick). Quick brackets T* to 1e-3
// instead of 1e-4 (invisible at the figure's scale) and leaves out the
// slowest entries, λ = 0.95 with k > 6.
//
// Progress units: an edge of the map weighs 1 at λ ≤ 0.9 and 10 at
// λ = 0.95 (about 0.5 s and 5 s); a period of the simulated tipping curve
// N/10 (about 5 s at N = 100).
func computeEdgeData(quick bool, seed uint64, m *meter) (*EdgeData, error) {
	ks := []int{2, 3, 4, 5, 6, 7, 8, 9, 10}
	loads := []float64{0.8, 0.9, 0.95}
	s := &staleboard.EdgeSettings{}
	var models []staleboard.System
	for _, l := range loads {
		for _, k := range ks {
			// Quick leaves out the slowest entries, λ = 0.95 with k > 6.
			if !quick || l < 0.95 || k <= 6 {
				models = append(models, staleboard.System{K: k, Load: l})
			}
		}
	}
	if quick {
		s.RelTol = 1e-3
	}
	ns := []int{100, 800}
	if quick {
		ns = ns[:1]
	}
	weight := func(l float64) int {
		if l > 0.9 {
			return 10
		}
		return 1
	}
	edges := 0
	for _, md := range models {
		edges += weight(md.Load)
	}
	m.grow(edges)
	for _, n := range ns {
		m.grow(bracketPeriods * n / 10)
	}
	s.Progress = m.share(edges)
	res, err := staleboard.EdgeTable(models, s)
	if err != nil {
		return nil, err
	}
	var brs []EdgeBracket
	for _, n := range ns {
		b, err := simulateEdgeBracket(5, 0.9, n, quick, seed, func() { m.add(n / 10) })
		if err != nil {
			return nil, err
		}
		brs = append(brs, *b)
	}
	return NewEdgeData(res, brs)
}

// bracketPeriods is the number of periods simulateEdgeBracket simulates
// (eight, and two refinements).
const bracketPeriods = 10

// simulateEdgeBracket measures the finite-N edge by simulation: runs of N
// servers from the empty start, stopped at the tip, for 100 refresh
// periods at eight periods T(1−λ)² = 2.6 … 4.0 (quick: 12 runs each;
// otherwise 16) and two refinements, and the logistic fit of the fraction
// that tipped (package tipping). It calls step (if not nil) after each
// period.
func simulateEdgeBracket(k int, load float64, n int, quick bool, seed uint64, step func()) (*EdgeBracket, error) {
	reps := 16
	if quick {
		reps = 12
	}
	var grid []float64
	for i := range 8 {
		grid = append(grid, 2.6+0.2*float64(i))
	}
	set := &tipping.Settings{Scaled: grid, Refine: bracketPeriods - len(grid), Reps: reps, Horizon: 100, Seed: seed}
	if step != nil {
		set.Progress = func(int64, int64, string) { step() }
	}
	c, err := tipping.Simulate(&tipping.Model{Dispatchers: k, Load: load, Servers: n}, set)
	if err != nil {
		return nil, err
	}
	if c.Status != outcome.Converged {
		return nil, fmt.Errorf("plots: no simulated edge for k = %d, λ = %v, N = %d in T(1−λ)² ∈ [2.6, 4.0]", k, load, n)
	}
	return &EdgeBracket{K: k, Load: load, N: n, Horizon: 100, Edge: c.Edge, Lo: c.EdgeLo, Hi: c.EdgeHi}, nil
}

// EdgeFigure draws the phase diagram: T*(1−λ)² against k for each load
// (the refresh-period map, N → ∞), the rule of thumb 0.9(k − 2),
// simulated finite-N edges, and the regions.
func EdgeFigure(d *EdgeData) (*Figure, error) {
	p := newPlot("Tipping edge of the stale board with k dispatchers",
		"dispatchers k", "scaled tipping edge T*·(1 − λ)²  (service times)")
	p.X.Tick.Marker = linTicks{integer: true}
	lg := newLegend(1)
	kmin, kmax, err := addMapEdges(p, lg, d.Points)
	if err != nil {
		return nil, err
	}
	// The reference line 0.9(k − 2).
	ref, err := addLine(p, 0, []float64{2, kmax}, []float64{0, 0.9 * (kmax - 2)})
	if err != nil {
		return nil, err
	}
	ref.Width = vg.Points(1)
	lg.add("rule of thumb 0.9·(k − 2)", ref)
	if err := addSimEdges(p, lg, d.Sim); err != nil {
		return nil, err
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{
		XYs:    plotter.XYs{{X: 6.3, Y: 1.4}, {X: 2.9, Y: 5.6}, {X: kmin - 0.35, Y: 7.3}},
		Labels: []string{"herd only: the balanced state is gone", "bistable: balanced or herd", "k = 2: no edge, balanced only"},
	})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Color = color.Gray{Y: 70}
	}
	p.Add(labels)
	p.X.Min, p.X.Max = kmin-0.5, kmax+0.5
	p.Y.Min = 0
	pad(&p.Y, 0.02)
	p.Y.Min = 0
	return single("edge", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}

// addMapEdges adds the map's edges, a line with markers per load in
// increasing order, and returns the range of k.
func addMapEdges(p *plot.Plot, lg *legendBox, points []EdgePoint) (kmin, kmax float64, err error) {
	byLoad := map[float64][]EdgePoint{}
	for _, pt := range points {
		byLoad[pt.Load] = append(byLoad[pt.Load], pt)
	}
	var loads []float64
	for l := range byLoad {
		loads = append(loads, l)
	}
	sort.Float64s(loads)
	kmin, kmax = 2.0, 2.0
	for i, l := range loads {
		var xs, ys []float64
		for _, pt := range byLoad[l] {
			kmin, kmax = math.Min(kmin, float64(pt.K)), math.Max(kmax, float64(pt.K))
			if pt.Found {
				xs, ys = append(xs, float64(pt.K)), append(ys, pt.Scaled)
			}
		}
		if len(xs) == 0 {
			continue
		}
		line, err := addLine(p, i+1, xs, ys)
		if err != nil {
			return 0, 0, err
		}
		pts, err := addPoints(p, i+1, xs, ys, nil)
		if err != nil {
			return 0, 0, err
		}
		lg.add(fmt.Sprintf("refresh-period map, λ = %g", l), line, pts)
	}
	return kmin, kmax, nil
}

// addSimEdges adds the simulated finite-N edges with their intervals and
// the legend's notes.
func addSimEdges(p *plot.Plot, lg *legendBox, sim []EdgeBracket) error {
	for j, b := range sim {
		// Side by side at k, N = 100 left of N = 800, clear of the map's
		// markers.
		x := float64(b.K) + 0.2*(float64(j)-float64(len(sim)-1)/2)
		if len(sim) == 1 {
			x += 0.15
		}
		pts := newErrorPoints([]float64{x}, []float64{b.Edge}, nil)
		pts.YErrors[0].Low, pts.YErrors[0].High = b.Edge-b.Lo, b.Hi-b.Edge
		m, err := addErrorPoints(p, 4+j, pts)
		if err != nil {
			return err
		}
		m.Radius = vg.Points(3.5)
		lg.add(fmt.Sprintf("simulation, N = %s, λ = %g", thousands(b.N), b.Load), m.thumbs()...)
	}
	lg.note("map: the N → ∞ limit")
	if len(sim) > 0 {
		lg.note(fmt.Sprintf("simulation: P(tip within %d periods) = ½,", sim[0].Horizon))
		lg.note(fmt.Sprintf("  with its 95%% interval; set beside k = %d", sim[0].K))
	}
	return nil
}
