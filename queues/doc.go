// Package queues computes from queueing theory the farms that the
// simulator (validate/sim) measures: N identical servers, FCFS or
// processor sharing (PS), Poisson arrivals of rate λN, job sizes
// exponential or balanced-means H2 (spec.H2Params: with probability p a
// giant of mean 1/(2p), otherwise a small job of mean 1/(2(1 − p)), each
// class carrying half the work), under round robin, the least-work-left
// oracle, least loaded (JSQ) and random dispatch; the autocorrelation of
// a server's count (how long a board of counts stays true); and Crossing,
// the parameter at which one policy's theory curve crosses another's.
//
// Time is in mean service times and λ is the load per server. Every
// model is a struct with Validate; every entry point takes the model and
// a *Settings (nil: the defaults) and returns a result embedding
// outcome.Outcome — Exact or Converged on success, a limit or failure
// Status otherwise; an error only when the computation could not run (a
// *param.Error naming the field, including inputs whose cost is refused
// before any work). Results that are approximations say so (Approximate)
// and name their method (Method).
//
// # Round robin: E_N/H2/1 (SolveRoundRobin)
//
// Each server receives every N-th job: Erlang-N interarrival times of
// rate Nλ per phase. Under FCFS the waiting time of E_N/K/1, K with a
// rational transform of poles μ_1 < … < μ_k, factorises (Wiener–Hopf;
// Kleinrock, Queueing Systems vol. 1, §8.2; Cohen, The Single Server
// Queue, §II.5.10) as
//
//	W*(s) = Π_i (γ_i/μ_i)·(s + μ_i)/(s + γ_i),   A*(γ_i)·B*(−γ_i) = 1,
//
// with the γ_i real and interlacing the poles for the hyperexponential:
// P(W = 0) = Π γ_i/μ_i, E[W] = Σ (1/γ_i − 1/μ_i). Two bracketed roots
// (Brent's zeroin) give it for any N in microseconds; 5.2268 at N = 100,
// λ = 0.9 with exponential sizes.
//
// Under PS with H2 sizes a server is a Markov chain in (arrival phase,
// small jobs, giants). It is watched at arrival epochs: between two
// arrivals only completions happen, for an Erlang(N) time, and
// uniformising the completions at the small jobs' rate Λ = μ_s makes the
// number of completion steps negative binomial, C(N+k−1, k)·q^N·r^k with
// q = Nλ/(Nλ + Λ) — about thirty terms for every N, so N up to 10⁷ costs
// the same as N = 2. The stationary law seen by arrivals is the fixed
// point of z ↦ Σ_k NB(k)·(z·U)·P^k (U adds the arrival, P one completion
// step); the time-average law weights the same terms by P(NB > k)·λ/Λ.
// The giants relax slowly (one interarrival contracts the error by only
// 1 − 2.5·10⁻⁴ at λ = 0.9, SCV 30), so the iteration is accelerated by
// aggregation–disaggregation on the giant count (Takahashi; Koury,
// McAllister and Stewart 1984), whose coarse chain is built from the
// exact law of the giant completions per interarrival, and by Anderson
// acceleration (Walker and Ni 2011): about 100 iterations, half a second
// at N = 100. The count is truncated where fewer than TailTol of the
// arrivals find it full. With exponential sizes PS and FCFS share the
// count, and with it E[T].
//
// # Least work: M/H2/N (SolveLeastWork)
//
// The oracle that sends each job to the server with the least remaining
// work starts every job when it would start in one central FCFS queue:
// the M/G/N queue. For H2 sizes it is a QBD in (jobs, busy servers
// serving giants), solved by linear level reduction below N and
// matrix-geometrically above (Ramaswami and Lucantoni 1985; package
// qbd); Erlang C at SCV 1. Under PS the remaining work at every server,
// hence every choice and the least work W found, are those of FCFS:
// P(sharing) = P(W > 0) exactly; the time in system is approximated by
// one sharing partner of remaining size W, E[T] ≈ 1 + 2·E[min(S, W)].
//
// # Least loaded at finite N (SolveJSQ)
//
// With exponential sizes, exactly: the occupancy chain (servers with at
// least one, two, three jobs) is a QBD in the busy servers (1.0667 at
// N = 100, λ = 0.9). With PS servers JSQ is nearly insensitive to the
// size law (Gupta, Harchol-Balter, Sigman and Whitt 2007), so the same
// chain is the approximation for H2 sizes. With FCFS servers and H2 sizes
// a two-time-scale approximation built on the exact identity
// E[W] = P(join a giant)/μ_g + P(join a small job)/μ_s (Poisson giants,
// the small jobs' chain on the other servers, the followers a giant
// catches while the giants come and go): 5% low at SCV 30, worse at
// lighter tails — see SolveJSQ.
//
// # Random dispatch and old boards (SolveRandom, SolveCorrelation)
//
// Random dispatch makes each server an M/G/1 queue: Pollaczek–Khinchine
// under FCFS, E[T | S = x] = x/(1 − λ) under PS, so the slowdown E[T/S]
// is 1/(1 − λ) exactly. How long a board of counts stays true is the
// autocorrelation ρ(τ) = Cov(Q(0), Q(τ))/Var(Q) of one server's count,
// computed by uniformisation of the centred stationary vector on the
// truncated M/H2/1 chain (Jensen's method). Under PS with SCV 30 half
// the jobs present are giants staying about 305 service times, and a
// board 500 old still correlates 0.72 with the present (0.089 with
// exponential sizes).
//
// # Staleness budgets (Crossing)
//
// Crossing(f, g, lo, hi) finds where a policy's curve f first rises
// above another's g, by a grid scan and Brent's zeroin on the first sign
// change. NewPolicyCurve makes a policy's curve in the refresh period T:
// the board policies' from meanfield/bestofd's periodic-update attractor
// (N → ∞; an orbit that does not settle gives the average of its last
// periods, and the curve records so), the others' as the constant they
// are (random, round robin, least work and least loaded at N servers,
// best of d on live counts). StalenessStudy holds the four tables of the
// study "Sharing Servers Don't Mind the Giant" and SolveStaleness
// computes a cell from theory (fluid meanfield --staleness).
//
// References: L. Kleinrock, Queueing Systems, vols. 1–2, Wiley 1975–76;
// J. W. Cohen, The Single Server Queue, North-Holland 1982; M. F. Neuts,
// Matrix-Geometric Solutions in Stochastic Models, Johns Hopkins 1981;
// G. Latouche, V. Ramaswami, Introduction to Matrix Analytic Methods in
// Stochastic Modeling, SIAM 1999; V. Ramaswami, D. M. Lucantoni,
// "Algorithms for the multi-server queue with phase-type service",
// Stochastic Models 1(3), 1985; Y. Takahashi, "A lumping method for
// numerical calculations of stationary distributions of Markov chains",
// Tokyo Institute of Technology B-18, 1975; J. R. Koury, D. F. McAllister,
// W. J. Stewart, "Iterative methods for computing stationary distributions
// of nearly completely decomposable Markov chains", SIAM J. Alg. Disc.
// Meth. 5(2), 1984; H. F. Walker, P. Ni, "Anderson acceleration for
// fixed-point iterations", SIAM J. Numer. Anal. 49(4), 2011; V. Gupta,
// M. Harchol-Balter, K. Sigman, W. Whitt, "Analysis of
// join-the-shortest-queue routing for web server farms", Performance
// Evaluation 64, 2007; F. P. Kelly, Reversibility and Stochastic Networks,
// Wiley 1979; A. Jensen, "Markoff chains as an aid in the study of Markoff
// processes", Skand. Aktuarietidskr. 36, 1953; R. P. Brent, Algorithms for
// Minimization without Derivatives, Prentice-Hall 1973; W. Whitt,
// "Planning queueing simulations", Management Science 35(11), 1989.
package queues
