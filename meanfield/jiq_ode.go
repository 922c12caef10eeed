package meanfield

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
)

// JIQState is a point of the JIQ fluid limit. Per-dispatcher slices are in
// the order of JIQ.Alpha.
type JIQState struct {
	// Busy is the fraction of busy servers: x₀ (Blocking) or 1 − y₀
	// (Queueing). It is ignored on input for Queueing.
	Busy float64
	// Tokens are the tokens held per server, x_r.
	Tokens []float64
	// Occupancy is y_i, i = 0..len−1, the fraction of servers holding i
	// jobs (Queueing only; at most IMax+1 entries).
	Occupancy []float64
}

// JIQPoint is one output point of a trajectory. Its slices are scratch
// space, valid only during the output call.
type JIQPoint struct {
	T float64
	JIQState
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
	Dispatcher int  // index into JIQ.Alpha
	Empty      bool // true: pool emptied (sliding mode begins)
}

// TrajectorySettings control a trajectory. A nil pointer or zero field
// means the documented default.
type TrajectorySettings struct {
	// RTol and ATol are the integrator's tolerances. Defaults 1e-10, 1e-12.
	RTol, ATol float64
	// Times lists increasing output times in [0, until]. Empty means output
	// at t = 0 and after every accepted step.
	Times []float64
	// Output, if not nil, receives the trajectory. Returning an error stops
	// the integration and Trajectory returns it.
	Output func(p *JIQPoint) error
	// MaxSteps bounds the integrator's steps. Default 1,000,000.
	MaxSteps int
}

