package bestofd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Stale best of two (Mitzenmacher's periodic update), T = 100, λ = 0.9,
// against the N = 100 simulations of "Sharing Servers Don't Mind the
// Giant": exponential sizes 21, PS with SCV 30 6.0. The mean field is the
// N → ∞ limit, so 5% and 10% (the study's points carry about 1% of
// sampling error; the rest is the finite-N gap, checked against
// simulation at N = 100…1,600 in package validate, case stale-board).
func TestPeriodicUpdate(t *testing.T) {
	t.Run("exp", func(t *testing.T) {
		exp, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, &AttractorSettings{MaxIter: 500})
		if err != nil {
			t.Fatal(err)
		}
		if exp.Status != outcome.FixedPoint || exp.Cycle != 1 || exp.Averaged != 1 {
			t.Errorf("%v, cycle %d, %d periods averaged", exp.Status, exp.Cycle, exp.Averaged)
		}
		approx.Check(t, "sojourn", exp.Sojourn, 21, 0, 0.05)
		approx.Within(t, "lost", exp.Lost, 0, 1e-5)
		// The board mean (a snapshot at the refresh) and the time-average
		// count agree within the growth of the queues over a period (20%).
		approx.Check(t, "board mean", exp.BoardMean, exp.MeanQueue, 0, 0.2)
		approx.Check(t, "Little's law", exp.MeanQueue, 0.9*exp.Sojourn, 0, 1e-15)
		approx.Check(t, "fixed point's spread", exp.Spread, 0, 0, 0)
		approx.Within(t, "work", exp.Work, 1, math.Inf(1))
	})
	t.Run("ps h2:30", func(t *testing.T) {
		if testing.Short() {
			t.Skip("about 2 s of CPU time")
		}
		ps, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(30)}, &AttractorSettings{MaxIter: 500})
		if err != nil {
			t.Fatal(err)
		}
		if ps.Status != outcome.FixedPoint {
			t.Errorf("%v", ps.Status)
		}
		approx.Check(t, "sojourn", ps.Sojourn, 6.0, 0, 0.1)
	})
}

func TestPeriodicUpdateBadInput(t *testing.T) {
	for _, c := range []struct {
		name, field string
		m           PeriodicUpdate
		s           AttractorSettings
	}{
		{"T = 0", "Period", PeriodicUpdate{D: 2, Load: 0.9, Period: 0}, AttractorSettings{}},
		{"T too long for the truncation", "Period", PeriodicUpdate{D: 2, Load: 0.9, Period: 50_000}, AttractorSettings{}},
		{"d < 0", "D", PeriodicUpdate{D: -1, Load: 0.9, Period: 1}, AttractorSettings{}},
		{"λ > 1", "Load", PeriodicUpdate{D: 2, Load: 1.2, Period: 1}, AttractorSettings{}},
		{"T infinite", "Period", PeriodicUpdate{D: 2, Load: 0.5, Period: math.Inf(1)}, AttractorSettings{}},
		{"MinClass 2", "MinClass", PeriodicUpdate{D: 2, Load: 0.5, Period: 1, MinClass: 2}, AttractorSettings{}},
		{"MinClass dust", "MinClass", PeriodicUpdate{D: 0, Load: 0.5, Period: 1, MinClass: 1e-20}, AttractorSettings{}},
		{"MaxIter < 0", "MaxIter", PeriodicUpdate{D: 2, Load: 0.9, Period: 1}, AttractorSettings{MaxIter: -1}},
		{"MaxWork NaN", "MaxWork", PeriodicUpdate{D: 2, Load: 0.9, Period: 1}, AttractorSettings{MaxWork: math.NaN()}},
		{"Window above MaxIter", "Window", PeriodicUpdate{D: 2, Load: 0.9, Period: 1}, AttractorSettings{MaxIter: 10, Window: 11}},
		{"Workers < 0", "Workers", PeriodicUpdate{D: 2, Load: 0.9, Period: 1}, AttractorSettings{Run: outcome.Run{Workers: -1}}},
		// Over the budget: refused before any work, naming the period.
		{"over the budget", "Period", PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, AttractorSettings{MaxWork: 1e3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Attractor(&c.m, &c.s)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.field {
				t.Errorf("%+v, %+v: %v, want a *param.Error naming %s", c.m, c.s, err, c.field)
			}
		})
	}
}

