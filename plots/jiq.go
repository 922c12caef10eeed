package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/solver"
	"github.com/fluidlb/fluid/spec"
	"github.com/fluidlb/fluid/validate/sim"
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

// ComputeBlockingMapData solves the closed Jackson network (package jackson) at
// N = 100,000 (quick: 10,000) on a grid α₁ ∈ [0.5, 0.99], λ ∈ [0.05, 2.5].
func ComputeBlockingMapData(quick bool) (*BlockingMapData, error) {
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
	err := parallel.For(nl, 0, nil, func(r int) error {
		b[r] = make([]float64, na)
		for c, a := range alpha1 {
			res, err := jackson.Solve(&jackson.JIQ{Servers: n, Load: load[r], Alpha: []float64{a, 1 - a}}, nil)
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
// colours spanning blocking 0 to 1) with the crossover curve 2α₂ = 1/λ
// (Theorem 1: left of it the least-loaded dispatcher's tokens decide the
// blocking, right of it the overload).
func BlockingMapFigure(d *BlockingMapData) (*Figure, error) {
	hm := &HeatMapData{XName: "alpha.1", YName: "load", ZName: "blocking", X: d.Alpha1, Y: d.Load, Z: d.Blocking}
	f, err := heatMapFigure(hm, fmt.Sprintf("JIQ blocking, exact at N = %d (R = 2 dispatchers)", d.N), 0, 1)
	if err != nil {
		return nil, err
	}
	f.Name = "jiq-blocking"
	p := f.Plots[0]
	p.X.Label.Text = "arrival share of the busier dispatcher α₁"
	// Crossover 2α₂ = 1/λ, i.e. α₁ = 1 − 1/(2λ), for λ ≥ 1.
	var xs, ys []float64
	for l := 1.0; l <= d.Load[len(d.Load)-1]+1e-9; l += 0.01 {
		xs, ys = append(xs, 1-1/(2*l)), append(ys, l)
	}
	if _, err := addLine(p, "crossover 2α₂ = 1/λ", 5, xs, ys); err != nil {
		return nil, err
	}
	p.Legend.Top, p.Legend.Left = true, true
	f.Plots[1].Y.Label.Text = "blocking probability"
	return f, nil
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

// ComputeTrajectoryData integrates the fluid ODE for λ = 0.5, α =
// (0.7, 0.3) from x = (0, ½, ½) — a case with a closed-form trajectory —
// and simulates N = 1,000 servers (40 replications; quick: 10).
func ComputeTrajectoryData(quick bool, seed uint64) (*TrajectoryData, error) {
	d := &TrajectoryData{Load: 0.5, Alpha: []float64{0.7, 0.3}, N: 1000, Reps: 40}
	if quick {
		d.Reps = 10
	}
	const until = 10.0
	m := &jiq.Model{Load: d.Load, Alpha: d.Alpha}
	start := m.DefaultStart()
	var ft []float64
	for i := range 201 {
		ft = append(ft, until*float64(i)/200)
	}
	tr, err := jiq.Trajectory(m, &jiq.TrajectorySettings{Start: &start, Until: until, Times: ft, Output: func(p *jiq.Point) error {
		d.FluidT = append(d.FluidT, p.T)
		d.Fluid[0] = append(d.Fluid[0], p.Busy)
		d.Fluid[1] = append(d.Fluid[1], p.Tokens[0])
		d.Fluid[2] = append(d.Fluid[2], p.Tokens[1])
		return nil
	}})
	if err != nil {
		return nil, err
	}
	if tr.Status != solver.Converged {
		return nil, fmt.Errorf("plots: fluid trajectory: %v", tr.Status)
	}
	for i := range 41 {
		d.SimT = append(d.SimT, until*float64(i)/40)
	}
	res, err := sim.Run(sim.Config{Servers: d.N, Load: d.Load, Alpha: d.Alpha, Policy: spec.Policy{Kind: spec.JIQBlocking},
		Jobs: 1, Warmup: -1, Reps: d.Reps, SampleTimes: d.SimT, Seed: seed})
	if err != nil {
		return nil, err
	}
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
	p := newPlot(fmt.Sprintf("JIQ blocking: fluid limit and N = %d simulation (λ = %g, α = %v)", d.N, d.Load, d.Alpha),
		"time t (service times)", "fraction of servers")
	names := []string{"x₀ busy servers", "x₁ tokens at dispatcher 1", "x₂ tokens at dispatcher 2"}
	for q := range 3 {
		if _, err := addLine(p, "fluid "+names[q], q+1, d.FluidT, d.Fluid[q]); err != nil {
			return nil, err
		}
		if _, err := addPoints(p, "", q+1, d.SimT, d.Sim[q], d.Spread[q]); err != nil {
			return nil, err
		}
	}
	// A legend entry for the simulated points (a thumbnail only).
	thumb, err := plotter.NewScatter(plotter.XYs{{}})
	if err != nil {
		return nil, err
	}
	styleScatter(thumb, 0)
	p.Legend.Add(fmt.Sprintf("simulation: mean ± 1 sd over %d runs", d.Reps), thumb)
	p.Y.Min, p.Y.Max = 0, 1 // room for the legend above the curves
	p.Legend.Top, p.Legend.Left = true, false
	return single("jiq-trajectory", p, 20*vg.Centimeter, 14*vg.Centimeter), nil
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

// ComputeExchangeData evaluates the N → ∞ limits (package meanfield/jiq) for λ = 0.9,
// α = (0.7, 0.3) over ν ∈ [0, 6].
func ComputeExchangeData() (*ExchangeData, error) {
	d := &ExchangeData{Load: 0.9, Alpha: []float64{0.7, 0.3}}
	for i := 0; i <= 120; i++ {
		nu := 0.05 * float64(i)
		b, err := jiq.Limit(&jiq.Model{Load: d.Load, Alpha: d.Alpha, Exchange: nu}, nil)
		if err != nil {
			return nil, err
		}
		q, err := jiq.Limit(&jiq.Model{Scenario: jiq.Queueing, Load: d.Load, Alpha: d.Alpha, Exchange: nu}, nil)
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
	title := fmt.Sprintf("Token exchange (λ = %g, α = %v): N → ∞", d.Load, d.Alpha)
	pb := newPlot(title, "token exchange rate ν (per token per service time)", "blocking probability")
	pw := newPlot("", "token exchange rate ν (per token per service time)", "mean wait E[W] (service times)")
	for i, c := range []struct {
		p    *plot.Plot
		y    []float64
		name string
	}{{pb, d.Blocking, "blocking scenario"}, {pw, d.MeanWait, "queueing scenario"}} {
		if _, err := addLine(c.p, c.name, i+1, d.Nu, c.y); err != nil {
			return nil, err
		}
		top := 0.0
		for _, v := range c.y {
			top = math.Max(top, v)
		}
		if _, err := addLine(c.p, fmt.Sprintf("ν* = %.3g", d.NuStar), 0, []float64{d.NuStar, d.NuStar}, []float64{0, top}); err != nil {
			return nil, err
		}
		c.p.Y.Min = 0
		c.p.Legend.Left = false
	}
	return stacked("exchange", 18*vg.Centimeter, 18*vg.Centimeter, pb, pw), nil
}
