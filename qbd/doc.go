// Package qbd solves quasi-birth–death processes (QBDs) by matrix-analytic
// methods: continuous-time Markov chains on states (n, i), a level n ≥ 0
// and a phase i, that move at most one level at a time.
//
// # Level-independent QBD
//
// From every level n ≥ 1 a [Homogeneous] QBD moves up with the m×m block
// A0, within the level with A1 and down with A2 (rates; A1 holds the
// diagonal, so A0 + A1 + A2 has zero row sums). Its first-passage matrix
// G — G_ij the probability that, started in (n+1, i), the chain first
// enters level n in phase j — is the minimal non-negative solution of
//
//	A2 + A1·G + A0·G² = 0,
//
// and the rate matrix R = A0·(−U)⁻¹, U = A1 + A0·G, is the minimal
// solution of A0 + R·A1 + R²·A2 = 0, so that π_{n+1} = π_n·R above the
// boundary (Neuts, Matrix-Geometric Solutions in Stochastic Models, 1981).
// [Solve] computes G by the logarithmic reduction of Latouche and
// Ramaswami ("A logarithmic reduction algorithm for quasi-birth-and-death
// processes", J. Appl. Prob. 30, 1993; Latouche & Ramaswami, Introduction
// to Matrix Analytic Methods in Stochastic Modeling, SIAM 1999, §8.4),
// which doubles the number of levels it accounts for at every step and
// converges quadratically. The chain is positive recurrent exactly when
// its drift π_A·A0·1 − π_A·A2·1 is negative, π_A the stationary vector of
// A = A0 + A1 + A2 (Neuts, Theorem 3.1.1); the decay rate of the level
// distribution (the caudal characteristic) is the spectral radius of R.
//
// # Level-dependent QBD
//
// [Levels] is a QBD whose blocks (and phase counts) depend on the level:
// Up[n], Local[n], Down[n] for n = 0…L, either stopping at L (a finite
// chain) or continued above L by a Homogeneous tail. [Stationary] solves
// it by linear level reduction (Gaver, Jacobs and Latouche, "Finite
// birth-and-death models in randomly changing environments", Adv. Appl.
// Prob. 16, 1984; Latouche & Ramaswami §10.2): from the top down,
//
//	U_L = Local[L] (+ Up[L]·G with a tail),
//	U_n = Local[n] + Up[n]·(−U_{n+1})⁻¹·Down[n+1],
//
// U_n being the generator of the chain watched only while it is in level
// n and started there, given it never goes below n; then π_0·U_0 = 0,
// π_{n+1} = π_n·R_n with R_n = Up[n]·(−U_{n+1})⁻¹, and above L the tail
// is matrix-geometric. The cost is Σ_n d_n³ for phase counts d_n. The
// stationary vector of the small generator U_0 comes from the
// Grassmann–Taksar–Heyman elimination ([GTH]; Grassmann, Taksar and
// Heyman, "Regenerative analysis and steady state distributions for
// Markov chains", Operations Research 33, 1985), which subtracts nothing
// and so keeps full relative accuracy in every entry.
//
// The computations return an [outcome.Outcome]: Converged for G within
// its tolerance, Exact for the finite elimination; a solve that ran out
// of doublings is IterationLimit, one whose result fails its own checks
// (negative or non-finite probabilities, a residual far from zero) is
// InvalidResult. Inputs that are not generators, or a tail that is not
// positive recurrent, are errors (*param.Error naming the field).
package qbd
