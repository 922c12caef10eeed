package outcome

import (
	"context"
	"time"
)

// Outcome is how one computation ended. Every Result of fluid embeds it,
// so r.Status, r.Evaluations and r.Elapsed read the same way everywhere.
type Outcome struct {
	// Status says how it ended.
	Status Status
	// Evaluations counts the units of work that dominate its cost, named
	// in each Result's documentation (map evaluations, right-hand-side
	// evaluations, simulated events, …); 0 where not counted.
	Evaluations int
	// Elapsed is the wall time of the computation.
	Elapsed time.Duration
}

// Err is Status.Err.
func (o Outcome) Err() error { return o.Status.Err() }

// Progress is told of work done: done units of total (total ≤ 0 when the
// total is not known in advance), with a short note on the unit in
// progress ("" when there is none). Computations that run goroutines call
// it from several of them at once: it must be safe for concurrent use.
type Progress func(done, total int64, note string)

// Run says how a computation is run. Settings embed it; its zero value is
// the default: never cancelled, every core, no progress.
type Run struct {
	// Context, when not nil, cancels the computation: once it is done the
	// computation stops at its next check (each entry point bounds the
	// work between checks) and returns what it finished with Status
	// Interrupted.
	Context context.Context
	// Workers is how many goroutines the computation may use (0: its
	// default, one per core, runtime.GOMAXPROCS, unless the entry point
	// documents another). Results never depend on it.
	Workers int
	// Progress, when not nil, is told of the work done.
	Progress Progress
}

// Ctx is the run's context, context.Background() when none was given.
func (r Run) Ctx() context.Context {
	if r.Context == nil {
		return context.Background()
	}
	return r.Context
}

// Stopped reports, without blocking, whether the run's context is done.
func (r Run) Stopped() bool {
	if r.Context == nil {
		return false
	}
	select {
	case <-r.Context.Done():
		return true
	default:
		return false
	}
}

// Report calls Progress if it is set.
func (r Run) Report(done, total int64, note string) {
	if r.Progress != nil {
		r.Progress(done, total, note)
	}
}
