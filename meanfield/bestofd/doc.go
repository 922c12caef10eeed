// Package bestofd computes N → ∞ mean fields of best-of-d dispatching
// (JSQ(d)) with FCFS or processor-sharing servers and exponential or
// hyperexponential job sizes: on live counts (FixedPoint, Settle), with
// the refined 1/N correction (Refined), and on a board refreshed every T
// (PeriodicUpdate, Attractor).
//
// The model, its equations and the published numbers are written out in
// docs/models.md#best-of-d-with-fcfs-or-ps-servers.
//
// The entry points follow package outcome: FixedPoint (Converged, or
// TruncationLimit, NotSettled, …), Settle (Converged or NotSettled),
// Refined (Exact; it takes only the model) and Attractor (FixedPoint,
// Cycle, or NotSettled with the average of the orbit's last periods;
// IterationLimit at the work budget, Interrupted).
//
// # Live counts
//
// A server holding n jobs receives Poisson arrivals at rate a(n) =
// λ(S_n^d − S_{n+1}^d)/P(n), S_n = P(count ≥ n), and otherwise evolves on
// its own: its state is its count for exponential sizes; under PS with the
// balanced-means H2 sizes, its numbers (i, j) of small and giant jobs (a
// small job completes at rate μ_s·i/n, a giant at μ_g·j/n, n = i + j);
// under FCFS, its count and the phase of the job in service. The fixed
// point couples the population (through a) and the server chain (whose
// stationary law, given a, is computed exactly by linear level reduction,
// the chain moving one level at a time). For exponential sizes it is
// P(Q ≥ i) = λ^((d^i − 1)/(d − 1)).
//
// Why PS erases the size spread: in the mean field a server sees Poisson
// arrivals at a rate that depends only on its current count. A processor-
// sharing queue with count-dependent Poisson arrivals is a symmetric queue
// in Kelly's sense, and symmetric queues are insensitive: the stationary
// law of the count depends on the sizes only through their mean. So the
// count distribution, hence the mean time in system (2.614 for d = 2 at
// λ = 0.9), is the exponential one for every SCV. FixedPoint does not
// assume this: it solves the full (small, giant) chain, and the tests find
// the exponential answer to 1e-9 for SCV 4, 10 and 30; simulations with
// N = 100 servers (2.64, 2.64, 2.64, 2.66) sit above by the O(1/N)
// finite-N gap. Under FCFS a giant blocks the jobs behind it and the mean
// grows with the SCV (4.16, 6.75, 14.79 at SCV 4, 10, 30; N = 100
// simulations: 4.2, 6.8, 15.2).
//
// # Refined mean field
//
// Refined adds the 1/N term of Gast and Van Houdt's refined mean field for
// exponential sizes (sampling with replacement): E[Q_N] ≈ π + V/N.
//
// # Periodic update
//
// PeriodicUpdate is Mitzenmacher's periodic-update model: one dispatcher,
// a board of counts refreshed every T, no tallies. Between refreshes a
// server whose board reads b receives Poisson arrivals at the constant
// rate λ(P(B ≥ b)^d − P(B > b)^d)/P(B = b) (least loaded: λ/P(B = b_min)
// for the lowest class), so each board class evolves as its own chain
// for time T (by uniformisation); the period map takes the distribution
// of server states at one refresh to the next, and its attractor gives the
// mean time in system.
//
// The work of one period follows the mass, not the truncation: each
// uniformised step touches only the states that can hold mass — for PS
// with H2 sizes, on each level a range of giant counts — and drops the
// states at the ends of those ranges holding less than 1e-18 of all
// servers; the Poisson weights of a class are cut relative to its mass.
// So PS servers need no separate limit on the giants they hold (a limit
// that lost giants also biased the mean by more than the fraction of
// arrivals lost), and the board classes, independent within a period, run
// in parallel with a result that does not depend on the number of cores.
// Under least loaded only the lowest class receives arrivals: the others
// only complete jobs, under one generator, so the map is linear in them
// and they evolve together as one vector.
//
// The cost of a period grows about like T² (one state update costs about
// 6 ns: best of two with exponential sizes takes 1.5·10⁶ updates per
// period at T = 100, 1.2·10⁸ at T = 800). Attractor estimates the cost
// before any work (EstimateWork, from measured costs) and refuses a
// model above its budget (AttractorSettings.MaxWork, by default 10¹¹
// updates, about ten minutes of one core), naming the estimate; a run
// that spends its budget stops with IterationLimit. Runs honour
// cancellation between board classes.
//
// Least loaded on a stale board herds: every arrival of a period goes to
// the servers that showed the fewest jobs, which the next board shows
// with the most. With exponential sizes at λ = 0.9 the period map has an
// attracting fixed point up to T = 4; from T = 5 on its orbit wanders
// without settling (no cycle up to 2⌈1/(1 − λ)⌉ periods, the longest
// looked for: a herd takes about 1/(1 − λ) periods to drain), and
// Attractor reports the average over its last Window periods with their
// spread (NotSettled), not the last iterate.
package bestofd
