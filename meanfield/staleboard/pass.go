package staleboard

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// passKey identifies a pass's weights: its length L and executed part τ.
type passKey struct{ L, tau float64 }

// passWeights are the quantities of a pass that do not depend on the
// queue distribution.
type passWeights struct {
	pois  []float64   // Pois(s; τ), s = 0..S
	lost  float64     // Poisson tail beyond S
	binom []float64   // Binom(j; k, τ/L), j = 0..k
	w     [][]float64 // W(a, s) = ∫₀^τ Binom(a; k, t/L)·Pois(s; t) dt
	// kernel is w_d = P(arrivals − services = d), d = −S..k, at d + S.
	kernel []float64
}

// poissonTerms appends to dst[:0] the Poisson(τ) probabilities of
// s = 0, 1, … up to a tail of PoissonTol, and returns them with the tail
// left out. For s ≥ τ the tail beyond s is at most pmf(s)·r/(1 − r),
// r = τ/(s+1) < 1: the terms stop when that bound is below the tolerance,
// and the bound counts as lost.
func (m *Map) poissonTerms(dst []float64, tau float64) (pois []float64, lost float64) {
	pois = dst[:0]
	pmf := math.Exp(-tau)
	for s := 0; ; s++ {
		if s > 0 {
			pmf *= tau / float64(s)
		}
		pois = append(pois, pmf)
		if r := tau / float64(s+1); r < 0.5 {
			if bound := pmf * r / (1 - r); bound < m.poissonTol() {
				return pois, bound
			}
		}
	}
}

func (m *Map) weights(L, tau float64) *passWeights {
	key := passKey{L, tau}
	if pw, ok := m.cache[key]; ok {
		return pw
	}
	k := m.K
	pw := &passWeights{}
	pw.pois, pw.lost = m.poissonTerms(pw.pois, tau)
	S := len(pw.pois) - 1
	pw.binom = m.binomial(tau / L)
	if m.noIntegral {
		m.store(key, pw)
		return pw
	}
	// W(a, s) by Gauss–Legendre on [0, τ]: the integrand is a polynomial of
	// degree ≤ k + s times e^{−t}; enough nodes make the rule exact to
	// rounding (checked against the time-changed ODE in the tests).
	nodes := (S+k)/2 + int(tau) + 24
	xs, ws := m.legendre(nodes)
	pw.w = make([][]float64, k+1)
	for a := range pw.w {
		pw.w[a] = make([]float64, S+1)
	}
	for i, u := range xs {
		x := 0.5 * tau * (u + 1)
		wi := 0.5 * tau * ws[i]
		b := m.binomial(x / L)
		lp := math.Exp(-x) // Pois(s; x), iteratively in s
		for s := 0; s <= S; s++ {
			if s > 0 {
				lp *= x / float64(s)
			}
			for a := 0; a <= k; a++ {
				pw.w[a][s] += wi * b[a] * lp
			}
		}
	}
	m.store(key, pw)
	return pw
}

// store caches a pass's weights (the cache is emptied when it holds 4096).
func (m *Map) store(key passKey, pw *passWeights) {
	if len(m.cache) > 4096 {
		clear(m.cache)
	}
	m.cache[key] = pw
}

// legendre returns the n-point Gauss–Legendre rule on [−1, 1], cached.
func (m *Map) legendre(n int) ([]float64, []float64) {
	if m.gl == nil {
		m.gl = map[int][2][]float64{}
	}
	if r, ok := m.gl[n]; ok {
		return r[0], r[1]
	}
	xs, ws := make([]float64, n), make([]float64, n)
	quad.Legendre{}.FixedLocations(xs, ws, -1, 1)
	m.gl[n] = [2][]float64{xs, ws}
	return xs, ws
}

// binomial returns Binom(j; k, π), j = 0..k, in a new slice.
func (m *Map) binomial(pi float64) []float64 { return m.binomialTo(nil, pi) }

