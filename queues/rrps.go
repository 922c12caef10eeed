package queues

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// MaxPSStates bounds the states of the PS round-robin chain (2¹⁹: the
// chain keeps about 30 vectors of that length, 120 MB, and an iteration
// costs about 30 passes over them). It allows a truncation of 1,022 jobs
// per server, enough for λ up to about 0.977 at the default TailTol.
const MaxPSStates = 1 << 19

// maxPSFloats bounds the numbers the PS chain keeps, about (3D + 11)
// vectors of its states (D = giantSteps): 2²⁶, 512 MB.
const maxPSFloats = 1 << 26

// giantCut bounds the probability of the giant completions the coarse
// chain lumps together (see giantSteps).
const giantCut = 1e-16

// giantSteps is the number D of giant completions within one
// interarrival time that the coarse chain tells apart (more are lumped
// with the D-th). Giants complete at rate μ_g·j/n ≤ μ_g, so their number
// in an interarrival time is dominated by the completions of a constant
// rate μ_g: negative binomial, k before the N-th of the arrival phases
// (rate Nλ each) with probability C(N+k−1, k)·a^N·(1−a)^k,
// a = Nλ/(Nλ + μ_g). D is the least whose tail beyond is below giantCut
// (7 at N = 100, λ = 0.9, SCV 30; 23 at N = 1, SCV 4), and never more than
// M + 1 (no more giants than jobs). Only then is the coarse correction
// exact enough to leave the exact map's fixed point in place (with D = 8
// at N = 1, SCV 4, the lumped 2·10⁻⁶ moved E[T] by 1.6·10⁻⁷).
func giantSteps(N int, load, mug float64, M int) int {
	nu := float64(N) * load
	r := mug / (nu + mug)
	w := math.Exp(-float64(N) * math.Log1p(mug/nu))
	tail := 1 - w
	for D := 1; ; D++ {
		if tail <= giantCut || D > M {
			return D
		}
		w *= float64(N+D-1) / float64(D) * r
		tail -= w
	}
}

// psChain is one E_N/H2/1-PS server watched just before each arrival.
// A state is (n, j): n jobs of which j giants, n ≤ M, stored level by
// level (level n at n(n+1)/2, position j). Between two arrivals only
// completions happen — a small job leaves at rate μ_s(n − j)/n, a giant
// at μ_g·j/n — for an Erlang(N, Nλ) time. Uniformising the completions
// at Λ = μ_s (the largest total rate), the number of uniformised events
// in an interarrival time is negative binomial: k events before the N-th
// arrival phase ends with probability C(N+k−1, k)·q^N·r^k, q = ν/(ν+Λ),
// r = Λ/(ν+Λ), ν = Nλ. So one interarrival maps the distribution z seen
// by an arrival to
//
//	z' = Σ_k NB(k)·(z·U)·P^k,
//
// U adding the arrival (small with probability 1 − p, giant with p) and
// P = I + Q/Λ one uniformised completion step — whatever N is: the
// negative binomial has mean Λ/λ and about thirty terms above 10⁻¹⁸ for
// every N. The time-average distribution is, likewise,
//
//	π = (λ/Λ)·Σ_k P(NB > k)·(z·U)·P^k
//
// (the expected time with exactly k uniformised events before the next
// arrival is P(NB > k)/Λ).
type psChain struct {
	M, S         int
	N            int
	load         float64
	p, mus, mug  float64
	nb, nbTail   []float64
	D            int         // giant completions told apart (giantSteps)
	phi          [][]float64 // phi[g][s]: see giantLaw
	y, a, b      []float64
	coarse, mass []float64
}

func levelStart(n int) int { return n * (n + 1) / 2 }

func newPSChain(N int, load float64, lw law, M int) *psChain {
	c := &psChain{M: M, S: levelStart(M + 1), N: N, load: load, p: lw.p[1], mus: lw.mu[0], mug: lw.mu[1]}
	nu := float64(N) * load
	lam := c.mus
	// log q = −log(1 + Λ/ν), r = Λ/(ν + Λ).
	logq := -math.Log1p(lam / nu)
	r := lam / (nu + lam)
	mean := float64(N) * r / (1 - r)
	w := math.Exp(float64(N) * logq)
	for k := 0; ; k++ {
		c.nb = append(c.nb, w)
		if float64(k) > mean && w < 1e-18 {
			break
		}
		w *= float64(N+k) / float64(k+1) * r
	}
	var tot float64
	for _, v := range c.nb {
		tot += v
	}
	c.nbTail = make([]float64, len(c.nb))
	var tail float64
	for k := len(c.nb) - 1; k >= 0; k-- {
		c.nb[k] /= tot
		c.nbTail[k] = tail // P(NB > k)
		tail += c.nb[k]
	}
	c.D = giantSteps(N, load, c.mug, M)
	c.y, c.a, c.b = make([]float64, c.S), make([]float64, c.S), make([]float64, c.S)
	c.coarse, c.mass = make([]float64, (M+1)*(M+1)), make([]float64, M+1)
	c.giantLaw()
	return c
}

