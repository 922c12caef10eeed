// Package validate checks every theoretical result of fluid against the
// finite-N simulator of package sim.
//
// The models, their published numbers and the simulator are written out in
// docs/models.md (see docs/models.md#the-simulator and, for tipping,
// docs/models.md#the-tipping-criterion).
//
// The catalogue pairs each prediction — a fluid limit or fixed point
// (meanfield), an exact finite-N product form (jackson), a closed form, the
// refresh-period map and its edge — with simulation at one or more N. A
// check passes when the simulated 99.9% confidence interval, widened by a
// stated finite-N allowance, contains the theory value (see Verdict).
// Allowances are stated per case: zero where the theory is exact at finite
// N (the product form, M/G/1-PS), an O(1/N) term where it is a limit
// (twice the equal-load rate (R − 1)/(|1 − λ|N) for JIQ, 2/N for
// trajectories of fractions), and the published model-versus-simulation
// spread for the stale board (2–3%). Tipping is judged per replication
// (package sim's documented criterion): all must tip, or none.
//
// Run executes the catalogue (Settings.Quick: the quick part, with fewer
// jobs), case by case, and reports an outcome.Outcome: Completed, or
// Interrupted when its context is cancelled (the finished cases are kept).
// Every check is also judged against a deliberately broken theory value on
// the same simulation, and the tests (RunBroken) break chosen cases whole,
// so that each case is shown able to fail. The finite-N edge is checked
// against the simulated tipping experiment of package sim/tipping, the one
// fluid edge --simulate runs.
package validate