// TrajectoryResult summarises an integration of the fluid ODE.
type TrajectoryResult struct {
	T      float64    // time reached
	Final  JIQState   // state at T
	Status ode.Status // integrator status
	Stats  ode.Stats  // integrator work
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

// jiqSystem is the fluid ODE with an explicit mode per dispatcher: a
// dispatcher's pool is either non-empty (z_r = α_r·λ) or empty and held at
// zero (z_r = its token inflow, the sliding mode of SPEC §3.2/§3.3). The
// right-hand side is smooth within a mode; ode events switch the modes
// exactly where a pool empties (x_r falls through 0) or refills (the inflow
// rises through α_r·λ).
type jiqSystem struct {
	scen           Scenario
	alpha, beta    []float64
	lam, nu        float64
	R, imax, dim   int
	xoff           int // index of x_1 in the state vector
	empty          []bool
	switches       []Switch
	recordSwitches bool
}

func (m *JIQ) newSystem(imax int) *jiqSystem {
	s := &jiqSystem{
		scen:  m.Scenario,
		alpha: m.Alpha,
		beta:  m.beta(),
		lam:   m.Load,
		nu:    m.Exchange,
		R:     len(m.Alpha),
		imax:  imax,
		empty: make([]bool, len(m.Alpha)),
	}
	if s.scen == Blocking {
		s.xoff = 1
	} else {
		s.xoff = imax + 1
	}
	s.dim = s.xoff + s.R
	return s
}

// inflow is the rate at which dispatcher r receives tokens:
// β_r·x₀ + ν(1 − x₀)/R (Blocking) or β_r·y₁ + ν·y₀/R (Queueing).
func (s *jiqSystem) inflow(r int, y []float64) float64 {
	if s.scen == Blocking {
		return s.beta[r]*y[0] + s.nu*(1-y[0])/float64(s.R)
	}
	return s.beta[r]*y[1] + s.nu*y[0]/float64(s.R)
}

// usage returns z_r, the rate at which dispatcher r uses tokens.
func (s *jiqSystem) usage(r int, y []float64) float64 {
	if s.empty[r] {
		return s.inflow(r, y)
	}
	return s.alpha[r] * s.lam
}

func (s *jiqSystem) f(dy []float64, _ float64, y []float64) {
	if s.scen == Blocking {
		x0 := y[0]
		var sumz float64
		for r := 0; r < s.R; r++ {
			in := s.beta[r]*x0 + s.nu*(1-x0)/float64(s.R)
			if s.empty[r] {
				sumz += in
				dy[1+r] = 0
			} else {
				z := s.alpha[r] * s.lam
				sumz += z
				dy[1+r] = in - z - s.nu*y[1+r]
			}
		}
		dy[0] = sumz - x0
		return
	}
	M := s.imax
	var l1 float64
	for r := 0; r < s.R; r++ {
		l1 += s.usage(r, y)
	}
	l2 := s.lam - l1
	dy[0] = y[1] - l1 - l2*y[0]
	for i := 1; i < M; i++ {
		dy[i] = l2*y[i-1] + y[i+1] - (l2+1)*y[i]
	}
	// Reflecting truncation: a server at IMax receives no more jobs, so
	// Σ y_i = 1 is kept exactly.
	dy[M] = l2*y[M-1] - y[M]
	dy[1] += l1
	for r := 0; r < s.R; r++ {
		xi := s.xoff + r
		if s.empty[r] {
			dy[xi] = 0
		} else {
			dy[xi] = s.inflow(r, y) - s.alpha[r]*s.lam - (s.nu+l2)*y[xi]
		}
	}
}

// setModes sets each dispatcher's mode from a state: empty if its pool is
// zero and its inflow does not exceed its demand.
func (s *jiqSystem) setModes(y []float64) {
	for r := range s.empty {
		s.empty[r] = y[s.xoff+r] == 0 && s.inflow(r, y) <= s.alpha[r]*s.lam
	}
}

// events returns the 2R switching events.
func (s *jiqSystem) events() []ode.Event {
	evs := make([]ode.Event, 0, 2*s.R)
	for r := 0; r < s.R; r++ {
		xi := s.xoff + r
		evs = append(evs, ode.Event{
			// The pool empties: x_r falls through zero.
			G: func(_ float64, y []float64) float64 {
				if s.empty[r] {
					return 1
				}
				return y[xi]
			},
			Direction: ode.Falling,
			Handle: func(t float64, y []float64) ode.Action {
				if s.scen == Blocking {
					y[0] += y[xi] // keep x₀ + Σx_r = 1 exactly
				}
				y[xi] = 0
				if s.inflow(r, y) < s.alpha[r]*s.lam {
					s.empty[r] = true
					if s.recordSwitches {
						s.switches = append(s.switches, Switch{T: t, Dispatcher: r, Empty: true})
					}
				}
				return ode.Continue
			},
		}, ode.Event{
			// The pool refills: the inflow rises through the demand.
			G: func(_ float64, y []float64) float64 {
				if !s.empty[r] {
					return -1
				}
				return s.inflow(r, y) - s.alpha[r]*s.lam
			},
			Direction: ode.Rising,
			Handle: func(t float64, _ []float64) ode.Action {
				s.empty[r] = false
				if s.recordSwitches {
					s.switches = append(s.switches, Switch{T: t, Dispatcher: r, Empty: false})
				}
				return ode.Continue
			},
		})
	}
	return evs
}

// conservationError measures the invariants at state y.
func (s *jiqSystem) conservationError(y []float64) float64 {
	var sx float64
	for r := 0; r < s.R; r++ {
		sx += y[s.xoff+r]
	}
	if s.scen == Blocking {
		return math.Abs(y[0] + sx - 1)
	}
	var sy float64
	for i := 0; i <= s.imax; i++ {
		sy += y[i]
	}
	return math.Max(math.Abs(sy-1), math.Abs(sx-y[0]))
}

// point fills p from state y.
func (s *jiqSystem) point(p *JIQPoint, t float64, y []float64) {
	p.T = t
	p.Tokens = y[s.xoff : s.xoff+s.R]
	var sumz float64
	for r := 0; r < s.R; r++ {
		sumz += s.usage(r, y)
	}
	if s.scen == Blocking {
		p.Busy = y[0]
		p.Blocking = 1 - sumz/s.lam
		return
	}
	p.Occupancy = y[:s.imax+1]
	p.Busy = 1 - y[0]
	p.RandomRate = s.lam - sumz
	var mq float64
	for i := 1; i <= s.imax; i++ {
		mq += float64(i) * y[i]
	}
	p.MeanQueue = mq
}

// DefaultStart returns the empty system: every server idle, tokens placed
// according to β (x₀ = 0 or y₀ = 1, x_r = β_r).
func (m *JIQ) DefaultStart() JIQState {
	st := JIQState{Tokens: append([]float64(nil), m.beta()...)}
	if m.Scenario == Queueing {
		st.Occupancy = []float64{1}
	}
	return st
}

// stateVector validates init and writes it into a state vector for sys.
func (m *JIQ) stateVector(sys *jiqSystem, init *JIQState) ([]float64, error) {
	bad := func(format string, a ...any) error {
		return param.Errorf("init", format, a...)
	}
	if len(init.Tokens) != sys.R {
		return nil, bad("%d token entries for %d dispatchers", len(init.Tokens), sys.R)
	}
	y := make([]float64, sys.dim)
	check := func(what string, i int, v float64) error {
		if !finite(v) || v < 0 {
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
// choice (see JIQ.IMax), plus the highest occupied level of the start, so
// that a start with long queues has as much room above it as the
// stationary state needs.
func (m *JIQ) trajectoryIMax(init *JIQState) (int, error) {
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
func (m *JIQ) start(init *JIQState) (*jiqSystem, []float64, error) {
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

// Trajectory integrates the fluid ODE from init (nil: DefaultStart) over
// [0, until] and streams points to s.Output.
func (m *JIQ) Trajectory(init *JIQState, until float64, s *TrajectorySettings) (*TrajectoryResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if !finite(until) || until <= 0 {
		return nil, param.Errorf("until", "%v, want a finite time > 0", until)
	}
	var set TrajectorySettings
	if s != nil {
		set = *s
	}
	if set.RTol == 0 {
		set.RTol = 1e-10
	}
	if set.ATol == 0 {
		set.ATol = 1e-12
	}
	sys, y, err := m.start(init)
	if err != nil {
		return nil, err
	}
	sys.recordSwitches = true
	res := &TrajectoryResult{IMax: sys.imax}
	var pt JIQPoint
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
	r, err := integ.Solve(y, 0, until)
	res.T, res.Status, res.Stats, res.Switches = r.T, r.Status, r.Stats, sys.switches
	res.Final = sys.state(y)
	if err != nil {
		return res, err
	}
	return res, nil
}

// state copies a state vector into a JIQState.
func (s *jiqSystem) state(y []float64) JIQState {
	st := JIQState{Tokens: append([]float64(nil), y[s.xoff:s.xoff+s.R]...)}
	if s.scen == Blocking {
		st.Busy = y[0]
	} else {
		st.Occupancy = append([]float64(nil), y[:s.imax+1]...)
		st.Busy = 1 - y[0]
	}
	return st
}

// SettleResult is the long-time limit of the fluid ODE.
type SettleResult struct {
	State JIQState
	// T is the time at which the state was declared settled.
	T float64
	// Residual is max_i |dy_i/dt| at the settled state.
	Residual float64
	// Blocking (Blocking) and RandomRate (Queueing) at the settled state.
	Blocking, RandomRate float64
	Stats                ode.Stats
}

// Settle integrates the fluid ODE from init (nil: DefaultStart) until the
// right-hand side's largest component is at most tol·(1 + λ + ν) (default
// tol 1e-11), in chunks of doubling length, up to time maxT (default 1e6).
// It returns an error (naming the residual) if the state has not settled
// by maxT. The default tolerance sits a decade above the noise floor of
// the integration (it runs at rtol 1e-12, and near a fixed point an
// explicit method's steps grow to its stability limit, where the state
// jitters at the tolerance level); the distance to the fixed point is
// about the residual divided by the slowest decay rate.
func (m *JIQ) Settle(init *JIQState, tol, maxT float64) (*SettleResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if tol == 0 {
		tol = 1e-11
	}
	tol *= 1 + m.Load + m.Exchange
	if maxT == 0 {
		maxT = 1e6
	}
	sys, y, err := m.start(init)
	if err != nil {
		return nil, err
	}
	integ, err := ode.NewIntegrator(ode.Problem{Func: sys.f, Events: sys.events()}, sys.dim, &ode.Settings{RTol: 1e-12, ATol: 1e-14, MaxSteps: 10000000})
	if err != nil {
		return nil, err
	}
	dy := make([]float64, sys.dim)
	out := &SettleResult{}
	t, chunk := 0.0, 10.0
	for {
		r, err := integ.Solve(y, t, t+chunk)
		out.Stats.Steps += r.Stats.Steps
		out.Stats.Rejected += r.Stats.Rejected
		out.Stats.FuncEvals += r.Stats.FuncEvals
		out.Stats.Events += r.Stats.Events
		if err != nil {
			return nil, fmt.Errorf("meanfield: fluid ODE failed at t = %g: %w", r.T, err)
		}
		t += chunk
		sys.f(dy, t, y)
		var res float64
		for _, v := range dy {
			res = math.Max(res, math.Abs(v))
		}
		out.Residual = res
		if res <= tol {
			break
		}
		if t >= maxT {
			return nil, fmt.Errorf("meanfield: fluid ODE not settled by t = %g (largest |dy/dt| = %.3g > %g)", t, res, tol)
		}
		chunk = math.Min(2*chunk, maxT-t)
	}
	out.T = t
	out.State = sys.state(y)
	var pt JIQPoint
	sys.point(&pt, t, y)
	out.Blocking, out.RandomRate = pt.Blocking, pt.RandomRate
	if sys.scen == Queueing {
		out.Blocking = 0
	} else {
		out.RandomRate = 0
	}
	return out, nil
}
