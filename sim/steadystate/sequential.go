package steadystate

import (
	"math"

	"github.com/fluidlb/fluid/outcome"
)

// Controller is the sequential procedure of one run: the simulator adds
// observations to its replications' Series and, between chunks of work,
// asks Check whether to go on. It holds validated Settings, the count of
// checks and where the next one is due; the Series hold the data. A
// Controller serves one run (a new run needs a new Controller).
type Controller struct {
	s      Settings
	checks int
	next   int64 // the total at which the next check analyses (0: the first)
}

// NewController returns a controller with the settings s (nil: the
// defaults). An invalid setting is a *param.Error naming its field.
func NewController(s *Settings) (*Controller, error) {
	n, err := s.normalized()
	if err != nil {
		return nil, err
	}
	return &Controller{s: n}, nil
}

// Settings returns the controller's settings with their defaults filled
// in.
func (c *Controller) Settings() Settings {
	s := c.s
	s.Targets = append([]Quantity(nil), c.s.Targets...)
	return s
}

// Decision is the answer of Check or Final.
type Decision struct {
	// Status is Running (go on to Next), or why the run stops.
	Status outcome.Status `json:"status"`
	// Next (Running only) is the total number of observations, all
	// replications together, at which to check again: at least 1.25 and
	// at most 4 times the current total, at most the budget.
	Next int64 `json:"next,omitempty"`
	// Observations is the total number of observations checked.
	Observations int64 `json:"observations"`
	// Estimates are the targets' estimates, in the order of
	// Settings.Targets; the first is the primary.
	Estimates []Estimate `json:"estimates"`
	// Needed is the largest of the targets' Estimate.Needed: about how
	// many observations in all would meet the precision (for NotSteady, a
	// lower bound). 0 when met.
	Needed int64 `json:"needed"`
	// Checks counts the calls of Check and Final so far.
	Checks int `json:"checks"`
}

// Stop reports whether the run should stop.
func (d Decision) Stop() bool { return d.Status != Running }

// Check decides, from the replications' series, whether a sequential run
// stops. It stops with PrecisionReached once every target meets the
// precision — valid, steady (MSER's truncation in the first half of every
// replication), independent batch means (the von Neumann test passed) and
// half-width ≤ max(ε/(1+ε)·|mean|, AbsPrecision) — and the run has at
// least MinObservations in all and every replication its B fine batches:
// the floor on the run before a stop is allowed, the guard against early
// lucky stops that Law & Kelton (§9.4.1) warn of. Otherwise, once the
// budget is spent, it stops with BudgetReached if every target is a valid
// steady-state estimate and NotSteady if not. Otherwise it says Running
// and where to check next: the largest target projection, times 1.1,
// within 1.25 to 4 times the current run, at least MinObservations and at
// most the budget.
//
// Stopping on a half-width read from the data makes the coverage slightly
// below nominal in general (the interval stops when it is narrow by
// chance); the floor, the independence test and the geometric growth of
// the checks keep the loss small: see the coverage tests.
//
// Only the checks at the totals it named analyse anything: a Check
// before the last Next (all replications together) returns Running with
// the same Next at once, without estimates. So the caller may ask after
// every chunk of work, and the decisions — hence the result — do not
// depend on the size of its chunks: more checks would be more chances of
// a lucky stop.
//
// It panics if reps is empty or a target reads a channel the series do
// not have.
func (c *Controller) Check(reps ...*Series) Decision {
	return c.decide(reps, false)
}

// Final is the decision for a run that ends here whatever (a run of
// fixed length, or one whose budget the caller counts): PrecisionReached,
// BudgetReached or NotSteady by the rules of Check, never Running.
func (c *Controller) Final(reps ...*Series) Decision {
	return c.decide(reps, true)
}

func (c *Controller) decide(reps []*Series, final bool) Decision {
	if len(reps) == 0 {
		panic("steadystate: Check with no series")
	}
	var total int64
	for _, r := range reps {
		total += r.count
	}
	if !final {
		if total < c.next && total < c.s.Budget {
			return Decision{Status: Running, Next: c.next, Observations: total, Checks: c.checks}
		}
	}
	c.checks++
	d := Decision{Checks: c.checks, Estimates: make([]Estimate, len(c.s.Targets))}
	precise, steady := true, true
	for i, q := range c.s.Targets {
		e := c.Analyze(q, reps...)
		d.Estimates[i] = e
		precise = precise && e.precise(&c.s)
		steady = steady && e.Valid && e.Steady
		d.Needed = max(d.Needed, e.Needed)
	}
	d.Observations = total
	var floor int64
	for _, r := range reps {
		floor += int64(r.fine) * r.first
	}
	floor = max(floor, c.s.MinObservations)
	switch {
	case precise && d.Observations >= floor:
		d.Status = PrecisionReached
	case final || d.Observations >= c.s.Budget:
		d.Status = NotSteady
		if steady {
			d.Status = BudgetReached
		}
	default:
		n := float64(d.Observations)
		next := math.Min(math.Max(1.1*float64(d.Needed), 1.25*n), 4*n)
		next = math.Max(math.Ceil(next), float64(floor))
		d.Next = min(int64(math.Min(next, float64(c.s.Budget))), c.s.Budget)
		d.Next = max(d.Next, d.Observations+1)
		c.next = d.Next
	}
	return d
}
