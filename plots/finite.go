package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/tipping"
)

// TipCurveData is the probability of tipping within the horizon against
// the scaled period for one N: the theory's curve and simulated points.
type TipCurveData struct {
	N int `json:"servers"`
	// Scaled and Theory are the theory curve.
	Scaled []float64 `json:"scaled"`
	Theory []float64 `json:"theory"`
	// SimScaled, SimFraction and SimLo/SimHi (95% Wilson interval) are the
	// simulated points; SimEdge and its interval the logistic fit's
	// crossing of ½ (NaN-free: absent when not simulated).
	SimScaled   []float64 `json:"sim_scaled"`
	SimFraction []float64 `json:"sim_fraction"`
	SimLo       []float64 `json:"sim_lo"`
	SimHi       []float64 `json:"sim_hi"`
	SimEdge     *float64  `json:"sim_edge"`
	SimEdgeLo   *float64  `json:"sim_edge_lo"`
	SimEdgeHi   *float64  `json:"sim_edge_hi"`
}

// FiniteEdgeData is the data of the finite-N edge figure.
type FiniteEdgeData struct {
	K       int     `json:"k"`
	Load    float64 `json:"load"`
	Horizon int     `json:"horizon"`
	// Infinite is the N = ∞ edge (scaled).
	Infinite float64        `json:"infinite"`
	Curves   []TipCurveData `json:"curves"`
	// EdgeN and Edge are the theory's finite-N edge against N.
	EdgeN []int     `json:"edge_servers"`
	Edge  []float64 `json:"edge"`
}

// publishedFinite are the published simulated finite-N edges of k = 5,
// λ = 0.9 (scaled), with the spread quoted for N = 800 and 1,600.
var publishedFinite = []struct {
	N      int
	Lo, Hi float64
}{{25, 3.5, 3.5}, {100, 3.2, 3.2}, {800, 2.9, 3.0}, {1600, 2.9, 3.0}}

// computeFiniteEdgeData computes, for k = 5, λ = 0.9 and a horizon of 100
// refresh periods: the theory's finite-N edge for N = 25 … 10,000 by the
// noisy map (the default finite-N theory of fluid edge --servers, seeded
// with seed), its tipping curves at N = 25, 100 and 800 (the periods each
// search computed, from the N = ∞ edge to past its ½ point), and simulated
// tipping curves at N = 25 and 100 (and 800 unless quick).
//
// Progress units (about a second each): the N = ∞ edge 1, a finite-N edge
// 10, a simulated period N/12.
func computeFiniteEdgeData(quick bool, seed uint64, m *meter) (*FiniteEdgeData, error) {
	const k, load, horizon = 5, 0.9, 100
	d := &FiniteEdgeData{K: k, Load: load, Horizon: horizon}
	ns := []int{25, 50, 100, 200, 400, 800, 1600, 3200, 10000}
	var models []staleboard.FiniteModel
	for _, n := range ns {
		models = append(models, staleboard.FiniteModel{System: staleboard.System{K: k, Load: load}, Servers: n, Horizon: horizon})
	}
	curveN := []int{25, 100, 800}
	if quick {
		curveN = curveN[:2]
	}
	m.grow(1 + 10*len(ns))
	for _, n := range curveN {
		m.grow(tipPeriods * max(n/12, 1))
	}
	set := &staleboard.FiniteSettings{Method: staleboard.NoisyMap, Seed: seed}
	set.Progress = m.share(1 + 10*len(ns))
	edges, err := staleboard.FiniteEdgeTable(models, set)
	if err != nil {
		return nil, err
	}
	d.Infinite = edges[0].Infinite.Scaled
	for _, r := range edges {
		if r.Status == outcome.EdgeFound {
			d.EdgeN, d.Edge = append(d.EdgeN, r.Servers), append(d.Edge, r.Scaled)
		}
	}
	for _, n := range curveN {
		c := TipCurveData{N: n}
		for _, r := range edges {
			if r.Servers != n {
				continue
			}
			for _, pt := range r.Curve {
				c.Scaled, c.Theory = append(c.Scaled, pt.Scaled), append(c.Theory, pt.Probability)
			}
		}
		if len(c.Scaled) < 2 {
			return nil, fmt.Errorf("plots: finite edge: the noisy map's curve at N = %d has %d points", n, len(c.Scaled))
		}
		d.Curves = append(d.Curves, c)
	}
	reps := 16
	if quick {
		reps = 10
	}
	for i := range d.Curves {
		if err := simulateTipCurve(d, i, reps, seed+uint64(1000*i), m); err != nil {
			return nil, err
		}
	}
	return d, d.check()
}

