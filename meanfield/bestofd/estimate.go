package bestofd

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// updateSeconds is the CPU time of one state update: 5.7–6.3 ns in
// BenchmarkPeriodMap (best of two, T = 100: exponential, FCFS and PS with
// SCV 30), 4–10 ns over whole attractors (less at long periods, whose
// steps are long).
const updateSeconds = 6e-9

// costPoint is the state updates of one period-map evaluation measured
// at a refresh period, averaged over the evaluations of an attractor
// (Attractor's Work/Evaluations) at λ = 0.9.
type costPoint struct{ T, updates float64 }

// costCurve is the measured cost of one kind of chain: best of two (d = 2)
// or least loaded (d = 0) with one discipline and SCV.
type costCurve struct {
	d          int
	discipline farm.Discipline // FCFS also stands for exponential sizes
	scv        float64
	points     []costPoint
}

// costCurves are the measurements behind EstimateWork (go test
// ./meanfield/bestofd -run TestEstimateWork -v logs the estimate against
// the counted work). With exponential sizes the discipline does not
// matter (one chain).
var costCurves = []costCurve{
	{2, farm.FCFS, 1, []costPoint{{25, 1.31e5}, {50, 4.2e5}, {100, 1.48e6}, {200, 5.89e6}, {400, 2.58e7}, {800, 1.19e8}}},
	{2, farm.FCFS, 4, []costPoint{{20, 5.62e5}, {100, 1.37e7}}},
	{2, farm.FCFS, 10, []costPoint{{20, 6.66e5}, {100, 1.69e7}, {200, 8.7e7}}},
	{2, farm.FCFS, 30, []costPoint{{20, 8.27e5}, {100, 2.04e7}, {200, 1.04e8}, {400, 5.97e8}}},
	{2, farm.PS, 4, []costPoint{{20, 2.23e6}, {50, 1.07e7}, {100, 3.8e7}, {200, 1.47e8}, {400, 6.41e8}}},
	{2, farm.PS, 10, []costPoint{{20, 1.58e6}, {100, 2.13e7}, {200, 7.46e7}}},
	{2, farm.PS, 30, []costPoint{{20, 1.07e6}, {100, 1.08e7}, {200, 3.29e7}, {400, 1.1e8}, {800, 4.06e8}}},
	// Least loaded: the lowest class receives every arrival, λT/P(B =
	// b_min) per server, and that class grows with T.
	{0, farm.FCFS, 1, []costPoint{{2, 1.65e3}, {5, 3.75e3}, {10, 3.41e4}, {20, 1.08e5}, {40, 6.66e5}, {100, 1.36e7}}},
	{0, farm.FCFS, 4, []costPoint{{5, 2.39e4}, {20, 2.12e5}}},
	{0, farm.FCFS, 30, []costPoint{{5, 1e4}, {20, 2.1e5}}},
	{0, farm.PS, 4, []costPoint{{2, 3.18e4}, {5, 7.66e4}, {10, 4.98e5}}},
	{0, farm.PS, 30, []costPoint{{5, 4.96e4}, {10, 2.86e5}, {20, 7.34e5}, {40, 2e6}}},
}

// The evaluations of an attractor: best of d settles in 26–42
// evaluations in the cases measured (67 with FCFS, SCV 30, T = 20); an
// orbit that does not settle runs 100 Anderson steps, the stability test
// and MaxIter periods.
const (
	evalsBestOfD  = 32
	evalsAnderson = 112
)

// EstimateWork estimates the state updates Attractor will spend on m
// with MaxIter periods of plain iteration (0: the default 2,000): the
// measured cost of one evaluation (evalCost), times the evaluations
// expected: 32 for best of d; for least loaded 112 + MaxIter, the cost of
// an orbit that does not settle (from T ≈ 5 on with exponential sizes;
// one that settles, as least loaded with PS servers and H2 sizes does up
// to T = 20 at least, takes 40–60 evaluations, so the estimate is then an
// upper bound). It is meant to be right within a factor of about 2,
// enough to refuse in advance what would take hours; Attractor's budget
// also stops a run that spends more.
func EstimateWork(m *PeriodicUpdate, maxIter int) float64 {
	if maxIter <= 0 {
		maxIter = 2000
	}
	per := evalCost(m)
	if m.D == 0 {
		return per * float64(evalsAnderson+maxIter)
	}
	return per * evalsBestOfD
}

// evalCost is the state updates of one evaluation of m's period map: the
// measured cost (costCurves), interpolated as a power
// law in T between the measured periods and in log SCV between the
// measured SCVs (H2 below SCV 4 costs as SCV 4: the giants are many),
// and extrapolated beyond the longest measured period with the last
// measured exponent plus 0.25 (it grows by about 0.15 per doubling of T,
// 1.7 at T = 50 to 2.2 at T = 800 with exponential sizes). Best of d > 2
// costs as best of two; the measurements are at λ = 0.9.
func evalCost(m *PeriodicUpdate) float64 {
	scv, err := scvOf(m.Sizes)
	if err != nil || !(m.Period > 0) {
		return math.NaN()
	}
	d, disc := 2, m.Discipline
	if m.D == 0 {
		d = 0
	}
	if scv == 1 {
		disc = farm.FCFS
	} else {
		scv = math.Max(scv, 4)
	}
	var lower, upper *costCurve // the nearest measured SCVs around scv
	for i := range costCurves {
		c := &costCurves[i]
		if c.d != d || c.discipline != disc || (scv > 1) != (c.scv > 1) {
			continue
		}
		if c.scv <= scv && (lower == nil || c.scv > lower.scv) {
			lower = c
		}
		if c.scv >= scv && (upper == nil || c.scv < upper.scv) {
			upper = c
		}
	}
	if lower == nil {
		lower = upper
	}
	if upper == nil {
		upper = lower
	}
	lw, uw := lower.at(m.Period), upper.at(m.Period)
	if upper.scv > lower.scv {
		f := math.Log(scv/lower.scv) / math.Log(upper.scv/lower.scv)
		return math.Exp((1-f)*math.Log(lw) + f*math.Log(uw))
	}
	return lw
}

// at interpolates the curve's cost per evaluation at period T.
func (c *costCurve) at(T float64) float64 {
	p := c.points
	slope := func(a, b costPoint) float64 { return math.Log(b.updates/a.updates) / math.Log(b.T/a.T) }
	switch {
	case T <= p[0].T:
		// Shorter periods: fewer steps and narrower classes, at least one
		// state update per step of the first class.
		s := 1.5
		if len(p) > 1 {
			s = slope(p[0], p[1])
		}
		return math.Max(p[0].updates*math.Pow(T/p[0].T, s), 100)
	case T >= p[len(p)-1].T:
		s := 2.0
		if len(p) > 1 {
			s = math.Min(slope(p[len(p)-2], p[len(p)-1])+0.25, 2.5)
		}
		last := p[len(p)-1]
		return last.updates * math.Pow(T/last.T, s)
	}
	for i := 1; i < len(p); i++ {
		if T <= p[i].T {
			return p[i-1].updates * math.Pow(T/p[i-1].T, slope(p[i-1], p[i]))
		}
	}
	return p[len(p)-1].updates
}
