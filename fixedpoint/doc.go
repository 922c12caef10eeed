// Package fixedpoint finds, classifies and follows fixed points x = Φ(x)
// of maps on probability vectors (or any mass-preserving maps).
//
// How the stale board's fixed points, attractors and tipping edge use these
// solvers is written out in docs/models.md#fixed-points-the-herd-and-cycles
// and docs/models.md#the-tipping-edge.
//
// Solve iterates to a fixed point with Picard iteration (optionally
// damped: x ← (1−θ)x + θΦ(x)), Anderson acceleration (type II, Walker &
// Ni 2011: x_{k+1} = Φ(x_k) − ΔG·γ with γ the least-squares fit of the
// current residual by past residual differences; restarted when it
// misleads), or Newton's method on x − Φ(x) = 0 restricted to zero-sum
// perturbations with a forward-difference Jacobian and backtracking. The
// Result embeds an outcome.Outcome whose Status says how the solve ended
// (converged, iteration limit, diverged, non-finite, stalled, out of
// domain), and carries the residual history, in the style of
// gonum/optimize.
//
// ComputeSpectrum gives the eigenvalues of the Jacobian on zero-sum
// perturbations (a mass-preserving map always has the eigenvalue 1 along
// the mass direction, which is excluded): a dense forward-difference
// Jacobian in the basis e_j − e_ref (forward steps add mass, so they stay
// feasible where the map is only one-sidedly differentiable), or, for
// large supports, Arnoldi's method on Jacobian–vector products in the
// mass-weighted inner product.
//
// Classify iterates the plain map and reports its attractor as its Status:
// outcome.FixedPoint, outcome.Cycle (of period p), or outcome.NotSettled. The fixed-point test comes
// first: an iteration converging to a fixed point whose leading
// eigenvalue is near −1 alternates while converging and is not a 2-cycle;
// a return after p steps counts as a cycle only once the one-step
// distance has stopped shrinking.
//
// FollowEnd follows the stable fixed point of a one-parameter family Φ_θ
// down in θ and reports where it ends and how. Smooth maps lose a stable
// fixed point when an eigenvalue crosses the unit circle; piecewise-smooth
// maps can also lose it in a border collision, where the fixed point
// reaches the border of its smooth piece and meets an unstable partner
// while its spectral radius is still below 1 — so an eigenvalue test
// alone cannot find such an end. FollowEnd brackets the end by solving at
// decreasing θ (continuation from the last fixed point, or a fresh start:
// hops between coexisting branches are allowed), accepts only fixed points
// that a short plain iteration confirms are attracting, bisects the
// bracket, and classifies the end from the spectrum (radius ≈ 1) and from
// the border distance extrapolated along the last smooth piece.
package fixedpoint