// simulateTipCurve simulates the tipping curve d.Curves[i] at eight
// periods from 0.95 to 1.30 times the N = ∞ edge and two refinements.
func simulateTipCurve(d *FiniteEdgeData, i, reps int, seed uint64, m *meter) error {
	c := &d.Curves[i]
	var grid []float64
	for j := range 8 {
		grid = append(grid, d.Infinite*(0.95+0.05*float64(j)))
	}
	n := c.N
	sc, err := tipping.Simulate(&tipping.Model{Dispatchers: d.K, Load: d.Load, Servers: c.N}, &tipping.Settings{Scaled: grid, Refine: tipPeriods - len(grid), Reps: reps,
		Horizon: d.Horizon, Seed: seed, Run: outcome.Run{Progress: func(int64, int64, string) { m.add(max(n/12, 1)) }}})
	if err != nil {
		return err
	}
	for _, p := range sc.Points {
		c.SimScaled = append(c.SimScaled, p.Scaled)
		c.SimFraction = append(c.SimFraction, p.Fraction)
		c.SimLo = append(c.SimLo, p.Lo)
		c.SimHi = append(c.SimHi, p.Hi)
	}
	if sc.Status == outcome.Converged {
		c.SimEdge, c.SimEdgeLo, c.SimEdgeHi = &sc.Edge, &sc.EdgeLo, &sc.EdgeHi
	}
	return nil
}

// tipPeriods is the number of periods of a simulated tipping curve (a grid
// of eight, and two refinements).
const tipPeriods = 10

// check rejects data the figure cannot draw.
func (d *FiniteEdgeData) check() error {
	if err := finite("finite edge", append([]float64{d.Infinite}, d.Edge...)...); err != nil {
		return err
	}
	if len(d.Curves) == 0 || len(d.Edge) != len(d.EdgeN) {
		return fmt.Errorf("plots: finite edge: no curves, or %d edges for %d N", len(d.Edge), len(d.EdgeN))
	}
	for _, c := range d.Curves {
		if len(c.Scaled) != len(c.Theory) || len(c.SimScaled) != len(c.SimFraction) || len(c.SimLo) != len(c.SimScaled) || len(c.SimHi) != len(c.SimScaled) {
			return fmt.Errorf("plots: finite edge: N = %d has ragged data", c.N)
		}
		if err := finite("finite edge curve", slices.Concat(c.Scaled, c.Theory, c.SimFraction, c.SimLo, c.SimHi)...); err != nil {
			return err
		}
	}
	return nil
}

// FiniteEdgeFigure draws two panels: the probability of tipping within the
// horizon against T(1−λ)² (theory curves, simulated points with 95%
// intervals, the N = ∞ edge marked), and the finite-N edge against N on a
// log axis (theory, simulated, and the published simulations).
func FiniteEdgeFigure(d *FiniteEdgeData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	left, ll, err := tipPanel(d)
	if err != nil {
		return nil, err
	}
	right, rl, err := edgeByNPanel(d)
	if err != nil {
		return nil, err
	}
	return sideBySide("finite-edge", 34*vg.Centimeter, 14*vg.Centimeter, panel{p: left, legend: ll, below: true}, panel{p: right, legend: rl, below: true}), nil
}

