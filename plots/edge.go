package plots

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/solver"
	"github.com/fluidlb/fluid/validate"
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
		d.Points = append(d.Points, EdgePoint{K: r.K, Load: r.Load, Found: r.Found, Scaled: r.Scaled})
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

// ComputeEdgeData computes the table k = 2…10 × λ ∈ {0.8, 0.9, 0.95} from
// the refresh-period map, and brackets the edge for k = 5, λ = 0.9 by
// simulation at N = 100 (and 800 unless quick). Quick brackets T* to 1e-3
// instead of 1e-4 (invisible at the figure's scale) and leaves out the
// slowest entries, λ = 0.95 with k > 6.
func ComputeEdgeData(quick bool, seed uint64) (*EdgeData, error) {
	ks := []int{2, 3, 4, 5, 6, 7, 8, 9, 10}
	loads := []float64{0.8, 0.9, 0.95}
	s := &staleboard.EdgeSettings{}
	var models []staleboard.Model
	for _, l := range loads {
		for _, k := range ks {
			// Quick leaves out the slowest entries, λ = 0.95 with k > 6.
			if !quick || l < 0.95 || k <= 6 {
				models = append(models, staleboard.Model{K: k, Load: l})
			}
		}
	}
	if quick {
		s.RelTol = 1e-3
	}
	res, err := staleboard.EdgeTable(models, s)
	if err != nil {
		return nil, err
	}
	ns := []int{100, 800}
	if quick {
		ns = ns[:1]
	}
	var brs []EdgeBracket
	for _, n := range ns {
		b, err := SimulateEdgeBracket(5, 0.9, n, quick, seed)
		if err != nil {
			return nil, err
		}
		brs = append(brs, *b)
	}
	return NewEdgeData(res, brs)
}

// SimulateEdgeBracket measures the finite-N edge by simulation: runs of N
// servers from the empty start, stopped at the tip, for 100 refresh
// periods at eight periods T(1−λ)² = 2.6 … 4.0 (quick: 12 runs each;
// otherwise 16), and the logistic fit of the fraction that tipped (see
// validate.SimulateTipCurve).
func SimulateEdgeBracket(k int, load float64, n int, quick bool, seed uint64) (*EdgeBracket, error) {
	reps := 16
	if quick {
		reps = 12
	}
	var grid []float64
	for i := range 8 {
		grid = append(grid, 2.6+0.2*float64(i))
	}
	c, err := validate.SimulateTipCurve(k, load, n, &validate.TipCurveSettings{Scaled: grid, Refine: 2, Reps: reps, Horizon: 100, Seed: seed})
	if err != nil {
		return nil, err
	}
	if c.Status != solver.Converged {
		return nil, fmt.Errorf("plots: no simulated edge for k = %d, λ = %v, N = %d in T(1−λ)² ∈ [2.6, 4.0]", k, load, n)
	}
	return &EdgeBracket{K: k, Load: load, N: n, Horizon: 100, Edge: c.Edge, Lo: c.EdgeLo, Hi: c.EdgeHi}, nil
}

// EdgeFigure draws the phase diagram: T*(1−λ)² against k for each load,
// the rule of thumb 0.9(k − 2), simulated brackets, and the regions.
func EdgeFigure(d *EdgeData) (*Figure, error) {
	p := newPlot("Tipping edge of the stale board with k dispatchers (refresh-period map)",
		"dispatchers k", "T*·(1 − λ)²  (refresh period × (1 − λ)², service times)")
	byLoad := map[float64][]EdgePoint{}
	for _, pt := range d.Points {
		byLoad[pt.Load] = append(byLoad[pt.Load], pt)
	}
	var loads []float64
	for l := range byLoad {
		loads = append(loads, l)
	}
	sort.Float64s(loads)
	kmax := 2.0
	for i, l := range loads {
		var xs, ys []float64
		for _, pt := range byLoad[l] {
			kmax = math.Max(kmax, float64(pt.K))
			if pt.Found {
				xs, ys = append(xs, float64(pt.K)), append(ys, pt.Scaled)
			}
		}
		if len(xs) == 0 {
			continue
		}
		if _, err := addLine(p, "", i+1, xs, ys); err != nil {
			return nil, err
		}
		if _, err := addPoints(p, fmt.Sprintf("map, λ = %g", l), i+1, xs, ys, make([]float64, len(xs))); err != nil {
			return nil, err
		}
	}
	// The reference line 0.9(k − 2).
	if _, err := addLine(p, "0.9·(k − 2)", 0, []float64{2, kmax}, []float64{0, 0.9 * (kmax - 2)}); err != nil {
		return nil, err
	}
	for j, b := range d.Sim {
		x := float64(b.K) + 0.15*float64(j+1)
		pts := newErrorPoints([]float64{x}, []float64{b.Edge}, nil)
		pts.YErrors[0].Low, pts.YErrors[0].High = b.Edge-b.Lo, b.Hi-b.Edge
		if err := addErrorPoints(p, fmt.Sprintf("simulated edge, N = %d, λ = %g (%d periods, 95%%)", b.N, b.Load, b.Horizon), 4+j, pts); err != nil {
			return nil, err
		}
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{
		XYs:    plotter.XYs{{X: 6.2, Y: 1.2}, {X: 2.6, Y: 5.2}, {X: 2.05, Y: 0.25}},
		Labels: []string{"herd only: the balanced state is gone", "bistable: balanced or herd", "k = 2: balanced only"},
	})
	if err != nil {
		return nil, err
	}
	p.Add(labels)
	p.X.Min, p.X.Max = 1.8, kmax+0.5
	p.Y.Min = 0
	p.Legend.Left = true
	return single("edge", p, 20*vg.Centimeter, 14*vg.Centimeter), nil
}
