package jiq

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
	"github.com/fluidlb/fluid/outcome"
)

// State is a point of the fluid limit. Per-dispatcher slices are in the
// order of Model.Alpha.
type State struct {
	// Busy is the fraction of busy servers: x₀ (Blocking) or 1 − y₀
	// (Queueing). It is ignored on input for Queueing.
	Busy float64
	// Tokens are the tokens held per server, x_r.
	Tokens []float64
	// Occupancy is y_i, i = 0..len−1, the fraction of servers holding i
	// jobs (Queueing only; at most IMax+1 entries).
	Occupancy []float64
}

// Point is one output point of a trajectory. Its slices are scratch
// space, valid only during the output call.
type Point struct {
	T float64
	State
	// Blocking is the instantaneous blocking probability 1 − Σ_r z_r/λ
	// (Blocking scenario).
	Blocking float64
	// RandomRate is λ₂(t), the rate per server of jobs forwarded to random
	// servers (Queueing scenario).
	RandomRate float64
	// MeanQueue is Σ_i i·y_i (Queueing scenario).
	MeanQueue float64
}

// Switch records a dispatcher's token pool emptying or refilling.
type Switch struct {
	T          float64
	Dispatcher int  // index into Model.Alpha
	Empty      bool // true: pool emptied (sliding mode begins)
}

// TrajectorySettings control Trajectory. A nil pointer or zero field means
// the documented default.
type TrajectorySettings struct {
	// Start is the state at t = 0. Default: DefaultStart.
	Start *State
	// Until is the end time. Default 20 mean service times.
	Until float64
	// RTol and ATol are the integrator's tolerances. Defaults 1e-10, 1e-12.
	RTol, ATol float64
	// Times lists increasing output times in [0, Until]. Empty means output
	// at t = 0 and after every accepted step.
	Times []float64
	// Output, if not nil, receives the trajectory. Returning an error stops
	// the integration and Trajectory returns it.
	Output func(p *Point) error
	// MaxSteps bounds the integrator's steps. Default 1,000,000.
	MaxSteps int
}

// TrajectoryResult summarises an integration of the fluid ODE.
//
// Its Status is Converged when the integration reached Until, OutputStop
// when the output function stopped it (Trajectory then returns the
// function's error too), and the integrator's failure otherwise (step
// limit, step size underflow, non-finite values); Evaluations counts the
// right-hand side's evaluations.
type TrajectoryResult struct {
	outcome.Outcome
	T     float64   // time reached
	Final State     // state at T
	Stats ode.Stats // integrator work
	// Switches lists the token-pool switches, in time order.
	Switches []Switch
	// ConservationError is the largest violation, over all accepted steps,
	// of x₀ + Σx_r = 1 (Blocking) or of Σy_i = 1 and Σx_r = y₀ (Queueing).
	ConservationError float64
	// BoundaryMass is the largest y_IMax seen at a step end (Queueing): the
	// mass pressed against the truncation.
	BoundaryMass float64
	// IMax is the truncation used (Queueing).
	IMax int
}

// DefaultStart returns the empty system: every server idle, tokens placed
// according to β (x₀ = 0 or y₀ = 1, x_r = β_r).
func (m *Model) DefaultStart() State {
	st := State{Tokens: append([]float64(nil), m.beta()...)}
	if m.Scenario == Queueing {
		st.Occupancy = []float64{1}
	}
	return st
}