// step writes dst = v·P, one uniformised completion step.
func (c *psChain) step(dst, v []float64) {
	clear(dst)
	dst[0] = v[0]
	g := c.mug / c.mus
	for n := 1; n <= c.M; n++ {
		o, od := levelStart(n), levelStart(n-1)
		vn := v[o : o+n+1]
		dn := dst[o : o+n+1]
		dd := dst[od : od+n]
		inv := 1 / float64(n)
		for j, x := range vn {
			if x == 0 {
				continue
			}
			ps := float64(n-j) * inv
			pg := g * float64(j) * inv
			dn[j] += x * (1 - ps - pg)
			if j < n {
				dd[j] += x * ps
			}
			if j > 0 {
				dd[j-1] += x * pg
			}
		}
	}
}

// arrive writes c.y = z·U: each state gains a small job (1 − p) or a
// giant (p); at level M the job is turned away.
func (c *psChain) arrive(z []float64) {
	y := c.y
	clear(y)
	for n := 0; n < c.M; n++ {
		o, ou := levelStart(n), levelStart(n+1)
		for j := 0; j <= n; j++ {
			x := z[o+j]
			y[ou+j] += x * (1 - c.p)
			y[ou+j+1] += x * c.p
		}
	}
	o := levelStart(c.M)
	for j, x := range z[o:] {
		y[o+j] += x
	}
}

// interarrival writes dst = Σ_k w_k·(z·U)·P^k for the weights w.
func (c *psChain) interarrival(dst, z []float64, w []float64) {
	c.arrive(z)
	a, b := c.a, c.b
	copy(a, c.y)
	clear(dst)
	for k, wk := range w {
		for i, v := range a {
			dst[i] += wk * v
		}
		if k < len(w)-1 {
			c.step(b, a)
			a, b = b, a
		}
	}
}

// giantLaw computes phi[g][s], the probability that g giants complete
// (g = D: at least that many) during one interarrival time
// started in state s, backward over the uniformised steps:
// ψ_{k+1}(s, g) = Σ_{s'} P(s, s')·ψ_k(s', g − [s → s' completes a giant]),
// φ = Σ_k NB(k)·ψ_k.
func (c *psChain) giantLaw() {
	psi, nxt := make([][]float64, c.D+1), make([][]float64, c.D+1)
	c.phi = make([][]float64, c.D+1)
	for g := range psi {
		psi[g], nxt[g] = make([]float64, c.S), make([]float64, c.S)
		c.phi[g] = make([]float64, c.S)
	}
	for s := range psi[0] {
		psi[0][s] = 1
	}
	gr := c.mug / c.mus
	for k, wk := range c.nb {
		for g := range psi {
			for s, v := range psi[g] {
				c.phi[g][s] += wk * v
			}
		}
		if k == len(c.nb)-1 {
			break
		}
		for g := range nxt {
			nxt[g][0] = psi[g][0]
		}
		for n := 1; n <= c.M; n++ {
			o, od := levelStart(n), levelStart(n-1)
			inv := 1 / float64(n)
			for j := 0; j <= n; j++ {
				s := o + j
				ps := float64(n-j) * inv
				pg := gr * float64(j) * inv
				for g := 0; g <= c.D; g++ {
					v := (1 - ps - pg) * psi[g][s]
					if j < n {
						v += ps * psi[g][od+j]
					}
					if j > 0 {
						if g > 0 {
							v += pg * psi[g-1][od+j-1]
						}
						if g == c.D {
							v += pg * psi[g][od+j-1]
						}
					}
					nxt[g][s] = v
				}
			}
		}
		psi, nxt = nxt, psi
	}
}