// The period map of least loaded evolves every class but the lowest as
// one vector (they receive no arrivals: one generator, a linear map).
// The previous implementation evolved each class on its own; the two must
// give the same next state (‖·‖₁ within 1e-13: both drop masses below
// 1e-18 at the edges, in different places) and mean count (1e-12
// relative), for every kind of chain.
func TestLeastLoadedAsOneVector(t *testing.T) {
	for _, c := range []struct {
		m    PeriodicUpdate
		M, J int
	}{
		{PeriodicUpdate{D: 0, Load: 0.9, Period: 6}, 120, 0},
		{PeriodicUpdate{D: 0, Load: 0.9, Period: 5, Discipline: farm.FCFS, Sizes: h2(10)}, 100, 0},
		{PeriodicUpdate{D: 0, Load: 0.9, Period: 5, Discipline: farm.PS, Sizes: h2(4)}, 80, 80},
	} {
		t.Run(fmt.Sprintf("%v %v", c.m.Discipline, c.m.Sizes), func(t *testing.T) {
			scv, _ := scvOf(c.m.Sizes)
			ch := newServerChain(c.m.Discipline, scv, c.M, c.J)
			pm, ref := newPeriodMap(&c.m, ch, 3), newRefPeriodMap(&c.m, ch)
			x := make([]float64, ch.n)
			x[ch.level[0][0]] = 1
			got, want := make([]float64, ch.n), make([]float64, ch.n)
			for it := range 8 {
				if err := pm.apply(got, x); err != nil {
					t.Fatal(err)
				}
				if err := ref.apply(want, x); err != nil {
					t.Fatal(err)
				}
				var d float64
				for i := range got {
					d += math.Abs(got[i] - want[i])
				}
				approx.Within(t, fmt.Sprintf("period %d: ‖Δ‖₁", it+1), d, 0, 1e-13)
				approx.Check(t, fmt.Sprintf("period %d: mean count", it+1), pm.meanQueue, ref.meanQueue, 0, 1e-12)
				copy(x, want)
			}
		})
	}
}

// The PS chain the period map builds without its transitions has the
// levels, state order and service rates of the full chain, bit for bit.
func TestPSLevels(t *testing.T) {
	for _, c := range []struct{ M, J int }{{40, 40}, {40, 7}, {3, 1}} {
		t.Run(fmt.Sprintf("M=%d J=%d", c.M, c.J), func(t *testing.T) {
			full, light := newServerChain(farm.PS, 10, c.M, c.J), newPSLevels(10, c.M, c.J)
			if light.n != full.n || *light.ps != *full.ps || len(light.level) != len(full.level) {
				t.Fatalf("%d states, %+v; full chain %d, %+v", light.n, *light.ps, full.n, *full.ps)
			}
			for n := range full.level {
				if fmt.Sprint(light.level[n]) != fmt.Sprint(full.level[n]) {
					t.Errorf("level %d: %v, full chain %v", n, light.level[n], full.level[n])
				}
			}
			for s := range full.n {
				if light.svcOut[s] != full.svcOut[s] {
					t.Errorf("state %d: service rate %v, full chain %v", s, light.svcOut[s], full.svcOut[s])
				}
			}
		})
	}
}

