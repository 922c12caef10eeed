// Package steadystate is fluid's simulation output analysis: honest
// confidence intervals for steady-state means from a simulation that
// starts empty, with the run length chosen from the precision. It knows
// nothing of the simulator; the simulator feeds it numbers.
//
// # Series
//
// A [Series] accumulates one output series — one observation per
// completed job, or per board refresh — each a vector of channels (time in
// system, served, waited, …). It keeps between B and 2B fine batch sums
// (B = 2048): when 2B are complete, adjacent pairs merge and the batch
// size doubles, the standard bounded-memory scheme of sequential batch
// means. Add never allocates; the state depends on the observations only,
// never on how they are chunked. A [Quantity] reads a mean from a series:
// the mean of a channel per observation, or the ratio Σ num / Σ den of two
// channels (the mean time in system over the served jobs; a time average
// Σ value·dt / Σ dt).
//
// # Truncation
//
// The initial transient is found in the data by MSER (White 1997; White,
// Cobb & Spratt 2000) on the fine batches, which are batches of 5 until
// the first merge (MSER-5) and of 5·2^j after: the number d of fine
// batches deleted minimises
//
//	MSER(d) = Σ_{i≥d} (N_i − R_d·D_i)² / (Σ_{i≥d} D_i)²,   R_d = Σ_{i≥d} N_i / Σ_{i≥d} D_i,
//
// White's statistic for a mean (D_i the batch size), the delta-method
// variance of the remaining ratio otherwise. d ranges over the first three
// quarters of the series (the statistic of the last few batches is small
// by chance too often); a minimiser past half the series means that the
// run found no steady state ([Truncation].Steady false).
//
// # Intervals
//
// After the truncation the rest of each replication is cut into batches of
// consecutive fine batches and the estimate is the ratio R̂ = Σ N_j / Σ D_j
// over all batches, with the delta-method standard error
//
//	se² = K/(K−1) · Σ_j (N_j − R̂·D_j)² / (Σ_j D_j)²
//
// (S²/K of the batch means for a plain mean) and a Student-t quantile with
// (Σ D_j)²/Σ D_j² − 1 degrees of freedom (Kish's effective number of
// batches; K − 1 for equal ones). The number of batches K is the larger of
// 64 and 32 at which the batch means pass an independence test (Fishman
// 1978; Steiger et al. 2005, ASAP3, for testing before trusting batches;
// Schmeiser 1982 and Glynn & Whitt 1992 on the count: see
// DefaultMaxBatches): von Neumann's ratio
// C = 1 − Σ(Δ)²/(2·Σ dev²), the lag-1 correlation estimate with null
// mean ≈ 0 and variance (k−2)/(k²−1) (von Neumann 1941; Young 1941),
// one-sided at 10%, computed on four times as many batches as the
// interval uses. Batches that look independent at a quarter of the size
// carry, at the interval's size, about a quarter of whatever lag-1
// correlation the test could miss; testing the interval's own 16 or 32
// batches lets a correlation of 0.2–0.3 through, which lost 15 points of
// coverage on an AR(1) series whose precision came before its
// correlation had decayed. When no count passes the estimate is flagged
// ([Estimate].Independent false) and a sequential run goes on.
//
// The interval corrects for skewness of the batch means (Willink 2005, as
// in Skart, Tafazzoli, Steiger & Wilson 2011): with a = b̂/(6√K), b̂ the
// sample skewness, G(ζ) = ((1 + 6a(ζ − a))^{1/3} − 1)/(2a), it is
// [R̂ − G(t)·se, R̂ − G(−t)·se]. Queue output is right-skewed: a low mean
// comes with a small standard error, and a symmetric interval misses
// low more often than high. [Estimate].HalfWidth is the longer side.
//
// Replications are combined after per-replication deletion: each is
// truncated on its own and contributes the same number of batches, the
// pooled test uses every replication's batches, and with at least 32
// replications each may be one batch (replication/deletion; independence
// then holds by construction).
//
// # Sequential procedure
//
// A [Controller] is asked between chunks of work whether to stop
// ([Controller.Check]). Its default target is a relative error of ε = 2% at
// 95%: by Law & Kelton's relative-error rule (Simulation Modeling and
// Analysis, §9.4.1) a target is met when its half-width is at most
// ε/(1+ε)·|mean|, so that |mean − μ| ≤ ε|μ| with probability 95%. A stop
// also requires a steady state (MSER), independent batch means, every
// replication its B fine batches, and Settings.MinObservations — the floors
// that keep an early lucky stop, on a half-width small by chance, from
// ruining the coverage. Otherwise the controller names the next check: the
// projection n·(h/h*)² of the half-width's 1/√n law, times 1.1, kept
// within 1.25 to 4 times the current run. A run ends with
// [PrecisionReached], [BudgetReached] (steady, not precise enough) or
// [NotSteady] (no steady-state estimate: say so, and how long a run would
// be needed).
//
// # Planning
//
// [NewPlan] estimates, from a model of a server's queue and before any
// work, its relaxation time (Whitt 1989, "Planning queueing simulations";
// Abate & Whitt 1987 for M/M/1: 1/(1 − √ρ)²)
//
//	τ_r = (c_a² + c_s²) / (2(1 − √ρ)²)   mean service times,
//
// the asymptotic variance of the mean time in system (2·Var(T)·ρτ_r/2 per
// job, Var(T) from Pollaczek–Khinchine and Takács, whose E[S³] term is
// what makes heavy-tailed sizes expensive) and from them the run that a
// precision needs, and refuses a model whose minimal run is beyond reach
// (λ → 1). [Plan.Assess] judges a requested run: fewer than 20 relaxation
// times per server in a replication is hopeless, fewer than 350 short.
//
// # Driving it from a simulator
//
// Each replication owns one Series per output stream: the jobs (one
// observation when a measured job leaves or is blocked, with channels such
// as arrived, served, sojourn·served, delay·served, busy at arrival,
// blocked) and, where there is a board, the refreshes (one observation per
// refresh: the board mean). Means over the served jobs are ratios (RatioOf
// sojourn, served), fractions of the arrivals means (MeanOf blocked). No
// warm-up is fixed in advance: every job from time 0 is observed and MSER
// decides. Before any work the simulator builds a Model and calls NewPlan
// and Plan.Assess, refusing or warning; while running, each replication
// pauses exactly when its series reaches its share ⌈Next/R⌉ of the
// controller's Next (a count, not a time, so that the result does not
// depend on scheduling), and the caller then asks Check with all the
// replications' series. A run of fixed length calls Final at its end.
//
// # Coverage
//
// The tests run the whole procedure — truncation, batch means, sequential
// stop at the default precision — hundreds of times on processes with
// exactly known means (AR(1) with strong correlation, the M/M/1 and
// M/G/1 queues from empty by Lindley's recursion, a Markov-modulated
// series) and check that the 95% intervals cover the exact mean in 90–98%
// of runs.
package steadystate
