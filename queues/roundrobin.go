package queues

import (
	"math"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// MaxServers bounds the farm size of the models that cost nothing per
// server (round robin, random dispatch): 10⁷, the simulator's own bound.
const MaxServers = 10_000_000

// RoundRobin is a farm of N identical servers behind one dispatcher that
// hands the jobs of a Poisson stream of rate λN to the servers in turn.
// Server i receives every N-th job, so its interarrival times are
// Erlang-N: N exponential phases of rate Nλ, mean 1/λ, squared
// coefficient of variation 1/N. Each server is therefore an E_N/G/1 queue
// (E_N/H2/1 for the balanced-means H2 sizes), FCFS or PS, and the farm's
// mean time in system is one server's.
type RoundRobin struct {
	// Servers N, 1..MaxServers (1 is the M/G/1 queue).
	Servers int
	// Load is λ, the arrival rate per server, MinLoad ≤ λ < 1.
	Load float64
	// Discipline of the servers (default FCFS).
	Discipline farm.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes farm.Sizes
}

// Validate checks the parameters (*param.Error names the bad field).
func (m *RoundRobin) Validate() error {
	if m.Servers < 1 || m.Servers > MaxServers {
		return param.Errorf("Servers", "N = %d, want 1..%d", m.Servers, MaxServers)
	}
	if err := validLoad(m.Load); err != nil {
		return err
	}
	if err := validDiscipline(m.Discipline); err != nil {
		return err
	}
	_, err := lawOf(m.Sizes)
	return err
}

// RoundRobinResult is the E_N/G/1 queue of one server.
type RoundRobinResult struct {
	Result
	// Roots γ_i and Weights c_i give the FCFS waiting time's law,
	// P(W > x) = Σ_i c_i·exp(−γ_i·x) (one term for exponential sizes, two
	// for H2); nil under PS.
	Roots, Weights []float64
	// GiantShare is the fraction of the jobs present that are giants
	// (time average), GiantStay and SmallStay the mean times in system of
	// a giant and of a small job; all 0 for exponential sizes.
	GiantShare, GiantStay, SmallStay float64
}

// SolveRoundRobin computes one server of the farm: under FCFS exactly by
// spectral factorisation (any N, microseconds); under PS with H2 sizes
// from the chain embedded at arrival epochs (see doc.go), with
// exponential sizes PS and FCFS share their counts and so their mean.
func SolveRoundRobin(m *RoundRobin, s *Settings) (*RoundRobinResult, error) {
	start := time.Now()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	lw, _ := lawOf(m.Sizes)
	var res *RoundRobinResult
	if m.Discipline == farm.PS && lw.h2() {
		var err error
		res, err = solveRoundRobinPS(m, lw, s)
		if err != nil {
			return nil, err
		}
	} else {
		res = erlangFCFS(m.Servers, m.Load, lw)
		if m.Discipline == farm.PS {
			// Exponential sizes: a PS server completes jobs at rate 1 while
			// busy, as a FCFS one does, so the count, and with it E[T] by
			// Little's law and the chance of arriving to a busy server, is
			// the same.
			res.Roots, res.Weights = nil, nil
			res.Method = "spectral factorisation of E_N/M/1 (PS and FCFS share the count with exponential sizes)"
			res.SlowdownNote = "not computed for PS round robin"
		}
	}
	res.finish(m.Load)
	res.Elapsed = time.Since(start)
	return res, nil
}

// erlangFCFS is the E_N/K/1 FCFS queue, K the exponential or H2 law, by
// spectral (Wiener–Hopf) factorisation: for service with a rational
// transform of k poles μ_1 < … < μ_k the waiting time has the transform
//
//	W*(s) = Π_i (γ_i/μ_i)·(s + μ_i)/(s + γ_i),
//
// γ_i the k roots with positive real part of A*(γ)·B*(−γ) = 1, A* the
// interarrival transform and B* the service transform (Kleinrock,
// Queueing Systems vol. 1, §8.2–8.3; Cohen, The Single Server Queue,
// §II.5.10; for GI/M/1, γ = μ(1 − σ) with σ = A*(μ(1 − σ))). The ascending
// ladder height of the random walk S − A has the service's poles, and
// its factor 1 − H(s) = Π(s + γ_i)/Π(s + μ_i) vanishes exactly at the
// roots. For the hyperexponential the roots are real and interlace the
// poles, γ_i ∈ (μ_{i−1}, μ_i) with μ_0 = 0, so each is bracketed. Hence
//
//	P(W = 0) = Π γ_i/μ_i,   E[W] = Σ_i (1/γ_i − 1/μ_i),
//	P(W > x) = Σ_i c_i e^{−γ_i x},  c_i = (Π_l γ_l/μ_l)·Π_l (μ_l − γ_i) / (γ_i·Π_{l≠i} (γ_l − γ_i)).
func erlangFCFS(N int, load float64, lw law) *RoundRobinResult {
	k := len(lw.mu)
	// Phases by increasing rate (the giants of H2 first).
	mu := append([]float64(nil), lw.mu...)
	p := append([]float64(nil), lw.p...)
	if k == 2 && mu[0] > mu[1] {
		mu[0], mu[1], p[0], p[1] = mu[1], mu[0], p[1], p[0]
	}
	nu := float64(N) * load
	// F(γ) = Σ_l p_l μ_l Π_{m≠l}(μ_m − γ)·A*(γ) − Π_m (μ_m − γ), written
	// in δ = μ_i − γ for the root paired with μ_i so that δ_i, which
	// E[W] needs, keeps its relative precision.
	res := &RoundRobinResult{Result: Result{Method: "spectral factorisation of E_N/H2/1", SlowdownNote: slowdownFCFS}}
	if k == 1 {
		res.Method = "spectral factorisation of E_N/M/1"
	}
	res.Status = outcome.Exact
	gam, del := make([]float64, k), make([]float64, k)
	for i := range k {
		F := func(d float64) float64 {
			g := mu[i] - d
			a := math.Exp(-float64(N) * math.Log1p(g/nu))
			num, den := 0.0, 1.0
			for l := range k {
				t := p[l] * mu[l]
				for m := range k {
					if m != l {
						t *= diff(mu, m, i, d)
					}
				}
				num += t
				den *= diff(mu, l, i, d)
			}
			return num*a - den
		}
		lo := 0.0 // γ = μ_i
		hi := mu[i]
		if i > 0 {
			hi = mu[i] - mu[i-1] // γ = μ_{i−1}
		} else {
			// γ = μ_1·2^{−j}: F < 0 just above the trivial root γ = 0
			// (F'(0) = μ_1⋯μ_k·(1 − 1/λ) < 0) and F(μ_1) > 0.
			for j := 1; j < 1100; j++ {
				hi = mu[0] * (1 - math.Ldexp(1, -j))
				if F(hi) < 0 {
					break
				}
			}
		}
		d, evals, ok := brent(F, lo, hi, F(lo), F(hi), 0, 400)
		res.Evaluations += evals
		if !ok || !(F(lo)*F(hi) <= 0) {
			res.Status = outcome.NonFinite
		}
		gam[i], del[i] = mu[i]-d, d
	}
	p0, ew := 1.0, 0.0
	for i := range k {
		p0 *= gam[i] / mu[i]
		ew += del[i] / (gam[i] * mu[i])
	}
	res.Roots, res.Weights = gam, make([]float64, k)
	for i := range k {
		c := p0 / gam[i]
		for l := range k {
			c *= mu[l] - gam[i]
			if l != i {
				c /= gam[l] - gam[i]
			}
		}
		res.Weights[i] = c
	}
	res.Sojourn = 1 + ew
	res.WaitProb = 1 - p0
	if k == 2 {
		pg, mg := lw.p[1], lw.mu[1]
		res.GiantStay = ew + 1/mg
		res.SmallStay = ew + 1/lw.mu[0]
		res.GiantShare = pg * res.GiantStay / res.Sojourn
	}
	return res
}

// diff is μ_m − γ with γ = μ_i − d, exactly d when m = i.
func diff(mu []float64, m, i int, d float64) float64 {
	if m == i {
		return d
	}
	return mu[m] - mu[i] + d
}
