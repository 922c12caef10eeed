// Package report defines the JSON documents the fluid command writes with
// --json, so that scripts and library users can decode them with the same
// types, and so that their JSON Schema (docs/schema/) is generated from one
// place. It imports nothing of fluid: decoding a report needs none of the
// solvers, and the command line fills the documents in from the results.
//
// Every top-level report embeds [Header]: the schema version, the fluid
// version that wrote it and the command. Conventions shared by all
// reports:
//
//   - One quantity has one name everywhere: load (λ per server), servers
//     (N), dispatchers (k), period (the board's refresh period T), scaled
//     (T(1−λ)²), sojourn (mean time in system), mean_wait (mean time
//     before service starts, FCFS), prob_wait (P(wait > 0)), blocking,
//     fraction_random (JIQ queueing: jobs sent without a token),
//     board_mean, slowdown (mean time in system / size), ci95 (half-width
//     of the 95% interval), evaluations (map evaluations), seconds (wall
//     time).
//   - Fields that do not apply to the case at hand are null, not 0.
//   - Convergence is a field: status, one snake_case word (converged,
//     not_converged, fixed_point, cycle, not_settled, edge, no_edge, …):
//     the name of an outcome.Status, the one vocabulary of how a
//     computation ended.
//   - Every report echoes all inputs that determine its numbers.
//   - Times are in mean service times; loads and rates per server;
//     dispatcher numbers are 1-based and per-dispatcher arrays follow the
//     order of alpha.
//
// The schema version increases when a field is renamed or removed or its
// meaning changes; adding a field does not change it.
package report
