package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// BistabilityPoint is the mean time in system at one refresh period from
// the balanced (empty) and the half-loaded (B = 0.1·T) start.
type BistabilityPoint struct {
	Period   float64 `json:"period"`
	Balanced float64 `json:"balanced"`
	Herd     float64 `json:"half_loaded"`
	// CI95 half-widths (simulation only; zero for the map).
	BalancedCI float64 `json:"balanced_ci95"`
	HerdCI     float64 `json:"half_loaded_ci95"`
}

// BistabilityData is the data of the bistability figure (k = 5, λ = 0.9).
type BistabilityData struct {
	K    int                `json:"k"`
	Load float64            `json:"load"`
	N    int                `json:"servers"` // of the simulation
	Map  []BistabilityPoint `json:"map"`
	Sim  []BistabilityPoint `json:"sim"`
}

// NewBistabilityData checks the data (finite, positive periods and times).
func NewBistabilityData(k int, load float64, n int, mp, sm []BistabilityPoint) (*BistabilityData, error) {
	for _, set := range [][]BistabilityPoint{mp, sm} {
		for _, p := range set {
			if err := finite("bistability", p.Period, p.Balanced, p.Herd, p.BalancedCI, p.HerdCI); err != nil {
				return nil, err
			}
			if p.Period <= 0 || p.Balanced <= 0 || p.Herd <= 0 {
				return nil, fmt.Errorf("plots: bistability: non-positive value at T = %v (log axes)", p.Period)
			}
		}
	}
	if len(mp) == 0 {
		return nil, fmt.Errorf("plots: bistability: no map points")
	}
	return &BistabilityData{K: k, Load: load, N: n, Map: mp, Sim: sm}, nil
}

// computeBistabilityData iterates the refresh-period map to its attractor
// from both starts on a log grid of T (the mean over the cycle, or over the
// last 100 periods when it does not settle), and simulates N = 100 servers
// at a few T.
//
// Progress units: 65,536 simulated arrivals (about 0.02 s); a point of the
// map weighs 150 (about 4 s).
func computeBistabilityData(quick bool, seed uint64, m *meter) (*BistabilityData, error) {
	const k, load, n = 5, 0.9, 100
	const mapWeight = 150
	periods := logGrid(50, 3000, 16)
	simT := []float64{150, 300, 600, 1100, 2000, 3000}
	simPeriods := 16
	if quick {
		periods = logGrid(50, 3000, 7)
		simT = []float64{300, 1100, 3000}
		simPeriods = 8
	}
	const reps = 4
	m.grow(mapWeight * len(periods))
	for _, T := range simT {
		per := int(load * n * T)
		m.grow(2 * reps * (simPeriods + 2) * per / 0x10000)
	}
	mp := make([]BistabilityPoint, len(periods))
	err := parallel.For(len(periods), 0, nil, func(i int) error {
		var err error
		mp[i], err = mapBistability(k, load, periods[i])
		m.add(mapWeight)
		return err
	})
	if err != nil {
		return nil, err
	}
	var sm []BistabilityPoint
	for i, T := range simT {
		per := int(load * n * T)
		pt := BistabilityPoint{Period: T}
		for j, st := range []farm.Start{{}, {Kind: farm.Half, Jobs: int(0.1 * T)}} {
			res, err := sim.Run(&sim.Model{Servers: n, Load: load, Dispatchers: k, Policy: farm.Policy{Kind: farm.Tally}, Period: T, Start: st}, &sim.Settings{Jobs: simPeriods * per, Warmup: 2 * per, Reps: reps, Seed: seed + uint64(2*i+j), Run: outcome.Run{Progress: m.arrivals()}})
			if err != nil {
				return nil, err
			}
			if j == 0 {
				pt.Balanced, pt.BalancedCI = res.Sojourn.Mean, res.Sojourn.CI95
			} else {
				pt.Herd, pt.HerdCI = res.Sojourn.Mean, res.Sojourn.CI95
			}
		}
		sm = append(sm, pt)
	}
	return NewBistabilityData(k, load, n, mp, sm)
}

func mapBistability(k int, load, T float64) (BistabilityPoint, error) {
	m := &staleboard.Model{System: staleboard.System{K: k, Load: load}, Period: T}
	bal, err := staleboard.Attractor(m, &staleboard.AttractorSettings{Tol: 1e-9, MaxIter: 400})
	if err != nil {
		return BistabilityPoint{}, err
	}
	half, err := staleboard.Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * T)})
	if err != nil {
		return BistabilityPoint{}, err
	}
	herd, err := staleboard.Attractor(m, &staleboard.AttractorSettings{Start: half, Tol: 1e-9, MaxIter: 400})
	if err != nil {
		return BistabilityPoint{}, err
	}
	return BistabilityPoint{Period: T, Balanced: bal.Sojourn, Herd: herd.Sojourn}, nil
}

// logGrid returns n points from a to b, equally spaced in log.
func logGrid(a, b float64, n int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = a * math.Pow(b/a, float64(i)/float64(n-1))
	}
	return g
}

// BistabilityFigure draws the mean time in system against T on log axes:
// map curves and simulated points (95% intervals) from both starts.
func BistabilityFigure(d *BistabilityData) (*Figure, error) {
	p := newPlot(fmt.Sprintf("Bistability of the stale board: k = %d dispatchers, λ = %g", d.K, d.Load),
		"refresh period T (mean service times)", "mean time in system (mean service times)")
	logAxes(p, "xy")
	lg := newLegend(1)
	var ts, bal, herd []float64
	for _, pt := range d.Map {
		ts, bal, herd = append(ts, pt.Period), append(bal, pt.Balanced), append(herd, pt.Herd)
	}
	var st, sb, sbc, sh, shc []float64
	for _, pt := range d.Sim {
		st = append(st, pt.Period)
		sb, sbc = append(sb, pt.Balanced), append(sbc, pt.BalancedCI)
		sh, shc = append(sh, pt.Herd), append(shc, pt.HerdCI)
	}
	for i, c := range []struct {
		name       string
		mp, sm, ci []float64
	}{{"empty start", bal, sb, sbc}, {"half-loaded start", herd, sh, shc}} {
		l, err := addLine(p, i+1, ts, c.mp)
		if err != nil {
			return nil, err
		}
		lg.add("map, "+c.name, l)
		if len(st) > 0 {
			m, err := addPoints(p, i+1, st, c.sm, c.ci)
			if err != nil {
				return nil, err
			}
			lg.add(fmt.Sprintf("simulation N = %d, %s", d.N, c.name), m.thumbs()...)
		}
	}
	ref, err := addLine(p, 0, []float64{ts[0], ts[len(ts)-1]}, []float64{0.4 * ts[0], 0.4 * ts[len(ts)-1]})
	if err != nil {
		return nil, err
	}
	ref.Width = vg.Points(1)
	lg.add("herd: 0.40·T", ref)
	lg.note("map: the refresh-period map (N → ∞)")
	lg.note("half-loaded start: B = 0.1·T jobs")
	lg.note("  on half the servers")
	lg.note("simulation: 95% intervals")
	pad(&p.X, 0.03)
	pad(&p.Y, 0.03)
	return single("bistability", panel{p: p, legend: lg}, 26*vg.Centimeter, 14*vg.Centimeter), nil
}
