package plots

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// BestdCurve is one policy's map points (BistabilityPoint: the mean time
// in system from the empty and the half-loaded start at each T) and
// simulated points.
type BestdCurve struct {
	Policy string             `json:"policy"`
	Map    []BistabilityPoint `json:"map"`
	Sim    []BistabilityPoint `json:"sim"`
}

// BestdData is the data of the best-of-d figure (k = 5, λ = 0.9): the
// least board + own tally, best of two by board + own tally, and best of
// two on the board alone.
type BestdData struct {
	K      int          `json:"k"`
	Load   float64      `json:"load"`
	N      int          `json:"servers"` // of the simulation
	Curves []BestdCurve `json:"curves"`
	// TallyModel names the map of best of two with a tally the data were
	// computed by; empty in data computed before the projected
	// superposition was the map, by the regular superposition (rounding).
	TallyModel string `json:"tally_model,omitempty"`
}

// bestdTallyModel is the name of the map of best of d with a tally.
const bestdTallyModel = "projected-superposition"

func (d *BestdData) check() error {
	if len(d.Curves) == 0 {
		return fmt.Errorf("plots: bestd: no curves")
	}
	for _, c := range d.Curves {
		if _, err := NewBistabilityData(d.K, d.Load, d.N, c.Map, c.Sim); err != nil {
			return fmt.Errorf("plots: bestd %s: %w", c.Policy, err)
		}
	}
	return nil
}

// bestdPolicies are the figure's policies, in the simulator's words, with
// their map systems.
var bestdPolicies = []struct {
	pol farm.Policy
	sys staleboard.System
}{
	{farm.Policy{Kind: farm.Tally}, staleboard.System{K: 5, Load: 0.9}},
	{farm.Policy{Kind: farm.TallyJSQd, D: 2}, staleboard.System{K: 5, Load: 0.9, Tally: staleboard.Own, Choices: 2}},
	{farm.Policy{Kind: farm.BoardJSQd, D: 2}, staleboard.System{K: 5, Load: 0.9, Tally: staleboard.None, Choices: 2}},
}

// computeBestdData iterates each policy's map to its attractor from the
// empty and the half-loaded (B = 0.1·T) start on a grid of T, and
// simulates best of two with a tally at N = 100 at a few T.
//
// Progress units: 65,536 simulated arrivals; a map point of best of two
// with a tally weighs 1,200 at T ≥ 1,000 (its herd: 25 periods of a
// minute or more of CPU), 100 below, and 50 for the other two.
func computeBestdData(quick bool, seed uint64, m *meter) (*BestdData, error) {
	const k, load, n = 5, 0.9, 100
	periods := []float64{30, 60, 100, 200, 400, 700, 1100, 2000}
	simT := []float64{100, 400, 2000}
	simPeriods := 12
	if quick {
		periods = []float64{100, 400, 2000}
		simT = []float64{2000}
		simPeriods = 6
	}
	const reps = 4
	weight := func(i int, T float64) int {
		if i != 1 {
			return 50
		}
		if T >= 1000 {
			return 1200
		}
		return 100
	}
	for i := range bestdPolicies {
		for _, T := range periods {
			m.grow(weight(i, T))
		}
	}
	for _, T := range simT {
		m.grow(2 * reps * (simPeriods + 2) * int(load*n*T) / 0x10000)
	}
	d := &BestdData{K: k, Load: load, N: n, TallyModel: bestdTallyModel}
	type job struct{ i, j int }
	var jobs []job
	for i := range bestdPolicies {
		d.Curves = append(d.Curves, BestdCurve{Policy: bestdPolicies[i].pol.String(), Map: make([]BistabilityPoint, len(periods))})
		for j := range periods {
			jobs = append(jobs, job{i, j})
		}
	}
	err := parallel.For(len(jobs), 0, nil, func(x int) error {
		jb := jobs[x]
		T := periods[jb.j]
		pt, err := mapBestd(bestdPolicies[jb.i].sys, T)
		d.Curves[jb.i].Map[jb.j] = pt
		m.add(weight(jb.i, T))
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, T := range simT {
		per := int(load * n * T)
		pt := BistabilityPoint{Period: T}
		for j, st := range []farm.Start{{}, {Kind: farm.Half, Jobs: int(0.1 * T)}} {
			res, err := sim.Run(&sim.Model{Servers: n, Load: load, Dispatchers: k, Policy: bestdPolicies[1].pol, Period: T, Start: st},
				&sim.Settings{Jobs: simPeriods * per, Warmup: 2 * per, Reps: reps, Seed: seed + uint64(2*i+j), Run: outcome.Run{Progress: m.arrivals()}})
			if err != nil {
				return nil, err
			}
			if j == 0 {
				pt.Balanced, pt.BalancedCI = res.Sojourn.Mean, res.Sojourn.CI95
			} else {
				pt.Herd, pt.HerdCI = res.Sojourn.Mean, res.Sojourn.CI95
			}
		}
		d.Curves[1].Sim = append(d.Curves[1].Sim, pt)
	}
	return d, d.check()
}

// mapBestd is the mean time in system of the system's map at period T
// from the empty and the half-loaded start (the attractor's, or the mean
// of the last periods iterated when it has not settled within 25 periods
// to 1e-7: best of two with a tally costs seconds a period in the herd).
func mapBestd(sys staleboard.System, T float64) (BistabilityPoint, error) {
	m := &staleboard.Model{System: sys, Period: T}
	set := &staleboard.AttractorSettings{Tol: 1e-7, MaxIter: 400}
	if sys.Choices > 0 {
		set.MaxIter = 25
	}
	bal, err := staleboard.Attractor(m, set)
	if err != nil {
		return BistabilityPoint{}, err
	}
	half, err := staleboard.Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * T)})
	if err != nil {
		return BistabilityPoint{}, err
	}
	hs := *set
	hs.Start = half
	herd, err := staleboard.Attractor(m, &hs)
	if err != nil {
		return BistabilityPoint{}, err
	}
	return BistabilityPoint{Period: T, Balanced: bal.Sojourn, Herd: herd.Sojourn}, nil
}