// pass propagates x through the first τ of a pass (see passRecursion for
// the model). Queues of length q ≥ S, S the most service events the pass
// holds (Poisson(τ) truncated at tail PoissonTol), never reach the floor
// at 0, so they just move by (arrivals − services): on them the pass is a
// convolution with w_d = Σ_{j−s=d} Binom(j; k, τ/L)·Pois(s; τ), and their
// time integral is τ·q + (k/L − 1)·τ²/2 per unit mass. Only the short low
// part q < S needs the interleaving recursion. The split is exact: both
// parts use the same truncated Poisson law.
func (m *Map) pass(x []float64, L, tau float64) ([]float64, float64, float64) {
	if tau <= 0 {
		return x, 0, 0
	}
	pw := m.weights(L, tau)
	S := len(pw.pois) - 1
	k := m.K
	if len(x) <= S+1 {
		return m.passRecursion(x, L, tau)
	}
	low := x[:S]
	out, integral, lost := m.passRecursion(low, L, tau)
	// Kernel w_d, d = j − s ∈ [−S, k], stored at index d + S.
	w := pw.kernel
	if w == nil {
		w = make([]float64, S+k+1)
		for j, bj := range pw.binom {
			if bj == 0 {
				continue
			}
			for s2, ps := range pw.pois {
				w[j-s2+S] += bj * ps
			}
		}
		pw.kernel = w
	}
	n := len(x) + k
	if len(out) < n {
		out = append(out, make([]float64, n-len(out))...)
	}
	// Only the kernel's non-zero stretch is applied (a complete pass has
	// exactly k arrivals: S + 1 of its S + k + 1 entries).
	a, b := 0, len(w)
	for a < b && w[a] == 0 {
		a++
	}
	for b > a && w[b-1] == 0 {
		b--
	}
	wk := w[a:b]
	var mass, first float64
	for q := S; q < len(x); q++ {
		v := x[q]
		if v == 0 {
			continue
		}
		mass += v
		first += float64(q) * v
		dst := out[q-S+a : q-S+b]
		dst = dst[:len(wk)]
		for i, wd := range wk {
			dst[i] += v * wd
		}
	}
	integral += tau*first + (float64(k)/L-1)*tau*tau/2*mass
	return out, integral, lost + pw.lost*mass
}

// passRecursion propagates the (unnormalised) queue distribution x through the
// first τ of a pass of length L in which each server receives k arrivals
// at independent uniform times. Given j arrivals and n potential services
// (Poisson(τ); a service at an empty queue does nothing) in [0, τ), all
// j + n event times are iid uniform, so every interleaving is equally
// likely, and the distribution D(a, s) after a random interleaving of a
// arrivals and s services obeys
//
//	D(a, s) = a/(a+s)·Up D(a−1, s) + s/(a+s)·Down D(a, s−1),
//
// positive weights only. The result is Σ_{j,s} Binom(j)·Pois(s)·D(j, s),
// and ∫₀^τ E[q] dt = Σ_{a,s} W(a, s)·mean D(a, s). It returns the new
// distribution (a fresh slice), the integral and the mass lost to the
// Poisson truncation.
func (m *Map) passRecursion(x []float64, L, tau float64) ([]float64, float64, float64) {
	if tau <= 0 {
		return x, 0, 0
	}
	k := m.K
	pw := m.weights(L, tau)
	S := len(pw.pois) - 1
	n := len(x) + k // support of D(a, s) is within [0, len(x)−1+a]
	if len(m.d0) != k+1 || cap(m.d0[0]) < n {
		m.d0 = make([][]float64, k+1)
		m.d1 = make([][]float64, k+1)
		for a := range m.d0 {
			m.d0[a] = make([]float64, n, 2*n)
			m.d1[a] = make([]float64, n, 2*n)
		}
	}
	for a := range m.d0 {
		m.d0[a] = m.d0[a][:n]
		m.d1[a] = m.d1[a][:n]
	}
	out := make([]float64, n)
	var mass, mean0 float64
	for q, v := range x {
		mass += v
		mean0 += float64(q) * v
	}
	// Means follow the recursion without a pass over q: every D(a, s) has
	// the mass of x; Up adds the mass to the mean, Down subtracts the mass
	// above zero: mean(Down y) = mean(y) − (mass − y[0]).
	if len(m.mp) < k+1 {
		m.mp, m.mc = make([]float64, k+1), make([]float64, k+1)
	}
	mp, mc := m.mp[:k+1], m.mc[:k+1] // means of D(a, s−1) and D(a, s)
	var integral float64
	prev, cur := m.d0, m.d1
	for s := 0; s <= S; s++ {
		for a := 0; a <= k; a++ {
			d := cur[a][:n]
			switch {
			case s == 0 && a == 0:
				copy(d, x)
				clear(d[len(x):])
				mc[0] = mean0
			case s == 0:
				// Up only.
				up := cur[a-1][:n]
				d[0] = 0
				copy(d[1:], up[:n-1])
				mc[a] = mc[a-1] + mass
			default:
				dn := prev[a][:n] // D(a, s−1)
				cs := float64(s) / float64(a+s)
				ca := 1 - cs
				downMean := mp[a] - (mass - dn[0])
				if a == 0 {
					d[0] = dn[0] + dn[1]
					copy(d[1:n-1], dn[2:n])
					d[n-1] = 0
					mc[0] = downMean
				} else {
					up := cur[a-1][:n]
					d[0] = cs * (dn[0] + dn[1])
					dd, uu, nn := d[1:n-1], up[:n-2], dn[2:n]
					for i := range dd {
						dd[i] = ca*uu[i] + cs*nn[i]
					}
					d[n-1] = ca * up[n-2]
					mc[a] = ca*(mc[a-1]+mass) + cs*downMean
				}
			}
			if pw.w != nil {
				integral += pw.w[a][s] * mc[a]
			}
			if c := pw.pois[s] * pw.binom[a]; c > 0 {
				for q, v := range d {
					out[q] += c * v
				}
			}
		}
		prev, cur = cur, prev
		mp, mc = mc, mp
	}
	return out, integral, pw.lost * mass
}
