package ode

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/outcome"
)

// Func evaluates the right-hand side dy = f(t, y). It must write every
// element of dy and must not retain or modify y.
type Func func(dy []float64, t float64, y []float64)

// Direction selects which sign changes of an event function count.
type Direction int

const (
	// Any counts crossings in either direction.
	Any Direction = iota
	// Rising counts crossings from negative to positive.
	Rising
	// Falling counts crossings from positive to negative.
	Falling
)

// Action is returned by an event handler.
type Action int

const (
	// Continue resumes integration from the event.
	Continue Action = iota
	// Stop ends integration at the event with Status outcome.EventStop.
	Stop
)

// Event is a zero-crossing function located during integration.
type Event struct {
	// G is the event function g(t, y). It must be continuous in t along
	// a solution of the current right-hand side.
	G func(t float64, y []float64) float64
	// Direction selects the crossings that count. Default Any.
	Direction Direction
	// Handle, if not nil, is called at the located crossing with the state
	// there, which it may modify in place (for example to switch the
	// right-hand side, or to project onto a constraint). A nil Handle
	// means Stop.
	Handle func(t float64, y []float64) Action
}

// Problem is an initial value problem y' = f(t, y).
type Problem struct {
	// Func is the right-hand side. Required.
	Func Func
	// Events are located during integration; may be empty.
	Events []Event
}

// Settings control an integration. A nil *Settings or a zero field means
// the documented default.
type Settings struct {
	// RTol is the relative error tolerance per step. Default 1e-6.
	RTol float64
	// ATol is the absolute error tolerance per step. Default 1e-9.
	ATol float64
	// InitialStep is the size of the first step. Default: the
	// Hairer–Wanner starting-step heuristic.
	InitialStep float64
	// MaxStep bounds the step size. Default: |t1 − t0|.
	MaxStep float64
	// MaxSteps bounds the number of attempted steps. Default 1,000,000.
	MaxSteps int
	// FixedStep, if positive, disables error control: every step has this
	// size (the last one is clamped to end at t1). For convergence studies.
	FixedStep float64
	// EventTol is the relative accuracy of located event times: the
	// crossing is bracketed to within EventTol·(1 + |t|). Default 1e-13.
	EventTol float64
	// OutputTimes, if not empty, lists increasing times in [t0, t1] (in
	// the direction of integration) at which Output is called with the
	// dense-output state. If empty, Output is called at t0 and after every
	// accepted step.
	OutputTimes []float64
	// Output, if not nil, receives the solution. The slice y is scratch
	// space valid only during the call. A non-nil error stops the
	// integration and is returned by Solve.
	Output func(t float64, y []float64) error
	// Step, if not nil, is called after every accepted step (and after
	// every handled event) with the state there, whatever OutputTimes
	// say: for monitoring invariants or progress. The slice y must not be
	// modified. A non-nil error stops the integration as Output's does.
	Step func(t float64, y []float64) error
}

const (
	defaultRTol     = 1e-6
	defaultATol     = 1e-9
	defaultMaxSteps = 1000000
	defaultEventTol = 1e-13
)

func (s *Settings) withDefaults() (Settings, error) {
	var r Settings
	if s != nil {
		r = *s
	}
	check := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("ode: %s = %v, want a finite non-negative number", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"RTol", r.RTol}, {"ATol", r.ATol}, {"InitialStep", r.InitialStep}, {"MaxStep", r.MaxStep}, {"FixedStep", r.FixedStep}, {"EventTol", r.EventTol}} {
		if err := check(c.name, c.v); err != nil {
			return r, err
		}
	}
	if r.MaxSteps < 0 {
		return r, fmt.Errorf("ode: MaxSteps = %d, want non-negative", r.MaxSteps)
	}
	if r.RTol == 0 {
		r.RTol = defaultRTol
	}
	if r.ATol == 0 {
		r.ATol = defaultATol
	}
	if r.RTol < 1e-15 {
		return r, fmt.Errorf("ode: RTol = %g is below what double precision can deliver (1e-15)", r.RTol)
	}
	if r.MaxSteps == 0 {
		r.MaxSteps = defaultMaxSteps
	}
	if r.EventTol == 0 {
		r.EventTol = defaultEventTol
	}
	return r, nil
}

// Stats counts the work of an integration.
type Stats struct {
	Steps     int     // accepted steps
	Rejected  int     // rejected steps
	FuncEvals int     // evaluations of f
	Events    int     // events located and handled
	LastStep  float64 // size of the last accepted step
	MinStep   float64 // smallest accepted step size (absolute)
}

// EventRecord is an event located during integration.
type EventRecord struct {
	Index int     // index into Problem.Events
	T     float64 // time of the crossing
}

// Result is the outcome of an integration. Its Status is Converged when
// the integration reached its end time, EventStop or OutputStop when it was
// stopped on purpose, and StepLimit, StepSizeUnderflow, NonFinite or
// EventLoop when it failed; Evaluations counts the evaluations of f
// (Stats.FuncEvals).
type Result struct {
	outcome.Outcome
	T      float64       // time reached
	Y      []float64     // state at T
	Stats  Stats         // work done
	Events []EventRecord // events located, in order
}