// aggregate is the coarse correction of iterative aggregation–
// disaggregation (Takahashi 1975; Koury, McAllister and Stewart,
// "Iterative methods for computing stationary distributions of nearly
// completely decomposable Markov chains", SIAM J. Alg. Disc. Meth. 5,
// 1984) with one block per giant count j: the chain of j alone, its rates
// averaged over z's distribution within each block, is solved exactly
// (GTH on its lower Hessenberg matrix) and each block of z is rescaled to
// that chain's stationary mass. The giants are what relaxes slowly
// (at λ = 0.9, SCV 30 one interarrival contracts the error by only
// 1 − 2.5·10⁻⁴); the correction removes that mode, leaving the small
// jobs' fast relaxation to the iteration. A stationary z is left as it
// is, so the fixed point is that of the exact map.
func (c *psChain) aggregate(z []float64) {
	J := c.M + 1
	C, zj := c.coarse, c.mass
	clear(C)
	clear(zj)
	for n := 0; n <= c.M; n++ {
		o := levelStart(n)
		for j := 0; j <= n; j++ {
			x := z[o+j]
			if x == 0 {
				continue
			}
			zj[j] += x
			row := C[j*J : (j+1)*J]
			if n == c.M {
				for g := 0; g <= c.D && g <= j; g++ {
					row[j-g] += x * c.phi[g][o+j]
				}
				continue
			}
			su, sg := levelStart(n+1)+j, levelStart(n+1)+j+1
			for g := 0; g <= c.D; g++ {
				if g <= j {
					row[j-g] += x * (1 - c.p) * c.phi[g][su]
				}
				if g <= j+1 {
					row[j+1-g] += x * c.p * c.phi[g][sg]
				}
			}
		}
	}
	for j, mj := range zj {
		if mj > 0 {
			row := C[j*J : (j+1)*J]
			for t := range row {
				row[t] /= mj
			}
		}
	}
	xi := gthHessenberg(C, J, c.D)
	for n := 0; n <= c.M; n++ {
		o := levelStart(n)
		for j := 0; j <= n; j++ {
			if zj[j] > 0 {
				z[o+j] *= xi[j] / zj[j]
			}
		}
	}
}

