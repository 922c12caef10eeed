// Package staleboard computes the N → ∞ limit of the stale load board
// shared by k dispatchers: the refresh-period map, its fixed points and
// attractors, and the tipping edge below which the balanced state is gone.
//
// The model and its equations, with the published numbers it reproduces, are
// written out in docs/models.md#stale-board-with-k-dispatchers.
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
// the simulation study the model was published with ("The Cliff Was a
// Trap Door") is T*(1−λ)² ≈ 0.9(k − 2).
//
// Above the edge a herd coexists with the balanced state: Attractor from a
// half-loaded board settles on a two-group swapping cycle whose mean time
// in system is about 0.40·T.
//
// # Tipping
//
// A board has tipped into the herd when its mean exceeds
// spec.TipThreshold(T, λ) = max(0.2·T, λ/(1−λ)); the simulator uses the
// same definition (see its documentation for why these numbers).
//
// # Finite N
//
// A system of N servers does not sit at the balanced fixed point x*: its
// board fluctuates around it by O(1/√N), and it tips when a fluctuation
// carries it out of x*'s basin. Near the edge that takes only a small
// fluctuation, so finite systems tip at periods where the N → ∞ balanced
// state is still stable: their edge T*(N, H) — the period at which a
// system started balanced tips within H refresh periods with probability
// ½ — lies above T*. The escape analysis (Escape, TipProbability, and
// Edge with Model.Servers > 0) computes it from the map, with nothing
// fitted:
//
// Noise per period (BoardNoise). Write the next board as Φ_T(x) + ξ/√N.
// Given the pass boundaries of every dispatcher, servers evolve
// independently (within a pass a dispatcher's arrival times are iid
// uniform and assigned in random order), so the next board is a sum of
// multinomials: Cov(ξ | passes) = Σ_b x_b·(diag P_b − P_b P_bᵀ), with P_b
// the law at T of a server whose board reads b. The boundaries move too:
// dispatcher d reaches the end of pass v when its Poisson count of
// arrivals (rate λN/k) reaches N·Σ_{u≤v} F(u), so its clock runs ahead or
// behind by a Brownian offset of variance k·t/(λN) at time t, independent
// across dispatchers. To first order each dispatcher moves the next board
// by (1/k)·Σ_v G_v·δt_v, G_v = ∂Φ/∂t_v with every dispatcher's boundary
// t_v moved (computed by differences on the map), and
//
//	Cov(ξ) = Σ_b x_b·(diag P_b − P_b P_bᵀ) + (1/λ)·Σ_j Δ_j·H_j H_jᵀ,
//
// with Δ_j = t_j − t_{j−1} and H_j = Σ_{v≥j} G_v: the clocks' independent
// increments. The second term, the dispatchers' timing, is a third of the
// board mean's variance and is what makes the finite system herd early.
// The validate package checks Σ against simulation at N = 1,000 and 4,000.
//
// Stationary spread. Around x* the linearised board follows
// y_{n+1} = J·y_n + ξ_n/√N (J the map's Jacobian on zero-sum
// perturbations), whose stationary covariance solves the discrete Lyapunov
// equation C = J·C·Jᵀ + Σ, summed by doubling.
//
// Escape. The board mean is the slow coordinate the escape follows
// (simulated runs drift up in it for tens of periods before they tip). The
// most likely fluctuation that raises it by a is a·C·w/(wᵀCw), w the board
// values; along it (kept positive by an exponential tilt of x*) bisection
// on the deterministic map finds where the state stops returning to x*.
// The orbit just inside lingers at the saddle on the basin's boundary and
// returns to x* along the saddle's unstable manifold; the orbit just
// outside leaves into the herd — or into another balanced fixed point
// (balanced branches coexist near the edge), from which the climb goes on
// to the next saddle. The board mean's deterministic next value along
// those orbits, y ↦ f(y), and its one-period variance v(y) at x*, the
// saddles and the wells, make a Markov chain in the board mean,
//
//	y_{n+1} = f(y_n) + √(κ·v(y_n)/N)·Z_n,  κ = (1 − ρ²)·wᵀCw / wᵀΣw,
//
// ρ the slope of f at y*: κ makes the chain's stationary variance at y*
// the linear-noise one (the other modes feed the mean's fluctuations).
// Crossing the last saddle's board mean is tipping. The chain, discretised
// on 400 cells, gives the probability of tipping within H periods from
// y*, and T*(N, H) is found on a grid of periods above T* (2.5% steps,
// then three bisections and logit interpolation).
//
// What it gets right, and where it breaks. For k = 5, λ = 0.9 and H = 100
// it gives T*(N)(1−λ)² = 3.60, 3.13, 2.99, 2.97 and 2.95 at N = 25, 100,
// 800, 1,600 and 10,000, decreasing to T* = 2.90; the
// published simulations say about 3.5, 3.2 and 2.9–3.0. Tipping curves
// simulated with the same definition (package validate, 16 runs per
// period) put it at 3.52 [3.45, 3.59], 3.12 [3.09, 3.15] and 2.953
// [2.941, 2.965]: the theory is within 2.5% everywhere, but at N = 800
// its shift above T* (0.091) is 70% larger than the simulated one
// (0.054), and between N = 800 and 10,000 it shrinks only like N^−0.3
// where 1/√N or faster is expected — the one-coordinate escape loses
// accuracy as the noise becomes small against the wells' structure. The
// approximations: the noise is first order in 1/√N (at N = 1,000 the
// simulated variance of the fraction of empty servers is already 13%
// below it); the escape is reduced to one coordinate; noise is Gaussian.
// It breaks at small N, where the board holds few servers and one period's
// noise is not Gaussian (N = 25 depends more on H than the others: 3.43 at
// H = 50, 3.83 at H = 200); as H → ∞ every finite system tips at every T
// (the herd is absorbing and the escape probability per period is never
// zero), so T*(N, H) grows without bound like √(log H) — the finite-N edge
// exists only for a stated horizon. And near T* the balanced branches make
// the tipping probability a sawtooth in T, rising after each change of the
// pass in progress at T: T*(N, H) follows it, not a smooth curve.
package staleboard
