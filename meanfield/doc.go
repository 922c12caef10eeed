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
package meanfield
