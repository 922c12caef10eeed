package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// BlockingMapData is exact JIQ blocking (basic JIQ, R = 2) at N servers
// over a grid of α₁ (columns) and λ (rows).
type BlockingMapData struct {
	N        int         `json:"servers"`
	Alpha1   []float64   `json:"alpha1"`
	Load     []float64   `json:"load"`
	Blocking [][]float64 `json:"blocking"` // [row λ][column α₁]
}

// NewBlockingMapData checks the grid (finite, blocking in [0, 1]).
func NewBlockingMapData(n int, alpha1, load []float64, b [][]float64) (*BlockingMapData, error) {
	if len(b) != len(load) {
		return nil, fmt.Errorf("plots: blocking map: %d rows for %d loads", len(b), len(load))
	}
	for _, row := range b {
		if len(row) != len(alpha1) {
			return nil, fmt.Errorf("plots: blocking map: a row of %d for %d values of α₁", len(row), len(alpha1))
		}
		if err := finite("blocking map", row...); err != nil {
			return nil, err
		}
	}
	if err := finite("blocking map axes", append(append([]float64{}, alpha1...), load...)...); err != nil {
		return nil, err
	}
	return &BlockingMapData{N: n, Alpha1: alpha1, Load: load, Blocking: b}, nil
}

// computeBlockingMapData solves the closed Jackson network (package jackson) at
// N = 100,000 (quick: 10,000) on a grid α₁ ∈ [0.5, 0.99], λ ∈ [0.05, 2.5].
//
// Progress units: a row of the grid.
func computeBlockingMapData(quick bool, m *meter) (*BlockingMapData, error) {
	n, na, nl := 100_000, 50, 50
	if quick {
		n, na, nl = 10_000, 25, 25
	}
	alpha1 := make([]float64, na)
	for i := range alpha1 {
		alpha1[i] = 0.5 + 0.49*float64(i)/float64(na-1)
	}
	load := make([]float64, nl)
	for i := range load {
		load[i] = 0.05 + 2.45*float64(i)/float64(nl-1)
	}
	b := make([][]float64, nl)
	m.grow(nl)
	err := parallel.For(nl, 0, nil, func(r int) error {
		defer m.add(1)
		b[r] = make([]float64, na)
		for c, a := range alpha1 {
			res, err := jackson.Solve(&jackson.JIQ{Servers: n, Load: load[r], Alpha: []float64{a, 1 - a}})
			if err != nil {
				return err
			}
			b[r][c] = res.Blocking
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return NewBlockingMapData(n, alpha1, load, b)
}

// BlockingMapFigure draws the heat map (through HeatMapFigure's path,
// colours spanning blocking 0 to 1) with the crossover curve 2α₂ = 1/λ of
// the N → ∞ limit B = max{1 − 2α₂, 1 − 1/λ} (Theorem 1): above the curve
// the overload sets the blocking, below it the arrival shares.
func BlockingMapFigure(d *BlockingMapData) (*Figure, error) {
	hm := &HeatMapData{XName: "alpha.1", YName: "load", ZName: "blocking", X: d.Alpha1, Y: d.Load, Z: d.Blocking}
	h, err := newHeatMap(hm, fmt.Sprintf("Blocking of JIQ with R = 2 dispatchers, exact at N = %s servers", thousands(d.N)), 0, 1)
	if err != nil {
		return nil, err
	}
	p := h.p
	p.X.Label.Text = "arrival share of the busier dispatcher α₁"
	p.X.Tick.Marker = linTicks{}
	p.Y.Tick.Marker = linTicks{}
	// Crossover 2α₂ = 1/λ, i.e. α₁ = 1 − 1/(2λ), for λ ≥ 1.
	var xs, ys []float64
	for l := 1.0; l <= d.Load[len(d.Load)-1]+1e-9; l += 0.01 {
		xs, ys = append(xs, 1-1/(2*l)), append(ys, l)
	}
	// White dashes on a black line: visible on every colour of the map.
	under, err := addLine(p, 0, xs, ys)
	if err != nil {
		return nil, err
	}
	under.Width = vg.Points(2.6)
	line, err := addLine(p, 0, xs, ys)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width, line.Dashes = color.White, vg.Points(1.4), []vg.Length{vg.Points(5), vg.Points(3)}
	h.legend = newLegend(1)
	h.legend.add("crossover 2α₂ = 1/λ of the N → ∞ limit: blocking 1 − 1/λ above it, 1 − 2α₂ below", under, line)
	h.bar.Y.Label.Text = "blocking probability"
	return h.figure("jiq-blocking"), nil
}

// TrajectoryData is a JIQ fluid trajectory with simulated ones (as in
// Figure 3 of "Load Balancing in Large-Scale Systems with Multiple
// Dispatchers"): blocking scenario, R = 2, from the empty system.
type TrajectoryData struct {
	Load  float64   `json:"load"`
	Alpha []float64 `json:"alpha"`
	N     int       `json:"servers"`
	Reps  int       `json:"reps"`
	// Fluid: times and x₀ (busy), x₁, x₂ (tokens per server).
	FluidT []float64    `json:"fluid_t"`
	Fluid  [3][]float64 `json:"fluid"`
	// Sim: times, means and the spread (one standard deviation of a
	// single replication) of x₀, x₁, x₂.
	SimT   []float64    `json:"sim_t"`
	Sim    [3][]float64 `json:"sim"`
	Spread [3][]float64 `json:"spread"`
}

// computeTrajectoryData integrates the fluid ODE for λ = 0.5, α =
// (0.7, 0.3) from x = (0, ½, ½) — a case with a closed-form trajectory —
// and simulates N = 1,000 servers (40 replications; quick: 10).
//
// Progress units: the fluid trajectory, then the simulation (a unit per
// replication).
func computeTrajectoryData(quick bool, seed uint64, m *meter) (*TrajectoryData, error) {
	d := &TrajectoryData{Load: 0.5, Alpha: []float64{0.7, 0.3}, N: 1000, Reps: 40}
	if quick {
		d.Reps = 10
	}
	const until = 10.0
	m.grow(1 + d.Reps)
	model := &jiq.Model{Load: d.Load, Alpha: d.Alpha}
	start := model.DefaultStart()
	var ft []float64
	for i := range 201 {
		ft = append(ft, until*float64(i)/200)
	}
	tr, err := jiq.Trajectory(model, &jiq.TrajectorySettings{Start: &start, Until: until, Times: ft, Output: func(p *jiq.Point) error {
		d.FluidT = append(d.FluidT, p.T)
		d.Fluid[0] = append(d.Fluid[0], p.Busy)
		d.Fluid[1] = append(d.Fluid[1], p.Tokens[0])
		d.Fluid[2] = append(d.Fluid[2], p.Tokens[1])
		return nil
	}})
	if err != nil {
		return nil, err
	}
	if tr.Status != outcome.Converged {
		return nil, fmt.Errorf("plots: fluid trajectory: %v", tr.Status)
	}
	m.add(1)
	for i := range 41 {
		d.SimT = append(d.SimT, until*float64(i)/40)
	}
	res, err := sim.Run(&sim.Model{Servers: d.N, Load: d.Load, Alpha: d.Alpha, Policy: farm.Policy{Kind: farm.JIQBlocking}}, &sim.Settings{Jobs: 1, Warmup: -1, Reps: d.Reps, SampleTimes: d.SimT, Seed: seed, Transient: true})
	if err != nil {
		return nil, err
	}
	m.add(d.Reps)
	for j, pt := range res.Trajectory {
		vals := [3]float64{pt.Busy.Mean, pt.Tokens[0].Mean, pt.Tokens[1].Mean}
		for q := range 3 {
			d.Sim[q] = append(d.Sim[q], vals[q])
			var ss float64
			for _, r := range res.Reps {
				s := r.Samples[j]
				v := [3]float64{s.Busy, s.Tokens[0], s.Tokens[1]}[q]
				ss += (v - vals[q]) * (v - vals[q])
			}
			d.Spread[q] = append(d.Spread[q], math.Sqrt(ss/float64(len(res.Reps)-1)))
		}
	}
	for q := range 3 {
		if err := finite("trajectory", append(append(append([]float64{}, d.Fluid[q]...), d.Sim[q]...), d.Spread[q]...)...); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// TrajectoryFigure draws the fluid x₀, x₁, x₂ against time, with the
// simulated means and a band of one standard deviation.
func TrajectoryFigure(d *TrajectoryData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("JIQ with blocking, R = 2 dispatchers, λ = %g, α = %s: from the empty system", d.Load, vector(d.Alpha)),
		"time t (service times)", "fraction of servers")
	lg := newLegend(1)
	names := []string{"x₀: busy servers", "x₁: tokens at dispatcher 1", "x₂: tokens at dispatcher 2"}
	for q := range 3 {
		l, err := addLine(p, q+1, d.FluidT, d.Fluid[q])
		if err != nil {
			return nil, err
		}
		m, err := addPoints(p, q+1, d.SimT, d.Sim[q], d.Spread[q])
		if err != nil {
			return nil, err
		}
		lg.add(names[q], append([]plot.Thumbnailer{l}, m.thumbs()...)...)
	}
	lg.note("lines: fluid limit (N → ∞)")
	lg.note(fmt.Sprintf("markers: simulation, N = %s servers:", thousands(d.N)))
	lg.note(fmt.Sprintf("  mean of %d runs ± 1 sd of one run", d.Reps))
	pad(&p.X, 0.015)
	pad(&p.Y, 0.03)
	return single("jiq-trajectory", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}

// ExchangeData is the N → ∞ blocking and mean wait against the token
// exchange rate ν (Enhancement 2).
type ExchangeData struct {
	Load     float64   `json:"load"`
	Alpha    []float64 `json:"alpha"`
	Nu       []float64 `json:"nu"`
	Blocking []float64 `json:"blocking"`
	MeanWait []float64 `json:"mean_wait"`
	NuStar   float64   `json:"nu_star"`
}

// computeExchangeData evaluates the N → ∞ limits (package meanfield/jiq) for λ = 0.9,
// α = (0.7, 0.3) over ν ∈ [0, 6].
//
// Progress units: a value of ν.
func computeExchangeData(m *meter) (*ExchangeData, error) {
	d := &ExchangeData{Load: 0.9, Alpha: []float64{0.7, 0.3}}
	m.grow(121)
	for i := 0; i <= 120; i++ {
		m.add(1)
		nu := 0.05 * float64(i)
		b, err := jiq.Limit(&jiq.Model{Load: d.Load, Alpha: d.Alpha, Exchange: nu})
		if err != nil {
			return nil, err
		}
		q, err := jiq.Limit(&jiq.Model{Scenario: jiq.Queueing, Load: d.Load, Alpha: d.Alpha, Exchange: nu})
		if err != nil {
			return nil, err
		}
		d.Nu = append(d.Nu, nu)
		d.Blocking = append(d.Blocking, b.Blocking)
		d.MeanWait = append(d.MeanWait, q.MeanWait)
		d.NuStar = b.NuStar
	}
	if err := finite("exchange", append(append(append([]float64{d.NuStar}, d.Nu...), d.Blocking...), d.MeanWait...)...); err != nil {
		return nil, err
	}
	return d, nil
}

// ExchangeFigure draws the limiting blocking (blocking scenario) and mean
// wait (queueing scenario) against ν, with ν* marked.
func ExchangeFigure(d *ExchangeData) (*Figure, error) {
	pb := newPlot(fmt.Sprintf("JIQ with token exchange, N → ∞, λ = %g, α = %s: blocking scenario", d.Load, vector(d.Alpha)),
		"token exchange rate ν (per token per service time)", "blocking probability")
	pw := newPlot("queueing scenario", "token exchange rate ν (per token per service time)", "mean wait E[W] (service times)")
	for i, c := range []struct {
		p    *plot.Plot
		y    []float64
		zero string
	}{{pb, d.Blocking, "no blocking"}, {pw, d.MeanWait, "no wait"}} {
		curve, err := addLine(c.p, i+1, d.Nu, c.y)
		if err != nil {
			return nil, err
		}
		curve.Dashes, curve.Width = nil, vg.Points(2)
		top := 0.0
		for _, v := range c.y {
			top = math.Max(top, v)
		}
		mark, err := addLine(c.p, 0, []float64{d.NuStar, d.NuStar}, []float64{0, 1.04 * top})
		if err != nil {
			return nil, err
		}
		mark.Width, mark.Dashes = vg.Points(1), dashes[2]
		label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: d.NuStar, Y: 0.9 * top}},
			Labels: []string{fmt.Sprintf("  ν* = %.3g: %s from here on", d.NuStar, c.zero)}})
		if err != nil {
			return nil, err
		}
		c.p.Add(label)
		c.p.Y.Min = 0
		pad(&c.p.X, 0.01)
		pad(&c.p.Y, 0.03)
	}
	return stacked("exchange", 18*vg.Centimeter, 18*vg.Centimeter, pb, pw), nil
}
