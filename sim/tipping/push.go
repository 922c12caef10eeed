package tipping

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// PushModel is a farm pushed at one refresh period: the Model's servers
// and dispatchers at period Period, from the Model's Start, with a push
// of the family Push (its kind, fraction and refresh; the size is what
// SimulatePush varies).
type PushModel struct {
	Model
	Period float64
	Push   farm.Push
}

// PushSettings control SimulatePush. A nil pointer or a zero field means
// the documented default.
type PushSettings struct {
	// Sizes lists the push sizes to simulate, in units of T (b/T), each
	// resolved to round(b) jobs per server hit. Required.
	Sizes []float64
	// Reps is the number of runs per size. Default 16.
	Reps int
	// Horizon is the refresh periods a run lasts after the push (it stops
	// early once it has tipped). Default 40.
	Horizon int
	// Seed of the runs; size i uses Seed + i.
	Seed uint64
	// Run: as Settings.Run.
	outcome.Run
}

// PushCurve is the simulated probability that a push tips the farm
// within the horizon, against the push's size b/T, with the size where a
// logistic fit crosses ½ (the simulated critical push): Points hold the
// sizes in Scaled (b/T), increasing; Edge, EdgeLo and EdgeHi are the
// crossing and its 95% profile-likelihood interval in units of T. Status
// as Curve's, for a curve rising with the size.
type PushCurve struct {
	outcome.Outcome
	Model   PushModel
	Horizon int
	Points  []Point
	// Edge is b½/T with its interval; A and B the fit σ(A + B·x) in x = b/T.
	Edge, EdgeLo, EdgeHi float64
	A, B                 float64
	Separated            bool
}

// SimulatePush simulates the pushed farm at every size, Reps runs each
// for Horizon periods after the push, and fits the tipping probability.
func SimulatePush(m *PushModel, s *PushSettings) (*PushCurve, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if !(m.Period > 0) || !param.Finite(m.Period) {
		return nil, param.Errorf("Period", "T = %v, want a finite period > 0", m.Period)
	}
	if m.Push.IsZero() {
		return nil, param.Errorf("Push", "no push: give its kind")
	}
	var set PushSettings
	if s != nil {
		set = *s
	}
	set.Reps = param.Or(set.Reps, 16)
	set.Horizon = param.Or(set.Horizon, 40)
	if len(set.Sizes) == 0 {
		return nil, param.Errorf("Sizes", "no push sizes to simulate")
	}
	start := time.Now()
	out := &PushCurve{Outcome: outcome.Outcome{Status: outcome.NotSettled}, Model: *m, Horizon: set.Horizon}
	for i, x := range set.Sizes {
		if !(x > 0) || !param.Finite(x) {
			return nil, param.Errorf("Sizes", "b/T = %v, want a finite size > 0", x)
		}
		push := m.Push
		push.Jobs, push.PerPeriod = max(1, int(math.Round(x*m.Period))), 0
		res, err := sim.Run(&sim.Model{Servers: m.Servers, Load: m.Load, Dispatchers: m.Dispatchers, Policy: farm.Policy{Kind: farm.Tally}, Period: m.Period, Start: m.Start, Push: push},
			&sim.Settings{Horizon: push.At + set.Horizon, StopAtTip: true, Reps: set.Reps, Seed: set.Seed + uint64(i), Run: outcome.Run{Context: set.Context, Workers: set.Workers}})
		if err != nil {
			return nil, err
		}
		out.Evaluations += res.Evaluations
		if res.Status == outcome.Interrupted {
			out.Status = outcome.Interrupted
			out.Edge, out.EdgeLo, out.EdgeHi, out.A, out.B = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
			out.Elapsed = time.Since(start)
			return out, nil
		}
		p := Point{Scaled: float64(push.Jobs) / m.Period, Period: m.Period, Reps: set.Reps, Tipped: res.Tipped}
		for _, r := range res.Reps {
			if r.Tipped {
				p.MeanTipPeriod += float64(r.TippedAt-push.At) / float64(res.Tipped)
			}
		}
		p.Fraction = float64(p.Tipped) / float64(p.Reps)
		p.Lo, p.Hi = wilson(p.Tipped, p.Reps, 1.959963984540054)
		at := sort.Search(len(out.Points), func(j int) bool { return out.Points[j].Scaled > p.Scaled })
		out.Points = slices.Insert(out.Points, at, p)
		set.Report(int64(i+1), int64(len(set.Sizes)), "")
	}
	// The fit of a curve falling in −x is the fit of this one rising in x.
	mirror := &Curve{Outcome: outcome.Outcome{Status: outcome.NotSettled}}
	for j := len(out.Points) - 1; j >= 0; j-- {
		p := out.Points[j]
		p.Scaled = -p.Scaled
		mirror.Points = append(mirror.Points, p)
	}
	mirror.fit()
	out.Status, out.Separated = mirror.Status, mirror.Separated
	out.Edge, out.EdgeLo, out.EdgeHi = -mirror.Edge, -mirror.EdgeHi, -mirror.EdgeLo
	out.A, out.B = mirror.A, -mirror.B
	out.Elapsed = time.Since(start)
	return out, nil
}
