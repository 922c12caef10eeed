package jiq

import (
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
	"github.com/fluidlb/fluid/outcome"
	"math"
)

// SettleSettings control Settle. A nil pointer or zero field means the
// documented default.
type SettleSettings struct {
	// Start is the state at t = 0. Default: DefaultStart.
	Start *State
	// Tol: the state has settled when the right-hand side's largest
	// component is at most Tol·(1 + λ + ν). Default 1e-11: a decade above
	// the noise floor of the integration (it runs at rtol 1e-12, and near a
	// fixed point an explicit method's steps grow to its stability limit,
	// where the state jitters at the tolerance level). The distance to the
	// fixed point is about the residual divided by the slowest decay rate.
	Tol float64
	// MaxTime bounds the time integrated. Default 10⁶ mean service times,
	// and 10⁶/λ when λ < 1: the token pools move at rate λ, so at light
	// load the limit is approached on a time scale of 1/λ (at λ = 10⁻⁶ the
	// check ended not settled at t = 10⁶ with a residual of 2·10⁻⁷).
	MaxTime float64
}

// SettleResult is the long-time limit of the fluid ODE. Its Status is
// Converged when the residual fell to the tolerance, NotSettled when
// MaxTime came first, or the integrator's failure; Evaluations counts the
// right-hand side's evaluations.
type SettleResult struct {
	outcome.Outcome
	State State
	// T is the time reached (where the state settled, if it did).
	T float64
	// Residual is max_i |dy_i/dt| at T.
	Residual float64
	// Blocking (Blocking) and RandomRate (Queueing) at T.
	Blocking, RandomRate float64
	Stats                ode.Stats
}

// MinSettleLoad is the lightest load Settle integrates to its limit.
const MinSettleLoad = 1e-4

// Settle integrates the fluid ODE from the start, in stretches of doubling
// length (10, 20, 40, …), until it has settled (see SettleSettings.Tol) or
// MaxTime has passed: an independent check of Limit.
func Settle(m *Model, s *SettleSettings) (*SettleResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Load < MinSettleLoad {
		return nil, param.Errorf("Load", "λ = %v, want λ ≥ %v for the ODE check (--verify): the token pools move at rate λ and the servers at rate 1, so settling takes about 10/λ of the integrator's steps (at λ = 10⁻⁹ it ran out of its 10⁷)", m.Load, MinSettleLoad)
	}
	var set SettleSettings
	if s != nil {
		set = *s
	}
	set.Tol = param.Or(set.Tol, 1e-11)
	set.MaxTime = param.Or(set.MaxTime, 1e6/math.Min(1, m.Load))
	if err := param.Positive("Tol", set.Tol); err != nil {
		return nil, err
	}
	if err := param.Positive("MaxTime", set.MaxTime); err != nil {
		return nil, err
	}
	sys, y, err := m.start(set.Start)
	if err != nil {
		return nil, err
	}
	integ, err := ode.NewIntegrator(ode.Problem{Func: sys.f, Events: sys.events()}, sys.dim, &ode.Settings{RTol: 1e-12, ATol: 1e-14, MaxSteps: 10000000})
	if err != nil {
		return nil, err
	}
	r, err := integ.Settle(y, 0, &ode.SettleSettings{Tol: set.Tol * (1 + m.Load + m.Exchange), MaxTime: set.MaxTime})
	if err != nil {
		return nil, err
	}
	out := &SettleResult{Outcome: r.Outcome, T: r.T, Residual: r.Drift, Stats: r.Stats, State: sys.state(y)}
	var pt Point
	sys.point(&pt, r.T, y)
	out.Blocking, out.RandomRate = pt.Blocking, pt.RandomRate
	if sys.scen == Queueing {
		out.Blocking = 0
	} else {
		out.RandomRate = 0
	}
	return out, nil
}