// tipPanel is FiniteEdgeFigure's left panel: the probability of tipping
// against the scaled period.
func tipPanel(d *FiniteEdgeData) (*plot.Plot, *legendBox, error) {
	left := newPlot(fmt.Sprintf("Stale board, k = %d dispatchers, λ = %g: tipping within %d periods", d.K, d.Load, d.Horizon),
		"scaled refresh period T·(1 − λ)²  (mean service times)", "probability of tipping")
	ll := newLegend(2)
	var simThumbs [][]plot.Thumbnailer
	for i, c := range d.Curves {
		l, err := addLine(left, i+1, c.Scaled, c.Theory)
		if err != nil {
			return nil, nil, err
		}
		ll.add(fmt.Sprintf("theory, N = %s", thousands(c.N)), l)
		pts := newErrorPoints(c.SimScaled, c.SimFraction, nil)
		for j := range pts.YErrors {
			pts.YErrors[j].Low, pts.YErrors[j].High = c.SimFraction[j]-c.SimLo[j], c.SimHi[j]-c.SimFraction[j]
		}
		m, err := addErrorPoints(left, i+1, pts)
		if err != nil {
			return nil, nil, err
		}
		simThumbs = append(simThumbs, m.thumbs())
	}
	inf, err := addLine(left, 0, []float64{d.Infinite, d.Infinite}, []float64{0, 1})
	if err != nil {
		return nil, nil, err
	}
	inf.Width = vg.Points(1)
	ll.add("N = ∞ edge", inf)
	for i, c := range d.Curves {
		ll.add(fmt.Sprintf("simulation, N = %s", thousands(c.N)), simThumbs[i]...)
	}
	ll.note("theory: the noisy map (Monte Carlo of the map with its finite-N noise); simulation: fraction of runs tipped, 95% interval")
	left.Y.Min, left.Y.Max = 0, 1
	pad(&left.X, 0.02)
	pad(&left.Y, 0.04)
	return left, ll, nil
}

// edgeByNPanel is FiniteEdgeFigure's right panel: the finite-N edge
// against N, theory, simulated and published.
func edgeByNPanel(d *FiniteEdgeData) (*plot.Plot, *legendBox, error) {
	right := newPlot(fmt.Sprintf("Finite-N edge: where P(tip within %d periods) = ½", d.Horizon), "servers N", "scaled edge T*(N)·(1 − λ)²  (mean service times)")
	logAxes(right, "x")
	rl := newLegend(2)
	var ns []float64
	for _, n := range d.EdgeN {
		ns = append(ns, float64(n))
	}
	tl, err := addLine(right, 1, ns, d.Edge)
	if err != nil {
		return nil, nil, err
	}
	tm, err := addPoints(right, 1, ns, d.Edge, nil)
	if err != nil {
		return nil, nil, err
	}
	rl.add("theory", tl, tm)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, n := range ns {
		lo, hi = math.Min(lo, n), math.Max(hi, n)
	}
	il, err := addLine(right, 0, []float64{lo / 1.5, hi * 1.5}, []float64{d.Infinite, d.Infinite})
	if err != nil {
		return nil, nil, err
	}
	il.Width = vg.Points(1)
	rl.add("N = ∞ edge", il)
	if err := addEdgeIntervals(right, rl, d); err != nil {
		return nil, nil, err
	}
	rl.note("simulated points set beside their N")
	right.X.Min, right.X.Max = lo/1.5, hi*1.5
	pad(&right.Y, 0.04)
	return right, rl, nil
}

// addEdgeIntervals adds the simulated edges with their 95% intervals, set
// right of their N, and the published simulations, left of theirs.
func addEdgeIntervals(p *plot.Plot, lg *legendBox, d *FiniteEdgeData) error {
	sim := &errorPoints{}
	for _, c := range d.Curves {
		if c.SimEdge != nil {
			sim.XYs = append(sim.XYs, plotter.XY{X: float64(c.N) * 1.1, Y: *c.SimEdge})
			sim.YErrors = append(sim.YErrors, struct{ Low, High float64 }{*c.SimEdge - *c.SimEdgeLo, *c.SimEdgeHi - *c.SimEdge})
		}
	}
	if len(sim.XYs) > 0 {
		m, err := addErrorPoints(p, 2, sim)
		if err != nil {
			return err
		}
		lg.add("simulation, 95% interval", m.thumbs()...)
	}
	pub := &errorPoints{}
	for _, pp := range publishedFinite {
		pub.XYs = append(pub.XYs, plotter.XY{X: float64(pp.N) / 1.1, Y: 0.5 * (pp.Lo + pp.Hi)})
		pub.YErrors = append(pub.YErrors, struct{ Low, High float64 }{0.5 * (pp.Hi - pp.Lo), 0.5 * (pp.Hi - pp.Lo)})
	}
	m, err := addErrorPoints(p, 3, pub)
	if err != nil {
		return err
	}
	lg.add("published simulations", m.thumbs()...)
	return nil
}
