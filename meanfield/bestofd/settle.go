package bestofd

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
	"github.com/fluidlb/fluid/outcome"
)

// SettleSettings control Settle. A nil pointer or a zero field means the
// documented default.
type SettleSettings struct {
	// MaxQueue truncates the count. Default: the model's MaxQueue if set,
	// else the smallest M with λ^M ≤ TailTol (the tail of random dispatch,
	// which bounds best of d's with exponential sizes; give more for H2
	// sizes under FCFS, whose tails are heavier).
	MaxQueue int
	// Tol: settled when the drift's L1 norm is at most Tol. Default 1e-10.
	Tol float64
	// MaxTime bounds the time integrated. Default 1e5.
	MaxTime float64
}

// SettleResult is the long-time limit of the mean-field ODE. Its Status is
// Converged when the drift fell to Tol, NotSettled when MaxTime came
// first, or the integrator's failure; Evaluations counts the right-hand
// side's evaluations.
type SettleResult struct {
	outcome.Outcome
	// Dist is the count distribution P(count = n), n = 0..MaxQueue, at T.
	Dist     []float64
	MaxQueue int
	// T is the time reached and Drift the L1 norm of the drift there.
	T, Drift float64
	Stats    ode.Stats
}

// Settle integrates the mean-field ODE from the empty system until its
// drift is small: the long-time limit, an independent check of
// FixedPoint.
func Settle(m *Model, s *SettleSettings) (*SettleResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var set SettleSettings
	if s != nil {
		set = *s
	}
	set.Tol = param.Or(set.Tol, 1e-10)
	set.MaxTime = param.Or(set.MaxTime, 1e5)
	set.MaxQueue = param.Or(set.MaxQueue, m.MaxQueue)
	if set.MaxQueue == 0 {
		set.MaxQueue = min(max(int(math.Ceil(math.Log(m.tailTol())/math.Log(m.Load))), 16), maxQueue)
	}
	if set.MaxQueue < 2 || set.MaxQueue > maxQueue {
		return nil, param.Errorf("MaxQueue", "truncation %d, want 2..%d", set.MaxQueue, maxQueue)
	}
	if err := param.Positive("Tol", set.Tol); err != nil {
		return nil, err
	}
	if err := param.Positive("MaxTime", set.MaxTime); err != nil {
		return nil, err
	}
	M := set.MaxQueue
	ch := newServerChain(m.Discipline, m.scv(), M)
	q := make([]float64, M+1)
	a := make([]float64, M+1)
	x := make([]float64, ch.n)
	x[0] = 1
	it, err := ode.NewIntegrator(ode.Problem{Func: func(dx []float64, _ float64, x []float64) {
		m.drift(ch, dx, x, q, a)
	}}, ch.n, &ode.Settings{RTol: 1e-10, ATol: 1e-13})
	if err != nil {
		return nil, err
	}
	r, err := it.Settle(x, 0, &ode.SettleSettings{Tol: set.Tol, Norm: ode.L1Norm, MaxTime: set.MaxTime})
	if err != nil {
		return nil, err
	}
	out := &SettleResult{Outcome: r.Outcome, Dist: make([]float64, M+1), MaxQueue: M, T: r.T, Drift: r.Drift, Stats: r.Stats}
	ch.levelSums(out.Dist, x)
	return out, nil
}
