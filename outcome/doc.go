// Package outcome is the contract every computation in fluid follows, in
// the shape of gonum's optimize.
//
// A model is a plain struct with a Validate method. Each entry point takes
// the model and one *Settings (nil means the documented defaults) and
// returns a *Result that embeds an [Outcome]: the [Status] that says how
// the computation ended, how much work it did and how long it took. The
// returned error and the Status answer two different questions:
//
//   - a non-nil error means the computation could not run: an invalid model
//     or setting, named by its struct field (a *param.Error), or an input
//     whose cost is refused before any work starts;
//   - a computation that ran is never an error, whatever happened: it
//     returns a Result whose Status says whether it converged, stopped at a
//     limit, was interrupted, or produced a result that failed its own
//     invariants. Status.Err turns a failure into an error for callers that
//     want one.
//
// How a computation is run — how many goroutines, where its progress goes,
// and when it must stop — is the same for every entry point: a [Run]
// embedded in its Settings. Cancellation is always a context.Context;
// progress is always a [Progress] function. Computations do no I/O of
// their own.
//
// Status is the one vocabulary for how a computation ended, whichever model
// and numerical method produced it. Its text form (one snake_case word such
// as converged or not_settled) is what every JSON report carries.
//
// The models the computations solve are written out in docs/models.md.
package outcome
