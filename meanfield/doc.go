// Package meanfield computes the large-N (fluid and mean-field) limits of
// load-balancing systems: the refresh-period map of a stale load board
// shared by several dispatchers, with its tipping edge (seed 000, SPEC §1),
// and Join-the-Idle-Queue with R heterogeneous dispatchers (seed 004: van
// der Boor, Borst and van Leeuwaarden, "Load Balancing in Large-Scale
// Systems with Multiple Dispatchers", INFOCOM 2017; SPEC §3).
//
// # The refresh-period map (seed 000)
//
// N → ∞ servers; k dispatchers read a board of queue lengths refreshed
// every T and each adds its own sends since the refresh. The board is a
// distribution p; RefreshMap.Apply computes the next refresh's board
// Φ_T(p). Each dispatcher's tally raises a water level v = 0, 1, …; pass v
// lasts L_v = k·F(v)/λ; during it every server whose board reads b ≤ v
// gets k jobs at independent uniform times; servers serve at rate 1; the
// period is cut at T. A class b is pure death until t_b (closed form);
// from then on all activated classes share one aggregate distribution,
// which each pass transforms exactly: given the arrivals and the Poisson
// service events of a pass, all interleavings are equally likely, so the
// end distribution follows a two-term recursion with positive weights;
// queues longer than the most services a pass holds never touch 0, and
// there the pass is a convolution. The time integral of E[q] gives the
// mean time in system by Little's law. Truncations (Poisson tails,
// negligible tops) are counted as lost mass, never renormalised.
//
// The map is only piecewise smooth: its derivative jumps where a pass
// boundary t_v crosses T. Balanced fixed points come in branches labelled
// by the pass V in progress at T; a branch ends in a border collision where
// t_{V+1}(p*) reaches T, with the spectral radius still well below 1.
// Edge follows the stable balanced fixed point down from long T with
// fixedpoint.FollowEnd — continuation, hops to coexisting branches,
// a dynamic stability test, trial points aimed at the predicted
// collision — and reports T*, T*(1−λ)², the ending branch and mechanism;
// with Confirm it checks the edge by direct iteration just above (a
// perturbation decays) and below (the state tips into the herd). Above
// the edge a herd coexists with the balanced state: RefreshMap.Attractor
// from a half-loaded board settles on a two-group swapping cycle whose
// mean time in system is about 0.40·T.
//
// # Join-the-Idle-Queue: model
//
// N servers with Exp(1) job sizes; jobs reach dispatcher r at rate
// α_r·λ·N. A server whose completion leaves it idle sends a token to
// dispatcher r with probability β_r (basic JIQ: β_r = 1/R; Enhancement 1:
// general β). A job at a dispatcher holding a token goes to that idle
// server. Without tokens the job is discarded (Blocking) or sent to a
// uniformly random server, whose token is revoked if it was idle
// (Queueing). With Enhancement 2 every held token moves at rate ν to a
// dispatcher chosen uniformly among all R.
//
// # Join-the-Idle-Queue: fluid limit
//
// Blocking, with x₀ the busy fraction and x_r the tokens at dispatcher r
// (per server), x₀ + Σx_r = 1:
//
//	dx₀/dt = Σ_r z_r − x₀
//	dx_r/dt = β_r·x₀ + ν(1 − x₀)/R − z_r − ν·x_r
//	z_r = α_r·λ if x_r > 0, else min{α_r·λ, β_r·x₀ + ν(1 − x₀)/R}.
//
// Queueing, with y_i the fraction of servers holding i jobs, Σx_r = y₀,
// λ₁ = Σz_r and λ₂ = λ − λ₁:
//
//	dy₀/dt = y₁ − λ₁ − λ₂·y₀
//	dy_i/dt = λ₂·y_{i−1} + y_{i+1} − (λ₂ + 1)·y_i + λ₁·1{i = 1}
//	dx_r/dt = β_r·y₁ + ν·y₀/R − z_r − ν·x_r − λ₂·x_r
//	z_r = α_r·λ if x_r > 0, else min{α_r·λ, β_r·y₁ + ν·y₀/R}.
//
// The queueing chain is truncated at IMax with a reflecting top level (a
// server holding IMax jobs receives no more), so Σy_i = 1 holds exactly;
// the stationary mass the truncation removes, λ·λ₂^IMax, is reported.
//
// The right-hand sides are discontinuous where a token pool empties. The
// integration follows the sliding mode exactly: each dispatcher is in one
// of two modes, "non-empty" (z_r = α_r·λ) or "empty" (x_r held at 0 and
// z_r equal to the token inflow), each mode's vector field is smooth, and
// ode events switch modes exactly where x_r falls through 0 (if the
// inflow is below the demand) or where the inflow rises through the
// demand α_r·λ. There is no chattering and every conservation law is kept
// to rounding.
//
// # Join-the-Idle-Queue: limits
//
// Theorem 1 (basic JIQ, blocking): B → max{1 − R·α_min, 1 − 1/λ}: the
// least-loaded dispatcher hoards the tokens. In general (SPEC §3.4):
//
//   - Blocking, ν = 0: x₀* = min{1, λ·min_r α_r/β_r}, all idle tokens at
//     the dispatchers attaining the minimum; ν > 0: x₀* is the unique root
//     in (0, 1] of x = Σ_r min{α_r·λ, β_r·x + ν(1 − x)/R} (the right side
//     minus x is strictly decreasing), x_r* = [β_r·x₀* + ν(1−x₀*)/R −
//     α_r·λ]⁺/ν, and B = 1 − x₀*/λ.
//   - Queueing: y₀* = 1 − λ, y_i* = λ(1 − λ₂*)·λ₂*^(i−1), with λ₂* the
//     unique root in [0, 1) of λ₂ = Σ_r [α_r·λ − β_r·λ(1 − λ₂) − ν(1 − λ)/R]⁺
//     (slope at most λ < 1); the wait is that of an M/M/1 queue at load
//     λ₂*: P(W > 0) = λ₂*, E[W] = λ₂*/(1 − λ₂*).
//   - Zero blocking or wait iff α_r·λ ≤ β_r·λ + ν(1 − λ)/R for all r (λ < 1):
//     β = α, or ν ≥ ν* = (R·α_max − 1)·λ/(1 − λ) for basic β.
//
// JIQ.Limit computes these (roots by bisection, then polished by solving
// the linear equation of the active set exactly) and the stability of the
// fixed point: the eigenvalues (gonum/mat) of the Jacobian of the smooth
// regime restricted to the conserved manifold, plus, for each empty pool,
// its margin α_r·λ − inflow_r (positive: held at zero robustly).
// JIQ.Trajectory integrates the ODE with package ode, and JIQ.Settle
// follows it to its long-time limit, an independent check of Limit.
//
// # Best of d: live counts, size spread, stale boards (seed 002)
//
// JSQd is the mean field of best-of-d dispatching. A server holding n jobs
// receives Poisson arrivals at rate a(n) = λ(S_n^d − S_{n+1}^d)/P(n), S_n =
// P(count ≥ n), and otherwise evolves on its own: its state is its count
// for exponential sizes; under PS with the balanced-means H2 sizes, its
// numbers (i, j) of small and giant jobs (a small job completes at rate
// μ_s·i/n, a giant at μ_g·j/n, n = i + j); under FCFS, its count and the
// phase of the job in service. The fixed point couples the population
// (through a) and the server chain (whose stationary law, given a, is
// computed exactly by linear level reduction, the chain moving one level
// at a time). For exponential sizes it is P(Q ≥ i) = λ^((d^i − 1)/(d − 1)).
//
// Why PS erases the size spread: in the mean field a server sees Poisson
// arrivals at a rate that depends only on its current count. A processor-
// sharing queue with count-dependent Poisson arrivals is a symmetric queue
// in Kelly's sense, and symmetric queues are insensitive: the stationary
// law of the count depends on the sizes only through their mean. So the
// count distribution, hence the mean time in system (2.614 for d = 2 at
// λ = 0.9), is the exponential one for every SCV. JSQd does not assume
// this: it solves the full (small, giant) chain, and the tests find the
// exponential answer to 1e-9 for SCV 4, 10 and 30. Seed 002's N = 100
// simulations (2.64, 2.64, 2.64, 2.66) sit above by the O(1/N) finite-N
// gap. Under FCFS a giant blocks the jobs behind it and the mean grows
// with the SCV (4.16, 6.75, 14.79 at SCV 4, 10, 30; seed N = 100: 4.2, 6.8,
// 15.2).
//
// RefinedJSQd adds the 1/N term of Gast and Van Houdt's refined mean field
// for exponential sizes (sampling with replacement): E[Q_N] ≈ π + V/N.
//
// StaleBoard is Mitzenmacher's periodic-update model: one dispatcher,
// a board of counts refreshed every T, no tallies. Between refreshes a
// server whose board reads b receives Poisson arrivals at the constant
// rate λ(P(B ≥ b)^d − P(B > b)^d)/P(B = b) (least loaded: λ/P(B = b_min)
// for the lowest class), so each board class evolves as its own chain
// for time T (by uniformisation); the period map takes the distribution
// of server states at one refresh to the next, and its attractor gives the
// mean time in system.
package meanfield
