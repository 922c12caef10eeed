// Package solver is the contract every model solver in fluid follows, in
// the shape of gonum's optimize: a model is a struct with a Validate
// method; each entry point takes the model and one *Settings (nil means
// the documented defaults) and returns a *Result whose Status says how the
// computation ended. A returned error means the computation could not run
// (an invalid model or setting, named by its struct field); a computation
// that ran but did not converge is never an error: it is a Status whose
// Err method describes the failure.
//
// The models the solvers compute are written out in docs/models.md.
//
// Status is the one vocabulary for how a solve ended, whichever model and
// numerical method produced it; its text form (snake_case words such as
// converged and not_settled) is what JSON output carries.
package solver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/ode"
)

// Status says how a solve ended.
type Status int

const (
	// NotTerminated: the solve has not run.
	NotTerminated Status = iota
	// Converged: the solve met its tolerance (a closed form or an exact
	// computation always does; an integration reached its end time within
	// the integrator's tolerances; an attractor was found).
	Converged
	// NotSettled: iteration or integration ran to its limit without
	// settling on a fixed point, a cycle or a steady state.
	NotSettled
	// IterationLimit: an iterative solve used its iterations without
	// meeting its tolerance.
	IterationLimit
	// Diverged: the residual grew without bound.
	Diverged
	// NonFinite: a NaN or ±Inf appeared.
	NonFinite
	// Stalled: the solve stopped making progress.
	Stalled
	// OutOfDomain: an iterate left the model's domain (for instance a
	// distribution that outgrew its support).
	OutOfDomain
	// StepLimit: an integration used its steps before its end time.
	StepLimit
	// StepSizeUnderflow: an integration's step size fell below the
	// resolution of time (a stiff or discontinuous problem).
	StepSizeUnderflow
	// TruncationLimit: the largest allowed truncation still cut off more
	// mass than its tolerance.
	TruncationLimit
)

var statusNames = [...]string{
	NotTerminated:     "not terminated",
	Converged:         "converged",
	NotSettled:        "not settled",
	IterationLimit:    "iteration limit",
	Diverged:          "diverged",
	NonFinite:         "non-finite",
	Stalled:           "stalled",
	OutOfDomain:       "out of domain",
	StepLimit:         "step limit",
	StepSizeUnderflow: "step size underflow",
	TruncationLimit:   "truncation limit",
}

// String gives the status in words ("not settled").
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// MarshalText gives the status as one snake_case word ("not_settled"),
// the form JSON output carries.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("solver: unknown status %d", int(s))
	}
	return []byte(strings.ReplaceAll(s.String(), " ", "_")), nil
}

// UnmarshalText reads the form MarshalText writes.
func (s *Status) UnmarshalText(b []byte) error {
	for i := range statusNames {
		if t, _ := Status(i).MarshalText(); string(t) == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("solver: unknown status %q", b)
}

// OK reports whether the solve converged.
func (s Status) OK() bool { return s == Converged }

// Err returns nil for Converged and an error describing the failure
// otherwise.
func (s Status) Err() error {
	if s == Converged {
		return nil
	}
	return &StatusError{Status: s}
}

// StatusError is the error of a solve that did not converge.
type StatusError struct{ Status Status }

func (e *StatusError) Error() string { return "solve ended: " + e.Status.String() }

// ErrNotConverged matches (with errors.Is) every StatusError.
var ErrNotConverged = errors.New("solve did not converge")

// Is makes errors.Is(err, ErrNotConverged) true for every StatusError.
func (e *StatusError) Is(target error) bool { return target == ErrNotConverged }

// FromFixedPoint translates the status of a fixedpoint solve.
func FromFixedPoint(s fixedpoint.Status) Status {
	switch s {
	case fixedpoint.Converged:
		return Converged
	case fixedpoint.IterationLimit:
		return IterationLimit
	case fixedpoint.Diverged:
		return Diverged
	case fixedpoint.NonFinite:
		return NonFinite
	case fixedpoint.Stalled:
		return Stalled
	case fixedpoint.OutOfDomain:
		return OutOfDomain
	}
	return NotTerminated
}

// FromODE translates the status of an integration: reaching the end time
// (or an event or output function stopping it on purpose) is Converged.
func FromODE(s ode.Status) Status {
	switch s {
	case ode.Success, ode.EventStop, ode.OutputStop:
		return Converged
	case ode.StepLimit:
		return StepLimit
	case ode.StepSizeUnderflow:
		return StepSizeUnderflow
	case ode.NonFinite:
		return NonFinite
	case ode.EventLoop:
		return Stalled
	}
	return NotTerminated
}

// FromSettle translates the outcome of ode.Integrator.Settle: Converged
// when the state settled, NotSettled when the time ran out first, and the
// integrator's failure otherwise. The error is passed on only when it is
// not the integration's own failure (then it is a bad setting, and the
// status is NotTerminated).
func FromSettle(r ode.SettleResult, err error) (Status, error) {
	switch {
	case err != nil && (r.Status == ode.NotTerminated || r.Status.Err() == nil):
		return NotTerminated, err
	case err != nil:
		return FromODE(r.Status), nil
	case !r.Settled:
		return NotSettled, nil
	}
	return Converged, nil
}
