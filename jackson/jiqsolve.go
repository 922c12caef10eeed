package jackson

import (
	"math"

	"github.com/fluidlb/fluid/outcome"
)

// solveJIQ computes the JIQ product form in one level recursion: O(N·R)
// operations, O(R) memory, only sums and products of positive numbers.
//
// Units. With κ_r = v_r/α_r (v_r = β_r/Σβ, the visit ratio of pool r),
// every demand multiplied by λN and then divided by c = max(κ_max, λ)
// leaves the product form unchanged:
//
//	π(n) ∝ A^{n₀}/n₀! · Π_r r_r^{n_r},  A = (λ/c)·N ≤ N,  r_r = κ_r/c ≤ 1.
//
// Write G(n) for the normalising constant of population n in these units
// and X(n) = G(n−1)/G(n). Then A·X(n) = E[n₀] ≤ n ≤ N and r_r·X(n) is a
// utilisation, so X(n) ≤ 1: G never decreases with n, and grows by at
// most A/n + R per level.
//
// Recursion. The chain holds, at level n, the partial convolutions
// w_i(n) = G_{0..i}(n) (the busy station and pools 1..i; w_K = G) with
//
//	w_0(n) = w_0(n−1)·A/n (the infinite-server station in closed form),
//	w_i(n) = w_{i−1}(n) + r_i·w_i(n−1),
//
// and the token sums t_i(n) = Σ_{k≥1} r_i^k·G(n−k) = r_i·(G(n−1) + t_i(n−1)),
// so that E[n_i] = t_i(N)/G(N) (the sum's rounding error is carried along,
// Kahan-style: t_i accumulates about E[n_i] levels). All values are
// rescaled by an exact power of two whenever G passes 2⁶⁴ (so rescaling
// adds no rounding; G ≥ 1 throughout). A partial sum below 2⁻⁹³⁰ of
// G(n−1), or a token sum below 2⁻⁹⁶⁰, is set to zero: it can no longer
// affect any later level, and keeping it would drive the recursion into
// subnormal arithmetic. So probabilities below about 1e-280 read 0.
//
// Empty pools without cancellation. The pool with the largest κ is last in
// the chain, so w_{K−1}(N) is the constant of the network without it, in
// the same scale as G(N): P(n_K = 0) = w_{K−1}(N)/G(N), accurate to rounding
// however small. For every other pool s, 1 − r_s·X(N) and 1 − r_K·X(N)
// differ by (r_K − r_s)·X(N) ≥ 0, so
//
//	P(n_s = 0) = P(n_K = 0) + (r_K − r_s)·X(N),
//
// a sum of two non-negative terms (the difference r_K − r_s of two
// floating-point numbers is exact when they are within a factor 2 of each
// other): nothing cancels, and P(n_s = 0) is as accurate, relatively, as
// P(n_K = 0) and X(N) are. (It is also never tiny: P(n_s = 0) ≥ 1/(N+1)
// for s ≠ K, since given the m tokens that s and K share, n_s = 0 has
// probability 1/(1 + q + … + q^m) with q = r_s/r_K ≤ 1.)
func solveJIQ(m *JIQ) *JIQResult {
	R := len(m.Alpha)
	res := &JIQResult{
		Servers:  m.Servers,
		NoTokens: make([]float64, R),
		Tokens:   make([]float64, R),
		Outcome:  outcome.Outcome{Status: outcome.Exact},
	}
	for r := range res.NoTokens {
		res.NoTokens[r] = 1 // a pool without tokens never has one
	}
	idx, kappa := chainOrder(m)
	K := len(idx)
	rr, aN := chainRatios(kappa, m.Load)
	n := m.Servers
	c := levelRecursion(rr, aN*float64(n), n)
	gN := c.w[K]
	pLast := c.w[K-1] / gN
	res.NoTokens[idx[K-1]] = pLast
	res.Tokens[idx[K-1]] = (c.t[K] + c.tc[K]) / gN / float64(n)
	for i := 1; i < K; i++ {
		res.NoTokens[idx[i-1]] = pLast + (rr[K]-rr[i])*c.x
		res.Tokens[idx[i-1]] = (c.t[i] + c.tc[i]) / gN / float64(n)
	}
	// E[n₀] = A·X(N).
	res.Busy = aN * c.x
	// B = Σ_r α_r·P(n_r = 0): non-negative terms, each accurate to
	// rounding, so B keeps its relative accuracy when tiny (where
	// 1 − G(N−1)/(λN·G(N)) would cancel).
	for r, a := range m.Alpha {
		res.Blocking += a * res.NoTokens[r]
	}
	return res
}

