package sim

import "github.com/fluidlb/fluid/farm"

// SlowdownFinite reports whether the mean slowdown E[T/S] (time in system
// over size) of c's model is finite, and why (one line). Run reports
// Result.Slowdown only where it is; elsewhere a simulated mean of T/S is
// finite but estimates nothing: it grows without bound with the number of
// jobs, dominated by the smallest sizes drawn.
//
// The rule, with W = T − S the delay of a job:
//
//   - PS: finite. A job of size S present from a to a+T with n(t) jobs at
//     its server is served at rate 1/n(t), so S = ∫ 1/n and, the harmonic
//     mean being at most the arithmetic one, T/S ≤ the time average of
//     n(t) over its stay: E[T/S] is at most a mean queue length.
//   - FCFS under JIQ blocking: T/S = 1. A job goes only to a server whose
//     token a dispatcher holds, and only idle servers have tokens, so no
//     job ever waits (the others are lost).
//   - FCFS with sizes bounded away from 0 (det: S = 1; Pareto type I:
//     S ≥ (a−1)/a): 1 ≤ T/S ≤ T/min S, so E[T/S] is finite exactly when
//     E[T] is (the mean time in system Run reports).
//   - FCFS with exponential or H2 sizes under any other policy: infinite.
//     No policy looks at the job's own size, and under FCFS nothing after
//     its arrival delays it, so its wait W is independent of S and
//     E[T/S] = 1 + E[W]·E[1/S]. The size density is positive at 0, so
//     E[1/S] = ∞, and E[W] > 0 since with Poisson arrivals every server is
//     busy with positive probability.
//
// The rule is about the long-run (steady-state) mean that the simulator
// estimates; it does not single out degenerate transient runs in which no
// measured job can wait (say the first N jobs into an empty farm under
// JSQ).
func (c Model) SlowdownFinite() (finite bool, why string) {
	switch {
	case c.Discipline == farm.PS:
		return true, "under PS time in system / size is at most the mean number of jobs at the server during the job's stay"
	case c.Policy.Kind == farm.JIQBlocking:
		return true, "under JIQ blocking jobs go only to idle servers: time in system = size"
	case c.Sizes.Kind == farm.Deterministic || c.Sizes.Kind == farm.Pareto:
		return true, "the sizes are bounded away from 0: E[T/S] ≤ E[T]/min size"
	}
	return false, "infinite mean under FCFS with " + c.Sizes.String() +
		" sizes: the wait is independent of the size, positive with positive probability, and E[1/size] = ∞"
}