// An orbit that does not settle is reported as the average of its last
// Window periods with their spread, not as its last iterate. Least
// loaded with exponential sizes at T = 6 wanders aperiodically (its
// periods' mean times spread by about 0.5%); the average must be the
// mean of the last Window periods of plain iteration from the empty
// system, recomputed here by iterating the map directly (to 1e-12
// relative: the same arithmetic, summed in another order).
func TestNotSettledAverages(t *testing.T) {
	m := &PeriodicUpdate{D: 0, Load: 0.9, Period: 6}
	const iters, window = 400, 50
	res, err := Attractor(m, &AttractorSettings{MaxIter: iters, Window: window})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != outcome.NotSettled || res.Averaged != window || res.Cycle != 0 {
		t.Fatalf("%v, %d periods averaged, cycle %d", res.Status, res.Averaged, res.Cycle)
	}
	ch := newServerChain(farm.FCFS, 1, res.States-1)
	pm := newPeriodMap(m, ch, 1)
	x, next := make([]float64, ch.n), make([]float64, ch.n)
	x[0] = 1
	var sum, lo, hi float64 = 0, math.Inf(1), math.Inf(-1)
	var soj []float64
	for it := range iters {
		if err := pm.apply(next, x); err != nil {
			t.Fatal(err)
		}
		x, next = next, x
		if it >= iters-window {
			s := pm.meanQueue / m.Load
			soj = append(soj, s)
			sum += s
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	mean := sum / window
	var ss float64
	for _, s := range soj {
		ss += (s - mean) * (s - mean)
	}
	approx.Check(t, "sojourn", res.Sojourn, mean, 0, 1e-12)
	approx.Check(t, "min", res.Min, lo, 0, 1e-12)
	approx.Check(t, "max", res.Max, hi, 0, 1e-12)
	approx.Check(t, "spread", res.Spread, math.Sqrt(ss/(window-1)), 0, 1e-9)
	approx.Within(t, "spread relative to the mean", res.Spread/res.Sojourn, 1e-4, 0.05)
}

// A cancelled run ends Interrupted, without an error, keeping the counts
// of what it finished; a run that spends its work budget ends
// IterationLimit with the periods it iterated averaged.
func TestAttractorStops(t *testing.T) {
	m := &PeriodicUpdate{D: 0, Load: 0.9, Period: 6}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		calls := 0
		res, err := Attractor(m, &AttractorSettings{Run: outcome.Run{Context: ctx, Progress: func(done, total int64, note string) {
			mu.Lock()
			defer mu.Unlock()
			if calls++; calls == 150 {
				cancel()
			}
		}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != outcome.Interrupted || res.Evaluations != 150 || !(res.Sojourn > 1) {
			t.Errorf("%v after %d evaluations, sojourn %v", res.Status, res.Evaluations, res.Sojourn)
		}
	})
	t.Run("work budget", func(t *testing.T) {
		// Straight to one truncation's run, with a budget of 10⁶ state
		// updates (about 80 periods here) and no estimate to refuse it.
		set, err := (&AttractorSettings{MaxWork: 1e6}).defaults()
		if err != nil {
			t.Fatal(err)
		}
		res := m.attractor(newServerChain(farm.FCFS, 1, 80), &set, 0, 0)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if res.Status != outcome.IterationLimit || res.Averaged < 1 || !(res.Sojourn > 1) {
			t.Errorf("%v, %d periods averaged, sojourn %v", res.Status, res.Averaged, res.Sojourn)
		}
		// It stops at the first period that would start beyond the budget:
		// past it by less than one period's work.
		approx.Within(t, "work", res.Work, 1e6, 1e6+2*res.Work/float64(res.Evaluations))
	})
}

// The result does not depend on the number of workers, bit for bit.
func TestAttractorWorkers(t *testing.T) {
	for _, m := range []PeriodicUpdate{
		{D: 2, Load: 0.9, Period: 20, Discipline: farm.PS, Sizes: h2(4)},
		{D: 0, Load: 0.9, Period: 6},
	} {
		t.Run(fmt.Sprintf("d=%d %v %v", m.D, m.Discipline, m.Sizes), func(t *testing.T) {
			var got []*AttractorResult
			for _, w := range []int{1, 3, 8} {
				r, err := Attractor(&m, &AttractorSettings{MaxIter: 300, Run: outcome.Run{Workers: w}})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r)
			}
			for i, r := range got[1:] {
				if r.Sojourn != got[0].Sojourn || r.BoardMean != got[0].BoardMean || r.Evaluations != got[0].Evaluations || r.Work != got[0].Work {
					t.Errorf("workers %d: sojourn %v, board mean %v, %d evaluations, work %v; one worker: %v, %v, %d, %v", []int{3, 8}[i], r.Sojourn, r.BoardMean, r.Evaluations, r.Work, got[0].Sojourn, got[0].BoardMean, got[0].Evaluations, got[0].Work)
				}
			}
		})
	}
}

// The cost estimates against the state updates Attractor counts, on
// models that run in a fraction of a second each: the cost of one
// evaluation within a factor of 3 either way (the claim is a factor of
// about 2), and for best of d the whole estimate too; for least loaded,
// whose orbit may settle early, the estimate is an upper bound.
func TestEstimateWork(t *testing.T) {
	for _, m := range []PeriodicUpdate{
		{D: 2, Load: 0.9, Period: 30},
		{D: 3, Load: 0.9, Period: 30},
		{D: 2, Load: 0.9, Period: 30, Discipline: farm.FCFS, Sizes: h2(6)},
		{D: 2, Load: 0.9, Period: 15, Discipline: farm.PS, Sizes: h2(20)},
		{D: 2, Load: 0.9, Period: 10, Discipline: farm.PS, Sizes: h2(2)},
		{D: 0, Load: 0.9, Period: 3},
		{D: 0, Load: 0.9, Period: 7},
		{D: 0, Load: 0.9, Period: 8, Discipline: farm.PS, Sizes: h2(10)},
		{D: 0, Load: 0.9, Period: 8, Discipline: farm.FCFS, Sizes: h2(10)},
	} {
		t.Run(fmt.Sprintf("d=%d T=%v %v %v", m.D, m.Period, m.Discipline, m.Sizes), func(t *testing.T) {
			res, err := Attractor(&m, &AttractorSettings{MaxIter: 500})
			if err != nil {
				t.Fatal(err)
			}
			est, per := EstimateWork(&m, 500), res.Work/float64(res.Evaluations)
			t.Logf("%v after %d evaluations: %.3g state updates (%.3g each), estimated %.3g (%.3g each)", res.Status, res.Evaluations, res.Work, per, est, evalCost(&m))
			if res.Estimate != est {
				t.Errorf("the result's estimate %v, EstimateWork %v", res.Estimate, est)
			}
			approx.Within(t, "estimate / work, per evaluation", evalCost(&m)/per, 1.0/3, 3)
			if m.D > 0 {
				approx.Within(t, "estimate / work", est/res.Work, 1.0/3, 3)
			} else {
				approx.Within(t, "estimate / work", est/res.Work, 1.0/3, math.Inf(1))
			}
		})
	}
}

// The default window follows a short MaxIter.
func TestWindowDefault(t *testing.T) {
	res, err := Attractor(&PeriodicUpdate{D: 0, Load: 0.9, Period: 6}, &AttractorSettings{MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != outcome.NotSettled || res.Averaged != 30 {
		t.Errorf("%v, %d periods averaged", res.Status, res.Averaged)
	}
}