// chainOrder returns the pools that receive tokens (their indices in
// m.Alpha) and their κ_r = v_r/α_r, in chain order: the pool with the
// largest κ last.
func chainOrder(m *JIQ) (idx []int, kappa []float64) {
	beta := m.beta()
	var bsum float64
	for _, b := range beta {
		bsum += b
	}
	last := -1
	for r, b := range beta {
		if b > 0 {
			k := (b / bsum) / m.Alpha[r]
			if last < 0 || k > kappa[last] {
				last = len(idx)
			}
			idx = append(idx, r)
			kappa = append(kappa, k)
		}
	}
	K := len(idx)
	idx[last], idx[K-1] = idx[K-1], idx[last]
	kappa[last], kappa[K-1] = kappa[K-1], kappa[last]
	return idx, kappa
}

// chainRatios returns r_i of chain positions i = 1..K (rr[0] unused) and
// A/N = λ/c, in the units of solveJIQ's doc.
func chainRatios(kappa []float64, load float64) (rr []float64, aN float64) {
	K := len(kappa)
	kmax := kappa[K-1]
	rr = make([]float64, K+1)
	switch {
	case math.IsInf(kmax, 1):
		// A pool with a vanishing share of arrivals keeps every token it
		// receives: in the limit it holds all of them.
		for i, k := range kappa {
			if math.IsInf(k, 1) {
				rr[i+1] = 1
			}
		}
	case load > kmax:
		aN = 1
		for i, k := range kappa {
			rr[i+1] = k / load
		}
	default:
		aN = load / kmax
		for i, k := range kappa {
			rr[i+1] = k / kmax
		}
		rr[K] = 1
	}
	return rr, aN
}

// jiqLevels is the end state of the level recursion: the partial sums
// w_i = G_{0..i}(N) and the token sums t_i (with their rounding errors tc_i),
// all in one scale, and X(N) = G(N−1)/G(N).
type jiqLevels struct {
	w, t, tc []float64
	x        float64
}

// levelRecursion runs G_{0..i}(k) = G_{0..i−1}(k) + r_i·G_{0..i}(k−1),
// k = 1..n, over the base A^k/k!, with the token sums alongside.
func levelRecursion(rr []float64, A float64, n int) jiqLevels {
	K := len(rr) - 1
	w := make([]float64, K+1)
	t := make([]float64, K+1)
	tc := make([]float64, K+1)
	for i := range w {
		w[i] = 1 // G_{0..i}(0) = 1
	}
	const (
		big   = 0x1p64   // rescale G above this
		dust  = 0x1p-930 // flush partial sums below dust·G(n−1)
		small = 0x1p-960 // flush token sums below this (G ≥ 1)
	)
	var x float64 // X(N) = G(N−1)/G(N)
	for k := 1; k <= n; k++ {
		prev := w[K]
		thr := prev * dust
		u := w[0] * (A / float64(k))
		if u < thr {
			u = 0
		}
		w[0] = u
		for i := 1; i <= K; i++ {
			r := rr[i]
			u += r * w[i]
			w[i] = u
			// t_i ← r_i·(G(n−1) + t_i), with the rounding error of the sum
			// carried in tc (t_i accumulates about E[n_i] levels).
			ti := t[i]
			s := prev + ti
			bb := s - prev
			lo := tc[i] + ((prev - (s - bb)) + (ti - bb))
			hi := r * s
			lo = r * lo
			if hi < small {
				hi, lo = 0, 0
			}
			t[i], tc[i] = hi, lo
		}
		// The partial sums grow with i (w_i ≥ w_{i−1}): those below the
		// threshold are a prefix.
		for i := 1; i < K && w[i] < thr; i++ {
			w[i] = 0
		}
		top := w[K]
		if k == n {
			x = prev / top
		}
		if top > big {
			// Exact rescaling by 2^−e, G(n) then in [1, 2).
			_, e := math.Frexp(top)
			f := math.Ldexp(1, 1-e)
			for i := range w {
				w[i] *= f
				t[i] *= f
				tc[i] *= f
			}
		}
	}
	return jiqLevels{w: w, t: t, tc: tc, x: x}
}
