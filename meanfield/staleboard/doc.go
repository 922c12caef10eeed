// Package staleboard computes the N → ∞ limit of the stale load board
// shared by k dispatchers: the refresh-period map, its fixed points and
// attractors, and the tipping edge below which the balanced state is gone.
//
// # Model
//
// N identical FCFS servers with exponential job sizes of mean 1 receive
// Poisson arrivals of rate λ per server; each job goes to one of k
// dispatchers at random. A board shows every server's queue length as of
// the last refresh, every T time units. Each dispatcher keeps a tally of
// the jobs it sent to each server since the refresh and sends a job to the
// server minimising board + tally (ties at random). With a shared tally
// (every dispatcher counts every send), or with the servers partitioned
// among the dispatchers, the system behaves as one dispatcher: the model
// with k = 1 (Model.Tally, Model.MapK).
//
// # The refresh-period map
//
// As N → ∞ the board becomes a distribution p over queue lengths, with
// distribution function F. Map.Apply computes the next refresh's board
// Φ_T(p). Each dispatcher's tally raises a water level v = 0, 1, …; pass v
// lasts L_v = k·F(v)/λ (the dispatcher needs one job per server at or
// below v, at rate λN/k), and passes follow each other: t_0 = 0,
// t_{v+1} = t_v + L_v. During pass v every server whose board reads b ≤ v
// receives k jobs, one per dispatcher, at independent uniform times in
// [t_v, t_{v+1}); servers serve at rate 1; the period is cut at T,
// possibly mid-pass.
//
// A class b is pure death until t_b (closed form: b − min(b, Poisson(t_b))
// jobs). From then on all activated classes share one aggregate
// distribution, which each pass transforms exactly: given j arrivals and n
// Poisson service events in the first τ of a pass, all interleavings are
// equally likely, so the end distribution follows the two-term recursion
//
//	D(a, s) = a/(a+s)·Up D(a−1, s) + s/(a+s)·Down D(a, s−1)
//
// with positive weights (no cancellation), weighted by Binom(j; k, τ/L)
// and Poisson(n; τ). Queues longer than the most services a pass holds
// never touch 0, and there the pass is a convolution. The time integral
// of E[q] gives the mean time in system by Little's law (mean queue / λ);
// the mean board is Σ b·p_b. Truncations (Poisson tails, negligible tops)
// are counted as lost mass, never renormalised.
//
// # Fixed points, branches and the edge
//
// The balanced state is a fixed point p* = Φ_T(p*) reached from a balanced
// start (FixedPoint). The map is only piecewise smooth: its derivative
// jumps where a pass boundary t_v crosses T. Balanced fixed points come in
// branches labelled by the pass V in progress at T; neighbouring branches
// coexist over ranges of T, and a branch ends in a border collision where
// its own boundary t_{V+1}(p*) reaches T — with the spectral radius of the
// Jacobian (on zero-sum perturbations) still well below 1, so an
// eigenvalue test alone never finds the edge.
//
// Edge follows the stable balanced fixed point down from long T with
// fixedpoint.FollowEnd — continuation, hops to coexisting branches, a
// dynamic stability test, trial points aimed at the predicted collision —
// and reports T*, T*(1−λ)², the ending branch and mechanism; with Confirm
// it checks the edge by direct iteration just above (a perturbation
// decays) and below (the state tips into the herd). The reference line of
// the write-up this model comes from is T*(1−λ)² ≈ 0.9(k − 2).
//
// Above the edge a herd coexists with the balanced state: Attractor from a
// half-loaded board settles on a two-group swapping cycle whose mean time
// in system is about 0.40·T.
package staleboard
