package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/tipping"
)

// TrapDoorPoint is the critical push of the map at one refresh period,
// b*/T, with its bracket [Lo, Hi] in units of T.
type TrapDoorPoint struct {
	Period   float64 `json:"period"`
	Critical float64 `json:"critical_scaled"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
}

// TrapDoorSimPoint is the simulated critical push at one period: the
// push size b/T at which a logistic fit of the tipped fraction crosses ½,
// with its 95% profile-likelihood interval.
type TrapDoorSimPoint struct {
	Period float64 `json:"period"`
	Edge   float64 `json:"critical_scaled"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// TrapDoorData is the data of the trap-door figure (k = 5, λ = 0.9): the
// critical half-loaded backlog from the empty start and landing on the
// balanced fixed point, from the map, and the first simulated at N
// servers.
type TrapDoorData struct {
	K          int                `json:"k"`
	Load       float64            `json:"load"`
	Edge       float64            `json:"edge"`    // the map's tipping edge T*, where the balanced state's basin closes
	N          int                `json:"servers"` // of the simulation
	Empty      []TrapDoorPoint    `json:"empty"`
	OnBalanced []TrapDoorPoint    `json:"on_balanced"`
	Sim        []TrapDoorSimPoint `json:"sim"`
}

func (d *TrapDoorData) check() error {
	if len(d.Empty) == 0 || len(d.OnBalanced) == 0 {
		return fmt.Errorf("plots: trapdoor: no map points")
	}
	if err := finite("trapdoor", d.Edge); err != nil {
		return err
	}
	for _, set := range [][]TrapDoorPoint{d.Empty, d.OnBalanced} {
		for _, p := range set {
			if err := finite("trapdoor", p.Period, p.Critical, p.Lo, p.Hi); err != nil {
				return err
			}
			if !(p.Period > 0 && p.Lo <= p.Critical && p.Critical <= p.Hi && p.Critical > 0) {
				return fmt.Errorf("plots: trapdoor: b*/T = %v outside its bracket [%v, %v] at T = %v", p.Critical, p.Lo, p.Hi, p.Period)
			}
		}
	}
	for _, p := range d.Sim {
		if err := finite("trapdoor", p.Period, p.Edge, p.Lo, p.Hi); err != nil {
			return err
		}
		if !(p.Lo <= p.Edge && p.Edge <= p.Hi) {
			return fmt.Errorf("plots: trapdoor: simulated b*/T = %v outside its interval at T = %v", p.Edge, p.Period)
		}
	}
	return nil
}

// computeTrapDoorData finds b*(T) of the half-loaded backlog by bisection
// on the map's orbits (staleboard.CriticalTable) on a log grid of T above
// the edge, from the empty start and on the balanced fixed point, and
// simulates N = 100 servers pushed from the empty start at a few T
// (tipping.SimulatePush at 0.85…1.15·b*, 20 periods).
//
// Progress units: a period of the map weighs 1 (about 1 s), a simulated
// period 20.
func computeTrapDoorData(quick bool, seed uint64, m *meter) (*TrapDoorData, error) {
	const k, load, n = 5, 0.9, 100
	const simWeight = 20
	sys := staleboard.System{K: k, Load: load}
	edge, err := staleboard.Edge(&sys, nil)
	if err != nil {
		return nil, err
	}
	if edge.Status != outcome.EdgeFound {
		return nil, fmt.Errorf("plots: trapdoor: no edge at k = %d, λ = %g (%v)", k, load, edge.Status)
	}
	// From just above the edge (where the basin closes) to 3,000.
	periods := logGrid(1.02*edge.Period, 3000, 12)
	simT, reps := []float64{450, 1000, 2000}, 8
	if quick {
		periods = logGrid(1.02*edge.Period, 3000, 5)
		simT, reps = []float64{1000}, 6
	}
	m.grow(2*len(periods) + simWeight*len(simT))
	half := farm.Push{Kind: farm.Backlog, Fraction: 0.5}
	table := func(onBalanced bool) ([]TrapDoorPoint, error) {
		models := make([]staleboard.PushModel, len(periods))
		for i, T := range periods {
			models[i] = staleboard.PushModel{Model: staleboard.Model{System: sys, Period: T}, Push: half, OnBalanced: onBalanced}
		}
		res, err := staleboard.CriticalTable(models, &staleboard.OrbitSettings{Run: outcome.Run{Progress: m.share(len(periods))}})
		if err != nil {
			return nil, err
		}
		pts := make([]TrapDoorPoint, len(res))
		for i, r := range res {
			if r.Status != outcome.Converged {
				return nil, fmt.Errorf("plots: trapdoor: critical push at T = %v: %v", r.Period, r.Status)
			}
			pts[i] = TrapDoorPoint{Period: r.Period, Critical: r.Scaled, Lo: r.Lo / r.Period, Hi: r.Hi / r.Period}
		}
		return pts, nil
	}
	d := &TrapDoorData{K: k, Load: load, Edge: edge.Period, N: n}
	if d.Empty, err = table(false); err != nil {
		return nil, err
	}
	if d.OnBalanced, err = table(true); err != nil {
		return nil, err
	}
	for i, T := range simT {
		th, err := staleboard.CriticalPush(&staleboard.PushModel{Model: staleboard.Model{System: sys, Period: T}, Push: half}, nil)
		if err != nil {
			return nil, err
		}
		var sizes []float64
		for _, f := range []float64{0.85, 0.93, 1, 1.07, 1.15} {
			sizes = append(sizes, f*th.Scaled)
		}
		curve, err := tipping.SimulatePush(&tipping.PushModel{Model: tipping.Model{Dispatchers: k, Load: load, Servers: n}, Period: T, Push: half},
			&tipping.PushSettings{Sizes: sizes, Reps: reps, Horizon: 20, Seed: seed + uint64(i)})
		if err != nil {
			return nil, err
		}
		m.add(simWeight)
		if curve.Status != outcome.Converged {
			// The tipped fraction did not cross ½ inside 0.85…1.15·b*:
			// no simulated point at this T (the figure says so by its
			// absence; fluid validate --filter trap-door checks it).
			continue
		}
		d.Sim = append(d.Sim, TrapDoorSimPoint{Period: T, Edge: curve.Edge, Lo: curve.EdgeLo, Hi: curve.EdgeHi})
	}
	return d, nil
}

// TrapDoorFigure draws b*/T against T (log x): the map's critical
// half-loaded backlog from the empty start and on the balanced fixed
// point, the simulated one with its 95% interval, and the edge T* where
// the balanced state's basin closes.
func TrapDoorFigure(d *TrapDoorData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("The trap door of the stale board: k = %d dispatchers, λ = %g", d.K, d.Load),
		"refresh period T (service times)", "critical backlog b*/T on half the servers")
	logAxes(p, "x")
	lg := newLegend(1)
	for i, c := range []struct {
		name string
		pts  []TrapDoorPoint
	}{{"map, pushed from the empty start", d.Empty}, {"map, pushed on the balanced state", d.OnBalanced}} {
		var ts, bs []float64
		for _, pt := range c.pts {
			ts, bs = append(ts, pt.Period), append(bs, pt.Critical)
		}
		l, err := addLine(p, i+1, ts, bs)
		if err != nil {
			return nil, err
		}
		lg.add(c.name, l)
	}
	if len(d.Sim) > 0 {
		pts := &errorPoints{}
		for _, s := range d.Sim {
			pts.XYs = append(pts.XYs, struct{ X, Y float64 }{s.Period, s.Edge})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{s.Edge - s.Lo, s.Hi - s.Edge})
		}
		mk, err := addErrorPoints(p, 1, pts)
		if err != nil {
			return nil, err
		}
		lg.add(fmt.Sprintf("simulation N = %d, empty start (tips half the runs)", d.N), mk.thumbs()...)
	}
	top := 0.0
	for _, pt := range d.Empty {
		top = math.Max(top, pt.Hi)
	}
	ref, err := addLine(p, 0, []float64{d.Edge, d.Edge}, []float64{0, top})
	if err != nil {
		return nil, err
	}
	ref.Width = vg.Points(1)
	lg.add(fmt.Sprintf("edge T* = %.0f: the basin closes", d.Edge), ref)
	lg.note("b*: the smallest backlog on half the servers")
	lg.note("  whose orbit ends in the herd")
	lg.note("simulation: 95% interval of the ½ crossing")
	pad(&p.X, 0.03)
	pad(&p.Y, 0.03)
	return single("trapdoor", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}
