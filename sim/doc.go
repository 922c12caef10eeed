// Package sim is fluid's embedded finite-N discrete-event simulator. It
// knows nothing of the theory in meanfield and jackson, so that agreement
// between the two means something. It shares only the vocabulary of
// package farm: a Model's discipline, job sizes, policy and start are
// farm values.
//
// Run(model, settings) follows the contract of package outcome: the Model
// is the system simulated (servers, load, dispatchers, sizes, policy, the
// state at time 0), the Settings say how long and how often it is
// simulated and what is recorded (run length, replications, confidence
// level, precision target, seed, recordings) and embed an outcome.Run
// (workers, progress, cancellation), and the Result embeds an
// outcome.Outcome: PrecisionReached, BudgetReached or NotSteady for a
// steady-state run, Completed for a transient one, or Interrupted.
//
// What it simulates, its replications, confidence intervals and random seeds
// are summarised in docs/models.md#the-simulator.
//
// # Model
//
// N identical servers, FCFS or processor sharing (PS: with n jobs present
// each is served at rate 1/n; exact event times from a per-server virtual
// time, no time slicing). Jobs arrive as a Poisson stream of total rate λN
// and go to dispatcher r with probability α_r. Sizes have mean 1:
// exponential, deterministic, the balanced-means hyperexponential H2
// (farm.H2Params), or Pareto (type I, shape a, scaled to mean 1: its SCV is
// 1/(a(a−2)) for a > 2).
//
// Policies: random; round robin; best of d and least loaded (JSQ) on live
// counts; the least-work-left oracle; best of d and least loaded on a board
// refreshed every T; the board + own tally (each dispatcher picks
// the server minimising the board value plus its own sends since the last
// refresh), a shared tally, partitioned dispatchers, and best of d with own
// tally; JIQ with tokens in the blocking and queueing scenarios,
// with token shares β (Enhancement 1) and token exchange at
// rate ν (Enhancement 2). Ties are broken uniformly at random.
//
// # Engine
//
// A replication is an event loop (engine) over state split by concern: the
// server queues (server: FCFS ring buffers, PS heaps on finish tags), the
// job-size law (sizeLaw), the dispatch policy's own state (dispatchers),
// the JIQ token pools (tokenPools) and what is measured (measurement,
// which also builds the replication's Rep). Each event is handled by
// direct method calls on these, with no interface call.
//
// The servers' next completions sit in a binary heap (with each server's
// position kept under PS, where an arrival moves its server's completion);
// arrivals are a single timer compared with its minimum, and board
// refreshes, token exchanges, correlation snapshots and sample times
// share one more (the earliest of them). Policies that need the minimum of an
// integer value that moves by ±1 (live JSQ, board + tally, board JSQ) keep
// the servers sorted by value in one array with bucket boundaries, so the
// choice costs O(1) rather than a scan. Token exchange is uniformised:
// events at rate νN pick a server and move its token if it holds one, so
// every token moves at rate ν exactly. Queues grow by doubling; no event
// allocates once they have reached their longest length.
//
// All of a replication's random numbers come from one stream, drawn in a
// fixed order: events in time order, and within an arrival the next
// arrival time, the receiving dispatcher, the job's size, then the policy's
// draws. Reordering them changes every result. The stream is math/rand/v2's
// PCG, and exponentials its ziggurat, both written out here so that a draw
// is inlined or a direct call (the same numbers, tested draw by draw).
//
// An event costs about 1.2–1.3 times what a minimal 60-line best-of-two
// loop pays (BenchmarkMinimalLoop; docs/performance.md). A Context
// cancelled mid-run ends it with the work that finished.
//
// # Markovian fast path
//
// With exponential sizes, FCFS or PS servers and a policy that reads only
// the live queue lengths (random, round robin, least loaded, best of D),
// and nothing timed (no board, correlation snapshots or sample times),
// the farm is a continuous-time Markov chain and a replication runs
// without a completion calendar: arrivals come at rate λN and, from B busy
// servers, departures at rate B from a busy server chosen uniformly
// (markov.go). The two streams are run by the next-reaction method (one
// exponential per event; the pending departure time is rescaled when B
// grows), with the loop's state in local variables and the job series'
// batch in progress summed in place (steadystate.Series.Pending). It is
// the same chain in law as the general engine, not the same random
// numbers (TestMarkovAgainstEngine); per event it costs less than half
// what the general engine does, and about half what the minimal
// best-of-two loop does (BenchmarkMarkovFastPath, BenchmarkRandomExp).
//
// # Measurement
//
// Jobs are numbered by arrival; the Warmup first (default none) are
// simulated but not observed. Every other job is one observation of its
// replication's job series (package steadystate) when it leaves or is
// blocked; a board adds one observation per refresh to a board series.
// Replications use independent PCG streams derived from (Seed,
// replication) and run in parallel; the result is a pure function of the
// Model and Settings.
//
// A steady-state run (the default) finds the end of each replication's
// initial transient in the data (MSER-5), cuts the rest into batch means
// that pass a lag-1 independence test (MinBatches to MaxBatches in all)
// and gives each mean with a skewness-corrected Student-t interval
// [Lower, Upper] (Estimate). Without Jobs the run is sequential: its
// replications grow together, each to its share of the total the
// steadystate.Controller names next (a count of jobs, not a time), until
// the mean time in system (and with JIQ blocking the blocking) meets
// RelPrecision (default 2% at 95%) or Budget jobs are spent. With Jobs
// each replication observes Jobs jobs and the run is analysed once. Before
// any work a planner (steadystate.NewPlan, Whitt's relaxation time of a
// server's queue) refuses a model no run can take to its steady state
// and, under random dispatch and round robin, replications too short to
// cover 20 relaxation times; a sequential run of those policies does not
// stop before that minimum. Transient runs (Settings.Transient, and
// Horizon runs) instead give the means over the observed jobs with
// Student-t intervals across the replications.
//
// What is measured, with T a job's time in system and S its size:
//
//   - Sojourn E[T] over the served jobs.
//   - Slowdown E[T/S], only where that mean is finite (Model.SlowdownFinite:
//     under PS, under JIQ blocking, and with sizes bounded away from 0;
//     not under FCFS with exponential or H2 sizes, whose density is
//     positive at 0, so that E[1/S] = ∞ while the wait, independent of S,
//     is positive with positive probability). SlowdownTail,
//     P(T > SlowdownTailAt·S), is finite always.
//   - Delay E[T − S] and BusyAtArrival, the fraction of arrivals sent to a
//     server holding at least one job. Under FCFS these are the wait
//     before service and P(wait > 0), also given as Wait and WaitProb.
//     Under PS a job is served from its arrival and never waits: Delay is
//     the time that sharing the server cost it, BusyAtArrival the chance
//     that it arrived to share, and Wait and WaitProb are nil.
//   - Blocking and RandomFraction (JIQ), the board mean at the refreshes,
//     whether a stale-board run tipped, correlations and sampled states.
//
// # Bounds
//
// Run checks a Model and its Settings before it allocates or simulates
// anything of the size of the run (Normalized does the same checks alone), so that
// no input exhausts the machine or yields a number the run cannot support:
//
//   - Work: at most MaxArrivals (10¹², about a day of one core)
//     operations in all, counting the arrivals (those while the measured
//     jobs drain included, each costlier with N as the completion heap
//     outgrows the caches), the policy's work per job (best of D's draws,
//     least-work's scan), N reads per board refresh that follows a change,
//     per correlation snapshot and per sample time.
//   - Memory: one replication's state at most MaxMemory/2 (about 10⁷
//     servers); only as many replications run at once as fit in
//     MaxMemory, whatever Workers says.
//   - Timers: at most MaxPerArrival refreshes or token exchanges and
//     MaxSnapshotsPerArrival correlation snapshots per arrival; simulated
//     time at most MaxTime.
//   - Job sizes: a batch of a replication (its observed jobs over the
//     fewest batches it may be cut into) must resolve the mean size
//     (SizeError, MaxSizeError); under FCFS, Pareto
//     shapes ≤ 2 are refused where the mean time in system is infinite
//     (under least-work, up to 1 + 1/(N − ⌊λN⌋)); JIQ blocking at λ ≥ 1
//     must leave jobs to measure.
//
// The samplers are exact where floating point allows: exponential sizes
// are never 0 (the ziggurat's rare exact 0 is redrawn), the H2 parameters
// are computed without cancellation up to any SCV, and the Pareto sampler
// draws its uniform with full relative precision in the tail (down to
// 2⁻¹⁰⁰⁰) instead of cutting it at 2⁻⁵³, which lost 2^(−53(a−1)/a) of the
// mean (27% at a = 1.05).
//
// Invalid models and settings are errors naming the offending field
// (Servers, Load, Policy, Jobs, …), never a command-line flag.
package sim
