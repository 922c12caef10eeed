/*
Fluid computes how large server farms behave under load-balancing
policies directly from their N → ∞ limits, and checks them against
finite-N systems.

Usage:

	fluid <command> [flags]

Commands:

	edge  The tipping edge T*(1−λ)² of the stale load board shared by k
	      dispatchers, from the refresh-period map: the
	      bracket, the branch that ends there and how (border collision or
	      eigenvalue crossing), the leading eigenvalue; -k and --load take
	      lists and ranges and run in parallel. The default run
	      (k = 2..10, λ = 0.9) is the README's main command.
	map   Iterate the refresh-period map from a start (balanced, half:B,
	      spread:S) and report its attractor: fixed point, cycle (the
	      herd) or not settled, with the mean board and mean time in
	      system.
	trapdoor
	      The size of the trap door above the edge: the critical push b*
	      (the smallest disturbance of a family — a backlog on half or a
	      fraction of the servers, a spread, one hot server — whose orbit
	      of the refresh-period map ends in the herd) by bisection, per
	      refresh period, with the mechanism's numbers at the balanced
	      state (its spread, one refresh's response to a difference).
	jiq   Join-the-idle-queue with several dispatchers: the
	      fluid limit (blocking probability, or mean wait, P(wait > 0) and
	      fraction sent at random), where the tokens sit, the token
	      exchange rate ν* that removes blocking/wait, the stability of the
	      fixed point; with --trajectory, the fluid trajectory.
	jackson
	      Exact finite-N blocking of JIQ (basic or with token allotment β)
	      from its closed Jackson network, for a list of N, beside the
	      N → ∞ limit.
	sim   The embedded finite-N discrete-event simulator (package
	      sim): every system fluid models (FCFS or PS
	      servers; exponential, deterministic, H2, Pareto sizes; random,
	      round robin, best of d, least loaded, least work, stale-board
	      policies, board + tally, JIQ), with confidence intervals
	      (--level, default 95%) over replications, optionally until a
	      precision target (--rel-precision); deterministic for a given
	      --seed.
	validate
	      Every theoretical result against the simulator (package
	      validate): a table of theory, simulation ± the 99.9% half-width
	      the verdict uses, N, allowance and verdict; exit status 1 if a check fails. --quick
	      is the part run in CI.
	meanfield
	      The N → ∞ mean field of best-of-d: live counts with
	      exponential or H2 sizes under FCFS or PS (fixed point, tail,
	      stability, refined 1/N correction with --servers), or a board
	      refreshed every --period (the period map's attractor).
	plot  Draw a figure (package plots) to PNG, SVG or PDF: edge,
	      bistability, trapdoor, ps-edge, skew-edge, jiq-blocking,
	      jiq-trajectory, exchange, sizes, or all into a directory; --data caches the computed data as JSON.
	      "plot table FILE --x COL [--y COL] --z COL" draws a heat map or
	      lines from a table written by sweep merge.
	sweep Run a command over a grid of its flags (package sweep): every
	      flag takes lists and ranges (0.8,0.9; 3..10; 0.80..0.95:0.05;
	      10..100000*10), each grid point is a task run as
	      "fluid COMMAND --json", results go to a directory as JSON Lines,
	      resumable and sharded (--shard I/N, Slurm job arrays, Kubernetes
	      Indexed Jobs). "sweep merge DIR -o FILE" writes one tidy table
	      (CSV, JSON Lines or Parquet); "sweep status DIR" shows done,
	      failed and remaining tasks per shard.

Every command prints a readable table, JSON with --json, and (where it
prints a table) CSV with --csv. The JSON documents are the types of
package report (report.Edge for fluid edge, report.Map, report.JIQ and
report.JIQTrajectory, report.Jackson, report.Sim, report.Meanfield,
report.Validate, report.SweepStatus, report.BuildInfo for fluid version
--json), with a JSON Schema for each in docs/schema. Each opens with
schema_version, the fluid version and the command; "status" fields carry
how the computation ended in one snake_case word, an outcome.Status
(converged, exact, completed, edge, not_settled, not_converged, …);
fields that do not apply are null; per-dispatcher arrays follow the
order of --alpha, and dispatcher numbers are 1-based.

fluid version prints the module version, VCS revision and Go version;
fluid completion bash|zsh|fish|powershell prints a completion script.

Every list flag (-k and --load of edge, --servers of jackson and
meanfield, --alpha and --beta) reads the same grammar as sweep (package lists): lists,
ranges A..B, A..B:STEP (the step must land on B) and A..B*FACTOR.

Exit status: 0 on success; 2 for a mistake in the command line (an unknown
flag, a value out of range or beyond a resource bound, a flag given where
it has no effect or with an empty value, an output path that is a
directory or in a missing folder, a sweep shard another process holds:
the message names the flag and the bound, and nothing is computed); 1 when
a computation fails or does not converge — a solve that ends without
converging still writes its report, with status not_settled or
not_converged and the values it reached, but never exits 0 with them shown
as a limit — when its result fails its invariants (status invalid_result,
with the evidence), or, for sweep, when a task failed; 128 + the signal
(130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP) when interrupted: every
command first prints or keeps what it finished (with --json, a document
with status interrupted); 70 for an internal error (a panic: a bug in
fluid, printed with its stack).

Units: time in mean service times; loads and rates per server.

The models, their equations, the assumptions behind them and the
published results fluid reproduces are written out in docs/models.md
(models and references).
*/
package main
