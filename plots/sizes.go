package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fluidlb/fluid/spec"
	"github.com/fluidlb/fluid/validate/sim"
)

// SizeSeries is one simulated curve: a policy under a discipline (and, for
// the board-age panel, a size law) against SCV or board age.
type SizeSeries struct {
	Policy     string    `json:"policy"`
	Discipline string    `json:"discipline"`
	Sizes      string    `json:"sizes,omitempty"`
	X          []float64 `json:"x"` // SCV, or board age T
	Mean       []float64 `json:"mean"`
	CI95       []float64 `json:"ci95"`
}

// SizesData is the data of the size-spread figure, N = 100,
// λ = 0.9.
type SizesData struct {
	N     int          `json:"servers"`
	Load  float64      `json:"load"`
	Jobs  int          `json:"jobs"` // per replication
	Reps  int          `json:"reps"`
	BySCV []SizeSeries `json:"by_scv"`
	ByAge []SizeSeries `json:"by_age"`
}

// NewSizesData checks every series (finite, positive means).
func NewSizesData(n int, load float64, jobs, reps int, byscv, byage []SizeSeries) (*SizesData, error) {
	for _, set := range [][]SizeSeries{byscv, byage} {
		for _, s := range set {
			if len(s.X) != len(s.Mean) || len(s.X) != len(s.CI95) || len(s.X) == 0 {
				return nil, fmt.Errorf("plots: sizes: series %s/%s has ragged data", s.Policy, s.Discipline)
			}
			if err := finite("sizes "+s.Policy, append(append(append([]float64{}, s.X...), s.Mean...), s.CI95...)...); err != nil {
				return nil, err
			}
			for _, m := range s.Mean {
				if m <= 0 {
					return nil, fmt.Errorf("plots: sizes: non-positive mean in %s (log axis)", s.Policy)
				}
			}
		}
	}
	return &SizesData{N: n, Load: load, Jobs: jobs, Reps: reps, BySCV: byscv, ByAge: byage}, nil
}

// ComputeSizesData simulates N = 100 servers at λ = 0.9: random, round
// robin, best of two and least loaded under FCFS and PS for SCV 1, 4, 10,
// 30 (H2 sizes); and best of two and least loaded on a board of age T
// under PS for exponential and SCV-30 sizes. 8 replications of 2 million
// jobs as in the published runs (quick: 4 of 100,000, which visibly underestimates
// the heavy-tailed SCV-30 means: a giant stays about 300 time units under
// PS).
func ComputeSizesData(quick bool, seed uint64) (*SizesData, error) {
	const n, load = 100, 0.9
	jobs, reps := 2_000_000, 8
	if quick {
		jobs, reps = 100_000, 4
	}
	run := func(pol string, d spec.Discipline, z spec.Sizes, period float64, s uint64) (sim.Estimate, error) {
		p, err := spec.ParsePolicy(pol)
		if err != nil {
			return sim.Estimate{}, err
		}
		res, err := sim.Run(sim.Config{Servers: n, Load: load, Policy: p, Discipline: d, Sizes: z, Period: period, Jobs: jobs, Reps: reps, Seed: s})
		if err != nil {
			return sim.Estimate{}, err
		}
		return res.Sojourn, nil
	}
	sizes := func(c2 float64) spec.Sizes {
		if c2 == 1 {
			return spec.Sizes{}
		}
		return spec.Sizes{Kind: spec.H2, SCV: c2}
	}
	var byscv, byage []SizeSeries
	s := seed
	for _, d := range []spec.Discipline{spec.FCFS, spec.PS} {
		for _, pol := range []string{"random", "rr", "jsqd:2", "jsq"} {
			ser := SizeSeries{Policy: pol, Discipline: d.String()}
			for _, c2 := range []float64{1, 4, 10, 30} {
				s++
				e, err := run(pol, d, sizes(c2), 0, s)
				if err != nil {
					return nil, err
				}
				ser.X, ser.Mean, ser.CI95 = append(ser.X, c2), append(ser.Mean, e.Mean), append(ser.CI95, e.CI95)
			}
			byscv = append(byscv, ser)
		}
	}
	ages := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500}
	for _, c2 := range []float64{1, 30} {
		for _, pol := range []string{"board-jsqd:2", "board-jsq"} {
			ser := SizeSeries{Policy: pol, Discipline: "ps", Sizes: sizes(c2).String()}
			for _, T := range ages {
				s++
				e, err := run(pol, spec.PS, sizes(c2), T, s)
				if err != nil {
					return nil, err
				}
				ser.X, ser.Mean, ser.CI95 = append(ser.X, T), append(ser.Mean, e.Mean), append(ser.CI95, e.CI95)
			}
			byage = append(byage, ser)
		}
	}
	return NewSizesData(n, load, jobs, reps, byscv, byage)
}

var policyLabel = map[string]string{
	"random": "random", "rr": "round robin", "jsqd:2": "best of two", "jsq": "least loaded",
	"board-jsqd:2": "best of two, board", "board-jsq": "least loaded, board",
}

// SizesFigure draws, side by side, the mean time in system against the
// SCV (FCFS solid markers, PS open) and against the board age T (PS).
func SizesFigure(d *SizesData) (*Figure, error) {
	left := newPlot(fmt.Sprintf("Size spread, N = %d, λ = %g (simulation, 95%% CI)", d.N, d.Load),
		"squared coefficient of variation of the job size", "mean time in system (service times)")
	right := newPlot("Stale boards under processor sharing",
		"board age T (refresh period, service times)", "mean time in system (service times)")
	for _, p := range []*plot.Plot{left, right} {
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		p.Legend.Left = true
	}
	// Colour and marker by policy; PS dashed with open markers.
	for i, s := range d.BySCV {
		style := i % 4
		name := fmt.Sprintf("%s, %s", policyLabel[s.Policy], s.Discipline)
		l, err := addLine(left, "", style, s.X, s.Mean)
		if err != nil {
			return nil, err
		}
		sc, err := addPoints(left, name, style, s.X, s.Mean, s.CI95)
		if err != nil {
			return nil, err
		}
		if s.Discipline == "ps" {
			l.Dashes = dashes[1]
			sc.Shape = draw.RingGlyph{}
		} else {
			l.Dashes = nil
			sc.Shape = draw.CircleGlyph{}
		}
	}
	for i, s := range d.ByAge {
		name := fmt.Sprintf("%s, %s sizes", policyLabel[s.Policy], s.Sizes)
		if _, err := addLine(right, "", i+1, s.X, s.Mean); err != nil {
			return nil, err
		}
		if _, err := addPoints(right, name, i+1, s.X, s.Mean, s.CI95); err != nil {
			return nil, err
		}
	}
	return sideBySide("sizes", 32*vg.Centimeter, 14*vg.Centimeter, left, right), nil
}
