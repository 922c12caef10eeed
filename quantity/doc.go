// Package quantity declares, once, every quantity fluid reads or reports:
// its JSON name (also the CSV column and the sweep-table column), a label
// for figures and help, its unit, a one-line description and the domain
// its values must lie in. The JSON documents of package report, the
// figures' axis labels and the command line's help take their names and
// units from here, and a test holds each of them to it.
//
// The same declarations drive the invariant guard, Check: before a result
// leaves fluid, every number in it is held to its quantity's domain (a
// probability lies in [0, 1], a mean time in system is at least the mean
// job size 1, counts and means of non-negative things are non-negative,
// everything is finite), and the relations between quantities that the
// models imply are checked where a document carries both sides:
//
//   - conservation of servers: busy + Σ tokens = 1 (JIQ: each idle server
//     holds exactly one token, and every server is busy or idle);
//   - conservation of jobs: blocking = 1 − busy/λ (a JIQ system in the
//     blocking scenario completes jobs at the rate of its busy servers);
//   - Little's law: mean count per server = λ × mean time in system;
//   - a time in system is a wait plus a service: sojourn = 1 + mean wait
//     (theory), sojourn > mean delay ≥ 0 (simulation, job by job);
//   - a distribution sums to 1, a tail P(count ≥ n) starts at 1 and does
//     not increase, and P(count ≥ 1) = λ for a server that loses nothing;
//   - a scaled edge is the period times (1 − λ)²; a phase's mean lies
//     between its smallest and largest value.
//
// A violation is not a rounding question: the tolerances (Tol for exact
// and closed-form values, 1e-6 relative where a truncation or an
// integration is involved, stated at each check) are orders of magnitude
// above the rounding of the computations and orders below any error that
// changes a printed digit.
package quantity
