package outcome

import (
	"errors"
	"fmt"
)

// Status says how a computation ended.
//
// Statuses fall into three groups. Success: the computation delivered the
// answer it was asked for (OK reports true). Limits: it ran to a limit of
// its own or of its settings without the answer (iterations, steps, run
// length, a search range). Failures: it could not go on (non-finite values,
// a singular step, a result that failed its invariants) or was interrupted.
// Status.Err is nil exactly for the successes.
type Status int

const (
	// NotTerminated: the computation has not run.
	NotTerminated Status = iota

	// Converged: the computation met its tolerance (an iteration its
	// residual, an integration its end time within the integrator's
	// tolerances, a search its bracket, a sequential simulation its
	// precision target).
	Converged
	// Exact: a closed form or an exact finite computation (a product form,
	// a linear solve): there is no tolerance to meet.
	Exact
	// Completed: a computation of fixed length ran to its end (a
	// simulation of a given number of jobs); no convergence was asked for.
	Completed
	// FixedPoint: the iterates of a map converge to a fixed point.
	FixedPoint
	// Cycle: the iterates of a map settle on a cycle of period ≥ 2.
	Cycle
	// EdgeFound: an edge search bracketed the edge.
	EdgeFound
	// NoEdge: an edge search established that there is no edge down to the
	// bottom of its range (the state it follows survives everywhere).
	NoEdge
	// EventStop: an integration was stopped on purpose by one of its
	// events.
	EventStop
	// OutputStop: an integration was stopped on purpose by its output
	// function.
	OutputStop
	// PrecisionReached: a steady-state simulation found its steady state
	// and its confidence intervals met their precision (a sequential run
	// stopped there, or a run of fixed length happened to meet it).
	PrecisionReached

	// NotSettled: an iteration or integration ran to its limit without
	// settling on a fixed point, a cycle or a steady state.
	NotSettled
	// NotConverged: a sequential computation spent its budget without
	// meeting its precision target.
	NotConverged
	// IterationLimit: an iterative solve used its iterations without
	// meeting its tolerance.
	IterationLimit
	// StepLimit: an integration used its steps before its end time.
	StepLimit
	// TruncationLimit: the largest allowed truncation still cut off more
	// mass than its tolerance.
	TruncationLimit
	// AboveRange: the answer lies above the range searched (a finite-N
	// edge where the system tips even at the top of the range).
	AboveRange
	// BudgetReached: a steady-state simulation spent its budget (or its
	// fixed length) without meeting its precision: its estimates are
	// steady-state estimates, with intervals wider than asked for.
	BudgetReached
	// NotSteady: a steady-state simulation found no steady state inside
	// its run (the transient it detected lasts more than half of it): it
	// has no steady-state estimate to give.
	NotSteady

	// Diverged: the residual grew without bound.
	Diverged
	// NonFinite: a NaN or ±Inf appeared.
	NonFinite
	// Stalled: the computation stopped making progress.
	Stalled
	// OutOfDomain: an iterate left the model's domain (for instance a
	// distribution that outgrew its support).
	OutOfDomain
	// StepSizeUnderflow: an integration's step size fell below the
	// resolution of time (a stiff or discontinuous problem).
	StepSizeUnderflow
	// EventLoop: an integration's events kept firing at the same instant.
	EventLoop
	// Interrupted: the computation's context was cancelled; the result
	// holds the work finished before it.
	Interrupted
	// InvalidResult: the computation ended but its result failed one of
	// its physical invariants (a probability outside [0, 1], a negative
	// wait, …): the numbers must not be used.
	InvalidResult

	numStatuses
)

// names are the statuses as JSON writes them.
var names = [numStatuses]string{
	NotTerminated:     "not_terminated",
	Converged:         "converged",
	Exact:             "exact",
	Completed:         "completed",
	FixedPoint:        "fixed_point",
	Cycle:             "cycle",
	EdgeFound:         "edge",
	NoEdge:            "no_edge",
	EventStop:         "event_stop",
	OutputStop:        "output_stop",
	PrecisionReached:  "precision_reached",
	NotSettled:        "not_settled",
	NotConverged:      "not_converged",
	IterationLimit:    "iteration_limit",
	StepLimit:         "step_limit",
	TruncationLimit:   "truncation_limit",
	AboveRange:        "above_range",
	BudgetReached:     "budget_reached",
	NotSteady:         "not_steady",
	Diverged:          "diverged",
	NonFinite:         "non_finite",
	Stalled:           "stalled",
	OutOfDomain:       "out_of_domain",
	StepSizeUnderflow: "step_size_underflow",
	EventLoop:         "event_loop",
	Interrupted:       "interrupted",
	InvalidResult:     "invalid_result",
}

// words are the statuses in words, for messages.
var words = [numStatuses]string{
	NotTerminated:     "not terminated",
	Converged:         "converged",
	Exact:             "exact",
	Completed:         "completed",
	FixedPoint:        "fixed point",
	Cycle:             "cycle",
	EdgeFound:         "edge found",
	NoEdge:            "no edge",
	EventStop:         "stopped by an event",
	OutputStop:        "stopped by the output",
	PrecisionReached:  "precision reached",
	NotSettled:        "not settled",
	NotConverged:      "not converged",
	IterationLimit:    "iteration limit",
	StepLimit:         "step limit",
	TruncationLimit:   "truncation limit",
	AboveRange:        "above the range searched",
	BudgetReached:     "budget reached",
	NotSteady:         "not steady",
	Diverged:          "diverged",
	NonFinite:         "non-finite value",
	Stalled:           "stalled",
	OutOfDomain:       "out of domain",
	StepSizeUnderflow: "step size underflow",
	EventLoop:         "event loop",
	Interrupted:       "interrupted",
	InvalidResult:     "invalid result",
}

// Valid reports whether s is one of the declared statuses.
func (s Status) Valid() bool { return s >= 0 && s < numStatuses }

// String gives the status in words ("not settled").
func (s Status) String() string {
	if s.Valid() {
		return words[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Name gives the status as the one snake_case word JSON carries
// ("not_settled").
func (s Status) Name() string {
	if s.Valid() {
		return names[s]
	}
	return fmt.Sprintf("status_%d", int(s))
}

// MarshalText gives Name; an undeclared status is an error.
func (s Status) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("outcome: unknown status %d", int(s))
	}
	return []byte(names[s]), nil
}

// UnmarshalText reads the form MarshalText writes.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range names {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("outcome: unknown status %q", b)
}

// OK reports whether the computation delivered its answer: Converged,
// Exact, Completed, FixedPoint, Cycle, EdgeFound, NoEdge, EventStop,
// OutputStop and PrecisionReached.
func (s Status) OK() bool { return s >= Converged && s <= PrecisionReached }

// Limit reports whether the computation stopped at a limit without its
// answer (NotSettled … NotSteady): more iterations, steps, run length or a
// wider range might give it.
func (s Status) Limit() bool { return s >= NotSettled && s <= NotSteady }

// Err returns nil when OK and a *StatusError otherwise.
func (s Status) Err() error {
	if s.OK() {
		return nil
	}
	return &StatusError{Status: s}
}

// StatusError is the error of a computation that ended without its answer.
type StatusError struct{ Status Status }

func (e *StatusError) Error() string { return "computation ended: " + e.Status.String() }

// ErrNotOK matches (with errors.Is) every *StatusError.
var ErrNotOK = errors.New("computation did not deliver its answer")

// Is makes errors.Is(err, ErrNotOK) true for every *StatusError.
func (e *StatusError) Is(target error) bool { return target == ErrNotOK }
