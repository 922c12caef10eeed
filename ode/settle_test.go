package ode

import (
	"fmt"
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// y' = −y from 1 settles once e^{−t} ≤ Tol: with doubling stretches
// 10, 20, 40, … the checks fall at t = 10, 30, 70; Tol 1e-10 (reached at
// t ≈ 23.03) is first met at t = 30, where y = e^{−30} to the integrator's
// tolerance.
func TestSettleExponentialDecay(t *testing.T) {
	it, err := NewIntegrator(Problem{Func: func(dy []float64, _ float64, y []float64) { dy[0] = -y[0] }}, 1, &Settings{RTol: 1e-10, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1}
	r, err := it.Settle(y, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != outcome.Converged || r.T != 30 || r.Drift != math.Abs(y[0]) {
		t.Errorf("%v at t = %v, drift %v", r.Status, r.T, r.Drift)
	}
	// Ten times the integrator's RTol, and its ATol.
	approx.Check(t, "y(30)", y[0], math.Exp(-30), 1e-14, 1e-9)
	if r.Stats.Steps == 0 || r.Stats.FuncEvals < 6*r.Stats.Steps || r.Evaluations != r.Stats.FuncEvals+3 {
		t.Errorf("stats not accumulated: %+v", r.Stats)
	}
	// Fixed stretches of 5 under the L1 norm, and a time limit that comes
	// first: not settled, no error, y at the limit.
	y = []float64{1}
	r, err = it.Settle(y, 0, &SettleSettings{Tol: 1e-10, Norm: L1Norm, Chunk: 5, Growth: 1, MaxTime: 12})
	if err != nil || r.Status != outcome.NotSettled || r.T != 12 {
		t.Errorf("limited run: %+v, err %v", r, err)
	}
	approx.Check(t, "y(12)", y[0], math.Exp(-12), 0, 1e-9)
	// Already settled at the start: no integration.
	y = []float64{0}
	if r, err = it.Settle(y, 3, nil); err != nil || r.Status != outcome.Converged || r.T != 3 || r.Stats.Steps != 0 {
		t.Errorf("settled start: %+v, %v", r, err)
	}
	for _, bad := range []*SettleSettings{{Tol: -1}, {Growth: 0.5}, {MaxTime: math.Inf(1)}, {Norm: 7}} {
		t.Run(fmt.Sprintf("refuses %+v", *bad), func(t *testing.T) {
			if _, err := it.Settle([]float64{1}, 0, bad); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestStatsAdd(t *testing.T) {
	s := Stats{Steps: 2, FuncEvals: 13, MinStep: 0.5, LastStep: 0.5}
	s.Add(Stats{Steps: 3, Rejected: 1, FuncEvals: 19, Events: 2, MinStep: 0.1, LastStep: 0.3})
	if s != (Stats{Steps: 5, Rejected: 1, FuncEvals: 32, Events: 2, MinStep: 0.1, LastStep: 0.3}) {
		t.Errorf("%+v", s)
	}
	s.Add(Stats{})
	if s.LastStep != 0.3 || s.MinStep != 0.1 {
		t.Errorf("adding nothing changed %+v", s)
	}
}
