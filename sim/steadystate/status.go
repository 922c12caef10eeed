package steadystate

import "github.com/fluidlb/fluid/outcome"

// How a sequential run stands after a Controller.Check, in the module's
// one vocabulary of statuses (package outcome).
const (
	// Running: neither the precision nor the budget has been reached;
	// run on to Decision.Next observations (outcome.NotTerminated).
	Running = outcome.NotTerminated
	// PrecisionReached: every target's interval meets the precision, after
	// a steady state was found and the batch means passed the
	// independence test.
	PrecisionReached = outcome.PrecisionReached
	// BudgetReached: the budget is spent without the precision; the
	// estimates are steady-state estimates, wider than asked for.
	BudgetReached = outcome.BudgetReached
	// NotSteady: the budget is spent and the run found no steady state in
	// some target (MSER's truncation lies past half of a replication):
	// no steady-state estimate should be reported. Decision.Needed says
	// how long a run would have to be at least.
	NotSteady = outcome.NotSteady
)
