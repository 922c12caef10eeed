// Package tipping measures by simulation where a finite stale-board farm
// tips into the herd: the probability that N servers with k dispatchers,
// each adding its own sends to a board refreshed every T, tip within H
// refresh periods (farm.TipWatch, the criterion the theory uses too),
// against T, and the finite-N edge T*(N, H) where that probability crosses
// ½. It is an experiment run on the simulator (package sim), not a check:
// fluid edge --simulate reports it beside the escape analysis of package
// meanfield/staleboard, and fluid validate compares the two.
//
// Simulate runs Reps runs at each period of a grid (each run stops at its
// first tip), then optionally refines where the simulated fraction falls
// through ½, and fits the logistic curve P(x) = σ(A + B·x) in the scaled
// period x = T(1−λ)² by maximum likelihood (gonum/optimize, Newton on the
// convex negative log-likelihood). The edge x½ = −A/B comes with its 95%
// profile-likelihood interval: the crossings whose best falling curve
// loses at most χ²₁(0.95)/2 = 1.92 of log-likelihood. The profile stays
// honest on the steep curves of large N, where a delta-method interval
// would not; runs separated into all tipped and none tipped have no
// maximum-likelihood slope, and then the edge is the bracket's midpoint
// and the interval the bracket. Each period's fraction carries its 95%
// Wilson score interval.
//
// AroundEdge is the design of the finite-N edge experiment: seven periods
// within ±10% of a theory edge, two refinements, and the seeds.
//
// The finite-N edge and the tipping criterion are written out in
// docs/models.md#the-tipping-criterion.
package tipping