// gthHessenberg is the GTH elimination (see qbd.GTH) of an n×n
// non-negative matrix a (row-major, rows the outflows of each state)
// whose entries above the first superdiagonal and more than d+1 below the
// diagonal are zero: eliminating state k then changes only row k − 1, so
// the cost is O(n·d).
func gthHessenberg(a []float64, n, d int) []float64 {
	for k := n - 1; k > 0; k-- {
		lo := max(0, k-d-1)
		var s float64
		for j := lo; j < k; j++ {
			s += a[k*n+j]
		}
		i := k - 1
		if s == 0 {
			a[i*n+k] = 0
			continue
		}
		aik := a[i*n+k] / s
		a[i*n+k] = aik
		for j := lo; j < k; j++ {
			a[i*n+j] += aik * a[k*n+j]
		}
	}
	x := make([]float64, n)
	x[0] = 1
	sum := 1.0
	for k := 1; k < n; k++ {
		x[k] = x[k-1] * a[(k-1)*n+k]
		sum += x[k]
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}

// psStart is the M/H2/1-PS stationary law, the start of the iteration:
// a symmetric queue's product form, P(n, j) = (1 − λ)λⁿ·C(n, j)/2ⁿ for
// the balanced means (each class has load λ/2).
func (c *psChain) psStart() []float64 {
	z := make([]float64, c.S)
	for n := 0; n <= c.M; n++ {
		o := levelStart(n)
		lg, _ := math.Lgamma(float64(n + 1))
		for j := 0; j <= n; j++ {
			l1, _ := math.Lgamma(float64(j + 1))
			l2, _ := math.Lgamma(float64(n - j + 1))
			z[o+j] = (1 - c.load) * math.Exp(lg-l1-l2+float64(n)*math.Log(c.load/2))
		}
	}
	return z
}

// embed copies z of a chain truncated lower into this one's layout.
func (c *psChain) embed(z []float64, M int) []float64 {
	out := make([]float64, c.S)
	copy(out, z[:levelStart(M+1)])
	return out
}

// extend returns the truncation that the decay of z's top levels
// predicts will lose at most tailTol: with η the geometric decay per level
// over the top 20 levels, M + log(tailTol/lost)/log η, plus ten levels,
// and at least 1.5·M (at most 2M where the decay cannot be read).
func extend(z []float64, M int, lost, tailTol float64) int {
	level := func(n int) float64 {
		var s float64
		for _, v := range z[levelStart(n):levelStart(n+1)] {
			s += v
		}
		return s
	}
	var hi, lo float64
	for n := M - 9; n <= M; n++ {
		hi += level(n)
	}
	for n := M - 19; n <= M-10; n++ {
		lo += level(n)
	}
	eta := math.Pow(hi/lo, 0.1)
	next := 2 * M
	if eta > 0 && eta < 1 && param.Finite(eta) {
		next = M + 10 + int(math.Ceil(math.Log(tailTol/lost)/math.Log(eta)))
	}
	return max(next, M+M/2)
}

// solveRoundRobinPS solves the embedded chain, doubling the truncation
// while more than TailTol of the arrivals find it full.
func solveRoundRobinPS(m *RoundRobin, lw law, s *Settings) (*RoundRobinResult, error) {
	tailTol := s.tailTol()
	// The count of an M/G/1-PS queue is geometric, P(n ≥ M) = λ^M, and
	// round robin's is barely lighter (at N = 100, λ = 0.9, SCV 30 it
	// decays like 0.894ⁿ). So the first truncation is what λ^M needs, and
	// one that still loses too much is extended by the decay rate seen at
	// its top. The truncation moves E[T] by about 100 times the fraction
	// of arrivals lost, relative (turned-away jobs would have stayed
	// longest): 10⁻⁸ at the default TailTol.
	need := int(math.Ceil(math.Log(tailTol) / math.Log(m.Load)))
	M := max(20, need+10)
	maxM := 1
	for levelStart(maxM+2) <= MaxPSStates {
		maxM++
	}
	if D := giantSteps(m.Servers, m.Load, lw.mu[1], M); M <= maxM && float64(3*D+11)*float64(levelStart(M+1)) > maxPSFloats {
		return nil, param.Errorf("Load", "λ = %v with N = %d and SCV %v needs %d jobs per server and %d giant-completion classes in the PS chain, about %.0f MB, more than %d MB", m.Load, m.Servers, lw.scv, M, D, 8*float64(3*D+11)*float64(levelStart(M+1))/(1<<20), 8*maxPSFloats/(1<<20))
	}
	if M > maxM {
		return nil, param.Errorf("Load", "λ = %v needs about %d jobs per server in the truncated PS chain (%d states), more than the %d states allowed (λ ≤ %.4g at TailTol %g): the count of a PS server decays like λⁿ", m.Load, M, levelStart(M+1), MaxPSStates, math.Pow(tailTol, 1/float64(maxM-10)), tailTol)
	}
	var z []float64
	prevM := 0
	var res *RoundRobinResult
	evals := 0
	for {
		var c *psChain
		res, c, z = solvePS(m, lw, M, z, prevM, s)
		evals += res.Evaluations
		if !res.Status.OK() || res.Lost <= tailTol || M >= maxM {
			if res.Status.OK() && res.Lost > tailTol {
				res.Status = outcome.TruncationLimit
			}
			res.Evaluations = evals
			psMeasures(res, c, z, m.Load)
			break
		}
		prevM, M = M, min(extend(z, M, res.Lost, tailTol), maxM)
	}
	return res, nil
}

// solvePSAt solves the PS chain truncated at M from the M/H2/1-PS start.
func solvePSAt(m *RoundRobin, lw law, M int, s *Settings) (*RoundRobinResult, error) {
	res, c, z := solvePS(m, lw, M, nil, 0, s)
	psMeasures(res, c, z, m.Load)
	res.finish(m.Load)
	return res, nil
}

// solvePS iterates the chain truncated at M to its stationary law z seen
// by arrivals, from z0 (truncated at prevM) or, if nil, the M/H2/1-PS law.
func solvePS(m *RoundRobin, lw law, M int, z0 []float64, prevM int, s *Settings) (*RoundRobinResult, *psChain, []float64) {
	res := &RoundRobinResult{Result: Result{Method: "E_N/H2/1-PS chain at arrival epochs (negative-binomial uniformisation, aggregation by giant count, Anderson acceleration)"}}
	c := newPSChain(m.Servers, m.Load, lw, M)
	var z []float64
	if z0 == nil {
		z = c.psStart()
	} else {
		z = c.embed(z0, prevM)
	}
	tmp := make([]float64, c.S)
	g := func(dst, x []float64) {
		copy(tmp, x)
		c.aggregate(tmp)
		c.interarrival(dst, tmp, c.nb)
		var sum float64
		for _, v := range dst {
			sum += v
		}
		for i := range dst {
			dst[i] /= sum
		}
	}
	z, res.Evaluations, _, res.Status = anderson(g, z, 5, s.tol(), s.maxIter(), s.run())
	for _, v := range z[levelStart(M):] {
		res.Lost += v
	}
	res.MaxQueue, res.States = M, c.S
	return res, c, z
}

// psMeasures fills the result from the law z seen by arrivals: the
// time-average law π, E[T] by Little's law on the admitted jobs, the
// probability of arriving to a busy server, and the giants' share.
func psMeasures(res *RoundRobinResult, c *psChain, z []float64, load float64) {
	pi := make([]float64, c.S)
	w := make([]float64, len(c.nbTail))
	for k, t := range c.nbTail {
		w[k] = load / c.mus * t
	}
	c.interarrival(pi, z, w)
	var tot, en, ej float64
	for n := 0; n <= c.M; n++ {
		o := levelStart(n)
		for j := 0; j <= n; j++ {
			v := pi[o+j]
			tot += v
			en += float64(n) * v
			ej += float64(j) * v
		}
	}
	en, ej = en/tot, ej/tot
	through := load * (1 - res.Lost)
	res.Sojourn = en / through
	res.WaitProb = 1 - z[0]
	res.GiantShare = ej / en
	res.GiantStay = ej / (through * c.p)
	res.SmallStay = (en - ej) / (through * (1 - c.p))
	res.SlowdownNote = "not computed for PS round robin"
}