// BestdFigure draws the mean time in system against T on log axes for the
// three policies from both starts (solid: empty start; dashed: half-loaded
// start), with the simulated points of best of two with a tally.
func BestdFigure(d *BestdData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("Best of two and the trap door: k = %d dispatchers, λ = %g", d.K, d.Load),
		"refresh period T (mean service times)", "mean time in system (mean service times)")
	logAxes(p, "xy")
	lg := newLegend(1)
	for i, c := range d.Curves {
		var ts, bal, herd []float64
		for _, pt := range c.Map {
			ts, bal, herd = append(ts, pt.Period), append(bal, pt.Balanced), append(herd, pt.Herd)
		}
		l, err := addLine(p, i+1, ts, bal)
		if err != nil {
			return nil, err
		}
		l.Dashes = nil // solid: the empty start
		lg.add("map "+c.Policy+", empty start", l)
		h, err := addLine(p, i+1, ts, herd)
		if err != nil {
			return nil, err
		}
		h.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		lg.add("map "+c.Policy+", half-loaded start", h)
		if len(c.Sim) > 0 {
			var st, sb, sbc, sh, shc []float64
			for _, pt := range c.Sim {
				st = append(st, pt.Period)
				sb, sbc = append(sb, pt.Balanced), append(sbc, pt.BalancedCI)
				sh, shc = append(sh, pt.Herd), append(shc, pt.HerdCI)
			}
			mk, err := addPoints(p, i+1, st, sb, sbc)
			if err != nil {
				return nil, err
			}
			lg.add(fmt.Sprintf("simulation N = %d, %s, empty start", d.N, c.Policy), mk.thumbs()...)
			if _, err := addPoints(p, i+1, st, sh, shc); err != nil {
				return nil, err
			}
		}
	}
	lg.note("map: the refresh-period map (N → ∞); tally-jsqd:2")
	model := d.TallyModel
	if model == "" {
		model = "regular-superposition"
	}
	lg.note("  by the " + model + " approximation")
	lg.note("half-loaded start: B = 0.1·T jobs on half the servers")
	lg.note("simulation: 95% intervals, both starts")
	pad(&p.X, 0.03)
	pad(&p.Y, 0.03)
	return single("bestd", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}
