package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
)

// SpreadEdgePoint is the N = ∞ tipping edge of the stale board at one
// job-size spread under one discipline.
type SpreadEdgePoint struct {
	// Discipline is "fcfs" or "ps"; SCV the squared coefficient of
	// variation of the job sizes (1: exponential, otherwise the
	// balanced-means H2 of the simulator).
	Discipline string  `json:"discipline"`
	SCV        float64 `json:"scv"`
	// Found is false when the balanced state stays stable down to the
	// floor (no edge); Scaled is T*(1−λ)² (the floor then) and Period T*.
	Found  bool    `json:"found"`
	Scaled float64 `json:"scaled"`
	Period float64 `json:"period"`
	// Radius is the spectral radius of the map's Jacobian at the last
	// stable balanced fixed point (at T*, or at the floor).
	Radius float64 `json:"radius"`
}

// PSEdgeData is the data of the figure "does processor sharing close the
// trap door?": the edge against the size spread for FCFS and PS servers
// at k dispatchers, load λ (staleboard.Edge with Sizes and Discipline).
type PSEdgeData struct {
	K      int               `json:"k"`
	Load   float64           `json:"load"`
	Floor  float64           `json:"floor"` // lowest T(1−λ)² searched
	Points []SpreadEdgePoint `json:"points"`
}

func (d *PSEdgeData) check() error {
	if len(d.Points) == 0 {
		return fmt.Errorf("plots: ps-edge: no points")
	}
	if err := finite("ps-edge", d.Load, d.Floor); err != nil {
		return err
	}
	for _, p := range d.Points {
		if err := finite("ps-edge", p.SCV, p.Scaled, p.Period, p.Radius); err != nil {
			return err
		}
		if p.Discipline != "fcfs" && p.Discipline != "ps" {
			return fmt.Errorf("plots: ps-edge: discipline %q, want fcfs or ps", p.Discipline)
		}
		if !(p.SCV >= 1) || !(p.Scaled > 0) {
			return fmt.Errorf("plots: ps-edge: SCV %v, edge %v: want SCV ≥ 1 and a positive edge", p.SCV, p.Scaled)
		}
		if !p.Found && math.Abs(p.Scaled-d.Floor) > 1e-9*d.Floor {
			return fmt.Errorf("plots: ps-edge: no edge at SCV %v (%s) reported at %v, not at the floor %v", p.SCV, p.Discipline, p.Scaled, d.Floor)
		}
	}
	return nil
}

// psEdgeSystems are the entries of the figure: exponential sizes (SCV 1,
// the same map for both disciplines: PS and FCFS serve the same counts),
// then H2 of each SCV under FCFS and PS. FCFS stops at SCV 4: its edge
// grows with the spread (11.3 at SCV 4) and the search's cost with T*.
// Quick: FCFS at SCV 2, PS at 10 (the cheapest of each, an edge and
// none).
func psEdgeSystems(k int, load float64, quick bool) ([]staleboard.System, []SpreadEdgePoint) {
	fcfs, ps := []float64{2, 4}, []float64{2, 4, 6, 10}
	if quick {
		fcfs, ps = []float64{2}, []float64{10}
	}
	systems := []staleboard.System{{K: k, Load: load}}
	points := []SpreadEdgePoint{{Discipline: "fcfs", SCV: 1}}
	for _, c := range []struct {
		disc farm.Discipline
		name string
		scvs []float64
	}{{farm.FCFS, "fcfs", fcfs}, {farm.PS, "ps", ps}} {
		for _, scv := range c.scvs {
			systems = append(systems, staleboard.System{K: k, Load: load, Sizes: farm.Sizes{Kind: farm.H2, SCV: scv}, Discipline: c.disc})
			points = append(points, SpreadEdgePoint{Discipline: c.name, SCV: scv})
		}
	}
	return systems, points
}

// computePSEdgeData computes the edges at k = 5, λ = 0.9 by the root path
// (staleboard.EdgeTable, all cores; quick: T* to 1e-3 instead of 1e-4,
// invisible at the figure's scale). Cost, CPU time on one core: about a
// minute and a half in all (110 s on a loaded machine; FCFS at SCV 4,
// whose edge lies at T = 1,130, takes a third of it, PS at SCV 2 a
// fifth); quick, about 12 s.
//
// Progress units: an edge weighs 1.
func computePSEdgeData(quick bool, m *meter) (*PSEdgeData, error) {
	const k, load = 5, 0.9
	systems, points := psEdgeSystems(k, load, quick)
	s := &staleboard.EdgeSettings{}
	if quick {
		s.RelTol = 1e-3
	}
	m.grow(len(systems))
	s.Progress = m.share(len(systems))
	res, err := staleboard.EdgeTable(systems, s)
	if err != nil {
		return nil, err
	}
	return NewPSEdgeData(res, points)
}

