package steadystate

import (
	"errors"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// drift is a series without a steady state: a linear trend through the
// whole run plus noise.
type drift struct {
	rate float64
	rng  interface{ NormFloat64() float64 }
}

func (p *drift) Fill(s *Series, n int64) {
	for s.Count() < n {
		s.Add(p.rate*float64(s.Count()) + p.rng.NormFloat64())
	}
}

// Each way a sequential run ends, on a process made for it.
func TestCheckStatuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		p      process
		budget int64
		want   outcome.Status
	}{
		// White noise of mean 100, sd 1000: precise at about
		// (1.96·1000·1.02/2)² ≈ 10⁶ observations.
		{"precision_reached", &iid{mu: 100, sigma: 1000, rng: newRand(10, 0)}, 0, PrecisionReached},
		// AR(1) of correlation time 2,000: at 10⁵ observations steady but
		// about 5 times too wide.
		{"budget_reached", &ar1{mu: 100, phi: 0.999, sigma: 1, x: 100, rng: newRand(10, 1)}, 100_000, BudgetReached},
		// A drift through the whole run.
		{"not_steady", &drift{rate: 1e-3, rng: newRand(10, 2)}, 200_000, NotSteady},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctl, err := NewController(&Settings{Budget: c.budget})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := sequential(t, c.p, 1, ctl)
			if d.Status != c.want {
				t.Fatalf("status %v, want %v: %+v", d.Status, c.want, d)
			}
			e := d.Estimates[0]
			switch c.want {
			case PrecisionReached:
				if !(e.HalfWidth <= 0.02/1.02*e.Mean) || !e.Steady || !e.Independent || d.Needed != 0 {
					t.Fatalf("stopped imprecise: %+v", e)
				}
			case BudgetReached:
				if d.Observations != c.budget || d.Needed <= c.budget || !e.Steady {
					t.Fatalf("%+v", d)
				}
			case NotSteady:
				if e.Steady || d.Needed < 2*d.Observations {
					t.Fatalf("%+v", d)
				}
			}
		})
	}
}

// The checks grow the run geometrically (1.25 to 4 times), never pass the
// budget, and a Check between them analyses nothing and repeats Next.
func TestCheckSchedule(t *testing.T) {
	const budget = 3_000_000
	ctl, _ := NewController(&Settings{Budget: budget})
	s, _ := NewSeries(1, nil)
	p := &ar1{mu: 100, phi: 0.999, sigma: 1, x: 0, rng: newRand(11, 0)}
	var last int64
	for {
		d := ctl.Check(s)
		if d.Stop() {
			break
		}
		n := d.Observations
		if d.Next > budget || d.Next <= n || (n > 0 && d.Next < min(n+n/4, budget)) || (n > 0 && d.Next > 4*n) {
			t.Fatalf("at %d: next %d", n, d.Next)
		}
		if n > 0 && n < last {
			t.Fatalf("went back from %d to %d", last, n)
		}
		last = n
		p.Fill(s, (n+d.Next)/2)
		if e := ctl.Check(s); e.Status != Running || e.Next != d.Next || e.Estimates != nil || e.Checks != d.Checks {
			t.Fatalf("a check before Next analysed: %+v", e)
		}
		p.Fill(s, d.Next)
	}
}

// Filling to Next in one go or in small chunks with a Check after each
// gives the same decisions: the result does not depend on the caller's
// chunks.
func TestCheckChunkIndependent(t *testing.T) {
	run := func(chunk int64) Decision {
		ctl, _ := NewController(nil)
		s, _ := NewSeries(1, nil)
		p := &iid{mu: 100, sigma: 1000, rng: newRand(12, 0)}
		for {
			d := ctl.Check(s)
			if d.Stop() {
				return d
			}
			p.Fill(s, min(s.Count()+chunk, d.Next))
		}
	}
	a, b := run(1<<40), run(65_536)
	if a.Observations != b.Observations || a.Checks != b.Checks || a.Estimates[0] != b.Estimates[0] {
		t.Fatalf("one go %+v, chunks %+v", a, b)
	}
}

// No stop before MinObservations, however precise.
func TestCheckMinObservations(t *testing.T) {
	ctl, _ := NewController(&Settings{MinObservations: 5_000_000})
	d, _ := sequential(t, &iid{mu: 100, sigma: 100, rng: newRand(13, 0)}, 1, ctl) // precise at ≈ 10⁴
	if d.Status != PrecisionReached || d.Observations < 5_000_000 {
		t.Fatalf("%+v", d)
	}
}

// Final never says Running.
func TestFinal(t *testing.T) {
	ctl, _ := NewController(nil)
	s, _ := NewSeries(1, nil)
	if d := ctl.Final(s); d.Status != NotSteady || len(d.Estimates) != 1 {
		t.Fatalf("empty: %+v", d)
	}
	(&iid{mu: 100, sigma: 1000, rng: newRand(14, 0)}).Fill(s, 20_000)
	if d := ctl.Final(s); d.Status != BudgetReached {
		t.Fatalf("short: %+v", d)
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, c := range []struct {
		s     Settings
		param string
	}{
		{Settings{Targets: make([]Quantity, MaxTargets+1)}, "Targets"},
		{Settings{Level: 1}, "Level"},
		{Settings{Level: -0.5}, "Level"},
		{Settings{Precision: 1}, "Precision"},
		{Settings{Precision: -1}, "Precision"},
		{Settings{AbsPrecision: -1}, "AbsPrecision"},
		{Settings{Budget: -1}, "Budget"},
		{Settings{MinObservations: -1}, "MinObservations"},
		{Settings{MaxBatches: 2}, "MaxBatches"},
		{Settings{MaxBatches: MaxBatchesBound + 1}, "MaxBatches"},
		{Settings{MinBatches: 128}, "MinBatches"},
		{Settings{TestLevel: 0.6}, "TestLevel"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := NewController(&c.s)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want one naming %s", err, c.param)
			}
		})
	}
	ctl, err := NewController(&Settings{Precision: -1, AbsPrecision: 0.1})
	if err != nil || ctl.Settings().Precision != -1 || ctl.Settings().Level != DefaultLevel {
		t.Fatalf("absolute precision only: %v %+v", err, ctl)
	}
}
