// Package jiq computes the fluid (N → ∞) limit of join-the-idle-queue with
// R heterogeneous dispatchers (van der Boor, Borst and van Leeuwaarden,
// "Load Balancing in Large-Scale Systems with Multiple Dispatchers", IEEE
// INFOCOM 2017): the fluid ODEs, their fixed point and its stability.
//
// The model, its equations and the published numbers are written out in
// docs/models.md#join-the-idle-queue-with-r-dispatchers.
//
// The entry points follow package outcome: Limit (closed forms, Status
// Converged; it takes only the model), Trajectory and Settle (the
// integrator's status: Converged, NotSettled when Settle's time runs out,
// or the integration's failure). The fixed point's stability is a
// StabilityClass (stable, neutral, unstable), a property of the limit, not
// how a computation ended.
//
// # Model
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
// # Fluid limit
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
// # Limits
//
// Theorem 1 (basic JIQ, blocking): B → max{1 − R·α_min, 1 − 1/λ}: the
// least-loaded dispatcher hoards the tokens. In general:
//
//   - Blocking, ν = 0: x₀* = min{1, λ·min_r α_r/β_r}, all idle tokens at
//     the dispatchers attaining the minimum; ν > 0: x₀* is the unique root
//     in (0, 1] of x = Σ_r min{α_r·λ, β_r·x + ν(1 − x)/R} (the right side
//     minus x is strictly decreasing), x_r* = [β_r·x₀* + ν(1−x₀*)/R −
//     α_r·λ]⁺/ν, and B = 1 − x₀*/λ.
//   - Queueing: y₀* = 1 − λ, y_i* = λ(1 − λ₂*)·λ₂*^(i−1), with λ₂* the
//     unique root in [0, 1) of λ₂ = Σ_r [α_r·λ − β_r·λ(1 − λ₂) − ν(1 − λ)/R]⁺
//     (slope at most λ < 1); the wait is that of an M/M/1 queue at load
//     λ₂*: P(W > 0) = λ₂*, E[W] = λ₂*/(1 − λ₂*). For R ≥ 3 this is not a
//     function of λ and α_min alone.
//   - Zero blocking or wait iff α_r·λ ≤ β_r·λ + ν(1 − λ)/R for all r (λ < 1):
//     β = α, or ν ≥ ν* = (R·α_max − 1)·λ/(1 − λ) for basic β.
//
// Limit computes these (roots by bisection, then polished by solving the
// linear equation of the active set exactly) and the stability of the
// fixed point: the eigenvalues (gonum/mat) of the Jacobian of the smooth
// regime restricted to the conserved manifold, plus, for each empty pool,
// its margin α_r·λ − inflow_r (positive: held at zero robustly).
// Trajectory integrates the ODE with package ode, and Settle follows it to
// its long-time limit, an independent check of Limit.
package jiq
