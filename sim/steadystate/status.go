package steadystate

import (
	"fmt"

	"github.com/fluidlb/fluid/outcome"
)

// Status is how a sequential run stands after a Controller.Check.
type Status int

const (
	// Running: neither the precision nor the budget has been reached;
	// run on to Decision.Next observations.
	Running Status = iota
	// PrecisionReached: every target's interval meets the precision, after
	// a steady state was found and the batch means passed the
	// independence test.
	PrecisionReached
	// BudgetReached: the budget is spent without the precision; the
	// estimates are steady-state estimates, wider than asked for.
	BudgetReached
	// NotSteady: the budget is spent and the run found no steady state in
	// some target (MSER's truncation lies past half of a replication):
	// no steady-state estimate should be reported. Decision.Needed says
	// how long a run would have to be at least.
	NotSteady
	numStatuses
)

var statusNames = [numStatuses]string{"running", "precision_reached", "budget_reached", "not_steady"}

// String is the status's name, as in JSON.
func (s Status) String() string {
	if s < 0 || s >= numStatuses {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText writes the status's name; an undeclared status is an error.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || s >= numStatuses {
		return nil, fmt.Errorf("steadystate: undeclared status %d", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("steadystate: unknown status %q", b)
}

// Outcome is the status in fluid's common vocabulary: Converged for
// PrecisionReached, NotConverged for BudgetReached, NotSettled for
// NotSteady and NotTerminated while Running.
func (s Status) Outcome() outcome.Status {
	switch s {
	case PrecisionReached:
		return outcome.Converged
	case BudgetReached:
		return outcome.NotConverged
	case NotSteady:
		return outcome.NotSettled
	}
	return outcome.NotTerminated
}