// stateVector validates init and writes it into a state vector for sys.
func (m *Model) stateVector(sys *jiqSystem, init *State) ([]float64, error) {
	bad := func(format string, a ...any) error {
		return param.Errorf("Start", format, a...)
	}
	if len(init.Tokens) != sys.R {
		return nil, bad("%d token entries for %d dispatchers", len(init.Tokens), sys.R)
	}
	y := make([]float64, sys.dim)
	check := func(what string, i int, v float64) error {
		if !param.Finite(v) || v < 0 {
			return bad("%s %d is %v, want a finite number ≥ 0", what, i, v)
		}
		return nil
	}
	var sx float64
	for r, v := range init.Tokens {
		if err := check("token share", r+1, v); err != nil {
			return nil, err
		}
		y[sys.xoff+r] = v
		sx += v
	}
	if sys.scen == Blocking {
		if err := check("busy fraction", 0, init.Busy); err != nil {
			return nil, err
		}
		y[0] = init.Busy
		if e := math.Abs(init.Busy + sx - 1); e > sumTol {
			return nil, bad("busy fraction plus tokens is %.12g, want 1", init.Busy+sx)
		}
		return y, nil
	}
	if len(init.Occupancy) == 0 || len(init.Occupancy) > sys.imax+1 {
		return nil, bad("%d occupancy levels, want 1..%d (imax+1)", len(init.Occupancy), sys.imax+1)
	}
	var sy float64
	for i, v := range init.Occupancy {
		if err := check("occupancy level", i, v); err != nil {
			return nil, err
		}
		y[i] = v
		sy += v
	}
	if math.Abs(sy-1) > sumTol {
		return nil, bad("occupancy sums to %.12g, want 1", sy)
	}
	if math.Abs(sx-y[0]) > sumTol {
		return nil, bad("tokens sum to %.12g but the idle fraction y₀ is %.12g: every idle server holds one token", sx, y[0])
	}
	return y, nil
}

// trajectoryIMax picks the truncation for a trajectory: the stationary
// choice (see Model.IMax), plus the highest occupied level of the start, so
// that a start with long queues has as much room above it as the
// stationary state needs.
func (m *Model) trajectoryIMax(init *State) (int, error) {
	if m.Scenario != Queueing {
		return 0, nil
	}
	if m.IMax > 0 {
		return m.IMax, nil
	}
	lim, err := m.queueingLimit()
	if err != nil {
		return 0, err
	}
	top := 0
	if init != nil {
		for i, v := range init.Occupancy {
			if v != 0 {
				top = i
			}
		}
	}
	return lim.IMax + top, nil
}

// start builds the system and its state vector from init (nil:
// DefaultStart), with the truncation chosen for it and each dispatcher's
// mode set from the state.
func (m *Model) start(init *State) (*jiqSystem, []float64, error) {
	if init == nil {
		st := m.DefaultStart()
		init = &st
	}
	imax, err := m.trajectoryIMax(init)
	if err != nil {
		return nil, nil, err
	}
	sys := m.newSystem(imax)
	y, err := m.stateVector(sys, init)
	if err != nil {
		return nil, nil, err
	}
	sys.setModes(y)
	return sys, y, nil
}

// Trajectory integrates the fluid ODE from the start over [0, Until] and
// streams points to Output.
func Trajectory(m *Model, s *TrajectorySettings) (*TrajectoryResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var set TrajectorySettings
	if s != nil {
		set = *s
	}
	if set.Until == 0 {
		set.Until = 20
	}
	if !param.Finite(set.Until) || set.Until <= 0 {
		return nil, param.Errorf("Until", "%v, want a finite time > 0", set.Until)
	}
	if set.RTol == 0 {
		set.RTol = 1e-10
	}
	if set.ATol == 0 {
		set.ATol = 1e-12
	}
	sys, y, err := m.start(set.Start)
	if err != nil {
		return nil, err
	}
	sys.recordSwitches = true
	res := &TrajectoryResult{IMax: sys.imax}
	var pt Point
	monitor := func(_ float64, y []float64) error {
		res.ConservationError = math.Max(res.ConservationError, sys.conservationError(y))
		if sys.scen == Queueing {
			res.BoundaryMass = math.Max(res.BoundaryMass, y[sys.imax])
		}
		return nil
	}
	settings := &ode.Settings{RTol: set.RTol, ATol: set.ATol, OutputTimes: set.Times, MaxSteps: set.MaxSteps, Step: monitor}
	if set.Output != nil {
		settings.Output = func(t float64, y []float64) error {
			sys.point(&pt, t, y)
			return set.Output(&pt)
		}
	}
	integ, err := ode.NewIntegrator(ode.Problem{Func: sys.f, Events: sys.events()}, sys.dim, settings)
	if err != nil {
		return nil, err
	}
	if err := monitor(0, y); err != nil {
		return nil, err
	}
	r, err := integ.Solve(y, 0, set.Until)
	res.Outcome, res.T, res.Stats, res.Switches = r.Outcome, r.T, r.Stats, sys.switches
	res.Final = sys.state(y)
	if err != nil {
		// Not the integrator's failure (that is the Status): invalid output
		// times, or the output function's own error.
		return res, err
	}
	return res, nil
}