// NewPSEdgeData builds the data from the edge results of the systems the
// points name (in the same order); it rejects an entry that did not finish
// and non-finite values.
func NewPSEdgeData(res []*staleboard.EdgeResult, points []SpreadEdgePoint) (*PSEdgeData, error) {
	if len(res) == 0 || len(res) != len(points) {
		return nil, fmt.Errorf("plots: ps-edge: %d results for %d points", len(res), len(points))
	}
	d := &PSEdgeData{K: res[0].K, Load: res[0].Load}
	for i, r := range res {
		if r.Status != outcome.EdgeFound && r.Status != outcome.NoEdge {
			return nil, fmt.Errorf("plots: ps-edge: SCV %v, %s: %v", points[i].SCV, points[i].Discipline, r.Status)
		}
		p := points[i]
		p.Found, p.Scaled, p.Period, p.Radius = r.Status == outcome.EdgeFound, r.Scaled, r.Period, r.Radius
		if !p.Found {
			d.Floor = r.Scaled
		}
		d.Points = append(d.Points, p)
	}
	if d.Floor == 0 {
		d.Floor = staleboard.DefaultFloor // no entry reached it
	}
	return d, d.check()
}

// PSEdgeFigure draws the edge T*(1−λ)² against the job-size SCV (log x)
// for FCFS and PS servers, marking where there is no edge (the balanced
// state stable down to the floor).
func PSEdgeFigure(d *PSEdgeData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("Does processor sharing close the trap door? k = %d dispatchers, λ = %g", d.K, d.Load),
		"job-size SCV (1: exponential; H2 above)", "scaled tipping edge T*·(1 − λ)²  (mean service times)")
	logAxes(p, "x")
	lg := newLegend(1)
	var exp *SpreadEdgePoint
	for i := range d.Points {
		if d.Points[i].SCV == 1 {
			exp = &d.Points[i]
		}
	}
	top := d.Floor
	var none []SpreadEdgePoint
	for i, disc := range []struct{ name, label string }{{"fcfs", "FCFS servers"}, {"ps", "processor-sharing servers"}} {
		var xs, ys []float64
		if exp != nil && exp.Found {
			xs, ys = append(xs, 1), append(ys, exp.Scaled)
		}
		for _, pt := range d.Points {
			if pt.Discipline != disc.name || pt.SCV == 1 {
				continue
			}
			top = math.Max(top, pt.Scaled)
			if !pt.Found {
				none = append(none, pt)
				continue
			}
			xs, ys = append(xs, pt.SCV), append(ys, pt.Scaled)
		}
		if len(xs) == 0 {
			continue
		}
		l, err := addLine(p, i+1, xs, ys)
		if err != nil {
			return nil, err
		}
		pts, err := addPoints(p, i+1, xs, ys, nil)
		if err != nil {
			return nil, err
		}
		lg.add("refresh-period map, "+disc.label, l, pts)
	}
	if len(none) > 0 {
		var xs, ys []float64
		for _, pt := range none {
			xs, ys = append(xs, pt.SCV), append(ys, d.Floor)
		}
		mk, err := addPoints(p, 3, xs, ys, nil)
		if err != nil {
			return nil, err
		}
		mk.Shape = diamondGlyph{}
		mk.Radius = vg.Points(4)
		lg.add(fmt.Sprintf("no edge: balanced down to the floor %g", d.Floor), mk.Scatter)
		// Centred above the diamonds (a log axis: their geometric mean).
		x := math.Sqrt(none[0].SCV * none[len(none)-1].SCV)
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: d.Floor + 0.05*top}}, Labels: []string{"no edge"}})
		if err != nil {
			return nil, err
		}
		labels.TextStyle[0].Color = color.Gray{Y: 70}
		labels.TextStyle[0].XAlign = draw.XCenter
		p.Add(labels)
	}
	if exp != nil {
		lg.note("SCV 1: exponential sizes, one map for both")
	}
	lg.note("below a curve: the balanced state is gone (herd)")
	lg.note("map: the N → ∞ limit")
	p.Y.Min = 0
	pad(&p.X, 0.03)
	pad(&p.Y, 0.03)
	p.Y.Min = 0
	return single("ps-edge", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}
