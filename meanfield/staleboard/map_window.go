package staleboard

import (
	"math"
)

// The window evolution of a period (evolve). Two facts make a period cost
// about linear in the number of passes instead of the product of passes
// and levels:
//
//   - A pass changes the law of a queue only through its floor at 0, and
//     only at the levels it can reach: given a arrivals and s services in
//     a random order, a queue that starts at q ends at
//     a − s + max(q, M), M the largest excess of services over arrivals
//     along the order (a ballot-type variable with a closed-form law), so
//     the floor matters only at end levels ≤ a ≤ k. Above k the pass is
//     the free convolution with w_d = Σ_{a−s=d} Binom(a)·Pois(s); at
//     levels 0..k it is a (k+1)-row matrix on the lowest S + k + 1
//     levels. No recursion over interleavings is needed.
//   - Mass high enough never to reach the floor again before T (a Chernoff
//     bound over the remaining passes, flushTol) moves from the window to
//     the cloud: its law at T is its level plus the remaining arrivals
//     minus Poisson(T − t) services, a kernel applied once, and its mean
//     moves deterministically (its time integral is kept from its mass
//     and first moment).
//
// The window — the levels that can still meet the floor — holds a few
// dozen levels; each pass costs the window times the pass's service
// range. The cloud (map_cloud.go) costs one Poisson kernel of width about
// 18√(T − t) per level moved to it, per activated class whose death law
// reaches above the window (thinned from the Poisson(T) kernel), and per
// class above V.

// flushTol bounds, per unit of mass moved to the cloud, the probability
// that it would have met an empty queue (a service at 0) before T: the
// mass whose law the cloud gets wrong, kept (not lost) and far below the
// map's truncations.
const flushTol = 1e-20

// flushBatch·k is the number of levels above its flush level that the
// window may hold before they move to the cloud: one Poisson kernel for
// several passes' worth, against a slightly longer window.
const flushBatch = 4

// flushThetas are the exponents of the Chernoff bounds tried for the
// flush levels (the smallest level over them is used): large ones bound
// short horizons, small ones horizons over which the arrivals barely
// outpace the services.
var flushThetas = [...]float64{0.5, 0.75, 1, 1.5, 2}

// boundaryWeights are the quantities of a pass (length L, executed part
// τ) that the window pass needs, independent of the queue distribution.
type boundaryWeights struct {
	key   passKey   // the pass (L, τ) they were computed for
	S     int       // most service events (Poisson(τ) truncated)
	pois  []float64 // Pois(s; τ), s = 0..S
	lost  float64   // Poisson tail beyond S
	binom []float64 // Binom(a; k, τ/L), a = 0..k
	// rk is the free kernel reversed: out[j] = Σ_i rk[i]·x[j − dhi + i]
	// for end levels j > k.
	rk  []float64
	dhi int
	// bnd holds rows j = 0..k of width bw = S + k + 1: the end mass at
	// level j is Σ_q bnd[j·bw + q]·x_q.
	bnd []float64
	bw  int
	// u[q] (q < S) is what the floor adds to ∫₀^τ E[q(t)] dt per unit mass
	// starting at q: Σ_{a,s} W(a, s)·E[(M − q)⁺].
	u []float64
}

// size is the number of floats w holds.
func (w *boundaryWeights) size() int {
	return cap(w.pois) + cap(w.binom) + cap(w.rk) + cap(w.bnd) + cap(w.u)
}

// boundaryCacheFloats bounds the floats the boundary cache holds (it is
// emptied, its entries recycled, beyond it or 4096 entries).
const boundaryCacheFloats = 1 << 23

// windowSpace is the work space of evolve, kept in the Map: every buffer
// is named by what it holds.
type windowSpace struct {
	sched     passes
	win, win2 []float64          // the window before and after a pass
	cloud     []float64          // the cloud at T, before pass V's arrivals
	next      []float64          // the next board before trimming
	h         []int              // flush levels by pass
	memo      []*boundaryWeights // boundary weights by pass

	// fillBoundary's scratch.
	freeKern               []float64 // the free kernel w_d at d + S
	rowSuffix              []float64 // suffix terms of the boundary rows
	ballotPMF, ballotCDF   []float64 // the ballot law P(M = m), P(M ≤ m) of one (a, s); G and H of u
	timeWeights            []float64 // W(a, s), the time integrals of a pass's (a, s)
	binom                  []float64 // one binomial law (a node's; the cloud's pass-V arrivals)
	nodePois               []float64 // the Poisson terms at a quadrature node
	ballotCDFs, ballotPMFs []float64 // the ballot laws of boundaryRows (ballotRows)
	ballotN                int       // the services they hold, 0..ballotN−1

	// The cloud's scratch (map_cloud.go).
	flushPois, deathPois       []float64 // the Poisson terms of a flush and of a class's death law
	flushKernRev, flushBandRev []float64 // a flush's kernel and band, reversed
	periodPois                 []float64 // the Poisson(T) terms of a death law over the period
	periodPoisTail             []float64 // their suffix sums
	periodPoisLo               int       // the first term's index
	thinTail                   float64   // the terms a thinned kernel leaves out
	tailSum, tailMoment        []float64 // prefix sums of P(N(T) > i) and i·P(N(T) > i)
	poisCDF                    []float64 // prefix sums of the Poisson(T) terms
	dormant                    []float64 // classes wholly in the cloud, by level at T
	recip                      []float64 // 1/i
}

// grow returns v resized to n, zeroed.
func grow(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n, n+n/4)
	}
	v = v[:n]
	clear(v)
	return v
}

// growKeep returns v extended with zeros to length n ≥ len(v), keeping
// its contents.
func growKeep(v []float64, n int) []float64 {
	if n <= len(v) {
		return v
	}
	if cap(v) < n {
		w := make([]float64, n, n+n/2)
		copy(w, v)
		return w
	}
	m := len(v)
	v = v[:n]
	clear(v[m:])
	return v
}

// boundaryAt returns the boundary weights of pass v (length L, executed
// part τ), remembering them by pass number: a period with the passes of
// the last one finds them without hashing.
func (m *Map) boundaryAt(v int, L, tau float64) *boundaryWeights {
	memo := m.ws.memo
	if v < len(memo) {
		if w := memo[v]; w != nil && w.key == (passKey{L, tau}) {
			return w
		}
	} else {
		memo = append(memo, make([]*boundaryWeights, v+1-len(memo))...)
		memo = memo[:cap(memo)]
		m.ws.memo = memo
	}
	w := m.boundary(L, tau)
	memo[v] = w
	return w
}

// dropCaches empties the caches of pass weights (the next period computes
// them afresh).
func (m *Map) dropCaches() {
	clear(m.cache)
	m.recycleBoundaries()
}

// recycleBoundaries empties the boundary cache, keeping its entries'
// storage for the next ones (a remembered entry no longer matches a pass).
func (m *Map) recycleBoundaries() {
	for _, w := range m.bcache {
		m.bfree = append(m.bfree, w)
		w.key = passKey{}
	}
	clear(m.bcache)
	m.bsize = 0
}

// boundary returns the boundary weights of a pass, cached.
func (m *Map) boundary(L, tau float64) *boundaryWeights {
	key := passKey{L, tau}
	if w, ok := m.bcache[key]; ok {
		return w
	}
	if m.bcache == nil {
		m.bcache = map[passKey]*boundaryWeights{}
	}
	if len(m.bcache) >= 4096 || m.bsize > boundaryCacheFloats {
		m.recycleBoundaries()
	}
	var w *boundaryWeights
	if n := len(m.bfree); n > 0 {
		w, m.bfree = m.bfree[n-1], m.bfree[:n-1]
	} else {
		w = new(boundaryWeights)
	}
	m.fillBoundary(w, L, tau)
	w.key = key
	m.bcache[key] = w
	m.bsize += w.size()
	return w
}

// binomialTo is binomial into dst's storage.
func (m *Map) binomialTo(dst []float64, pi float64) []float64 {
	k := m.K
	out := grow(dst, k+1)
	if pi >= 1 {
		out[k] = 1
		return out
	}
	if pi <= 0 {
		out[0] = 1
		return out
	}
	if len(m.logC) != k+1 {
		m.logC = make([]float64, k+1)
		lk, _ := math.Lgamma(float64(k) + 1)
		for j := range m.logC {
			l1, _ := math.Lgamma(float64(j) + 1)
			l2, _ := math.Lgamma(float64(k-j) + 1)
			m.logC[j] = lk - l1 - l2
		}
	}
	lp, lq := math.Log(pi), math.Log1p(-pi)
	for j := 0; j <= k; j++ {
		out[j] = math.Exp(m.logC[j] + float64(j)*lp + float64(k-j)*lq)
	}
	return out
}

// binomialNode is binomialTo by products instead of exponentials where
// that is safe (k ≤ 64 and (1 − π)^k far from underflow): Binom(0) =
// (1 − π)^k, Binom(a+1) = Binom(a)·(k − a)/(a + 1)·π/(1 − π).
func (m *Map) binomialNode(dst []float64, pi float64) []float64 {
	k := m.K
	q := 1 - pi
	if k > 64 || pi <= 0 || pi >= 1 || q < 1e-4 {
		return m.binomialTo(dst, pi)
	}
	out := grow(dst, k+1)
	b := 1.0 // q^k by squaring
	for e, f := k, q; e > 0; e >>= 1 {
		if e&1 == 1 {
			b *= f
		}
		f *= f
	}
	r := pi / q
	out[0] = b
	for a := 0; a < k; a++ {
		b *= float64(k-a) / float64(a+1) * r
		out[a+1] = b
	}
	return out
}

// fillBoundary computes the boundary weights of a pass into w.
//
// Given a arrivals and s services in a uniformly random order, let M be
// the largest excess of services over arrivals over the prefixes of the
// order (M ≥ max(0, s − a)). By the reflection principle
// P(M ≥ m) = C(a+s, a+m)/C(a+s, a) for m ≥ max(0, s − a), so
// P(M ≥ m+1)/P(M ≥ m) = (s − m)/(a + m + 1) and
// P(M = m) = P(M ≥ m)·(a + 2m + 1 − s)/(a + m + 1): positive terms only.
// A queue at q ends at a − s + max(q, M).
func (m *Map) fillBoundary(w *boundaryWeights, L, tau float64) {
	// Poisson(τ) up to a tail of PoissonTol, as weights has it.
	w.pois, w.lost = m.poissonTerms(w.pois, tau)
	w.S = len(w.pois) - 1
	w.binom = m.binomialTo(w.binom, tau/L)
	m.freeKernel(w)
	m.boundaryRows(w)
	if m.noIntegral {
		w.u = w.u[:0]
		return
	}
	m.floorIntegral(w, L, tau)
}

// freeKernel fills w's free kernel w_d = Σ_{a−s=d} Binom(a)·Pois(s),
// d = a − s ∈ [−S, k] (at d + S in the scratch), as its non-zero stretch
// reversed (w.rk, w.dhi).
func (m *Map) freeKernel(w *boundaryWeights) {
	k, S := m.K, w.S
	ws := &m.ws
	ws.freeKern = grow(ws.freeKern, S+k+1)
	kern := ws.freeKern
	for a, ba := range w.binom {
		if ba == 0 {
			continue
		}
		for s, ps := range w.pois {
			kern[a-s+S] += ba * ps
		}
	}
	lo, hi := 0, len(kern)
	for lo < hi && kern[lo] == 0 {
		lo++
	}
	for hi > lo && kern[hi-1] == 0 {
		hi--
	}
	w.rk = w.rk[:0]
	for i := hi - 1; i >= lo; i-- {
		w.rk = append(w.rk, kern[i])
	}
	w.dhi = hi - 1 - S
}

// boundaryRows fills w's rows for the end levels j = 0..k. For end level
// j ≤ a the queue ends at j iff max(q, M) = ρ = j − a + s: q = ρ and
// M ≤ ρ, or q < ρ and M = ρ; for j > a it is q = ρ (M ≤ s < ρ). The
// second case is a suffix sum over q, accumulated in ws.rowSuffix.
//
// Only the weights Binom(a)·Pois(s) depend on the pass (on the board,
// through its length L and executed part τ); the ballot laws P(M ≤ ρ),
// P(M = ρ) of each (a, s) at the ρ the rows use depend on k alone, and
// come from the map's table (ballotRows), computed once, laid out so that
// each (a, j) is a run over s. Each entry of a row receives one term per
// a, in increasing a, as when the laws were computed afresh: the rows are
// the same to the last bit.
func (m *Map) boundaryRows(w *boundaryWeights) {
	k, S := m.K, w.S
	ws := &m.ws
	bw := S + k + 1
	w.bw = bw
	w.bnd = grow(w.bnd, (k+1)*bw)
	ws.rowSuffix = grow(ws.rowSuffix, (k+1)*bw)
	bnd, suf := w.bnd, ws.rowSuffix
	cdfT, pmfT, n := m.ballotRows(S)
	pois := w.pois
	for a, ba := range w.binom {
		if ba == 0 {
			continue
		}
		for j := 0; j <= k; j++ {
			// ρ = j − a + s ≥ 0: s from max(0, a − j).
			s0 := max(0, a-j)
			if s0 > S {
				continue
			}
			off := j*bw + j - a // bnd index of (j, ρ) is off + s
			if j > a {
				row := bnd[off+s0 : off+S+1]
				for i, ps := range pois[s0:] {
					row[i] += ba * ps
				}
				continue
			}
			if cdfT == nil {
				for s := s0; s <= S; s++ {
					c := ba * pois[s]
					if c == 0 {
						continue
					}
					ws.ballotPMF = grow(ws.ballotPMF, S+1)
					ws.ballotCDF = grow(ws.ballotCDF, S+1)
					ballotLaw(ws.ballotPMF, ws.ballotCDF, a, s)
					bnd[off+s] += c * ws.ballotCDF[s+j-a]
					suf[off+s] += c * ws.ballotPMF[s+j-a]
				}
				continue
			}
			// ρ ≥ s − a here, so ρ ≥ 0 is ρ ≥ max(0, s − a).
			base := (a*(k+1) + j) * n
			cdf, pmf := cdfT[base+s0:base+S+1], pmfT[base+s0:base+S+1]
			brow, srow := bnd[off+s0:off+S+1], suf[off+s0:off+S+1]
			for i, ps := range pois[s0:] {
				c := ba * ps
				brow[i] += c * cdf[i]
				srow[i] += c * pmf[i]
			}
		}
	}
	for j := 0; j <= k; j++ {
		row, sr := bnd[j*bw:(j+1)*bw], suf[j*bw:(j+1)*bw]
		var acc float64
		for q := bw - 1; q >= 0; q-- {
			row[q] += acc
			acc += sr[q]
		}
	}
}

// ballotTableFloats bounds the map's table of ballot laws (ballotRows):
// beyond it boundaryRows computes each law afresh.
const ballotTableFloats = 1 << 20

// ballotRows returns the tables of the ballot laws boundaryRows uses, for
// a = 0..k arrivals and s = 0..n−1 services (n > S, grown if needed; nil
// if they would exceed ballotTableFloats): at (a·(k+1) + j)·n + s,
// P(M ≤ j − a + s) and P(M = j − a + s) for j = 0..a (0 where
// j − a + s < 0 and for j > a).
func (m *Map) ballotRows(S int) (cdfT, pmfT []float64, n int) {
	k := m.K
	ws := &m.ws
	if ws.ballotCDFs != nil && S < ws.ballotN {
		return ws.ballotCDFs, ws.ballotPMFs, ws.ballotN
	}
	n = max(S+1, 2*ws.ballotN)
	if 2*(k+1)*(k+1)*n > ballotTableFloats {
		return nil, nil, 0
	}
	cdfT, pmfT = make([]float64, (k+1)*(k+1)*n), make([]float64, (k+1)*(k+1)*n)
	pmf, cdf := make([]float64, n), make([]float64, n)
	for a := 0; a <= k; a++ {
		for s := 0; s < n; s++ {
			ballotLaw(pmf, cdf, a, s)
			for j := 0; j <= a; j++ {
				if rho := j - a + s; rho >= 0 {
					i := (a*(k+1)+j)*n + s
					cdfT[i], pmfT[i] = cdf[rho], pmf[rho]
				}
			}
		}
	}
	ws.ballotCDFs, ws.ballotPMFs, ws.ballotN = cdfT, pmfT, n
	return cdfT, pmfT, n
}

// ballotLaw fills pmf[m] = P(M = m) and cdf[m] = P(M ≤ m), m = max(0,
// s − a)..s, for a arrivals and s services in a random order (cdf[s] = 1
// exactly).
func ballotLaw(pmf, cdf []float64, a, s int) {
	pge, cum := 1.0, 0.0
	for mm := max(0, s-a); mm <= s; mm++ {
		g := pge * float64(a+2*mm+1-s) / float64(a+mm+1)
		cum += g
		pmf[mm], cdf[mm] = g, cum
		pge *= float64(s-mm) / float64(a+mm+1)
	}
	cdf[s] = 1
}

// floorIntegral fills w.u, what the floor adds to ∫₀^τ E[q(t)] dt per unit
// mass starting at q. W(a, s) = ∫₀^τ Binom(a; k, t/L)·Pois(s; t) dt by
// Gauss–Legendre; u[q] = Σ_{a,s} W(a, s)·Σ_{m=q+1}^{s} P(M ≥ m) =
// Σ_{m>q} G(m), with G(m) = Σ_{a,s} W(a, s)·P(M ≥ m): 1 up to
// m0 = max(0, s − a) (kept in H[m0], summed from above), and at most a
// terms above it.
func (m *Map) floorIntegral(w *boundaryWeights, L, tau float64) {
	k, S := m.K, w.S
	ws := &m.ws
	wts := m.passTimeWeights(L, tau, S)
	ws.ballotPMF = grow(ws.ballotPMF, S+2)
	ws.ballotCDF = grow(ws.ballotCDF, S+2)
	G, H := ws.ballotPMF, ws.ballotCDF
	for a := 0; a <= k; a++ {
		for s := 1; s <= S; s++ {
			wt := wts[a*(S+1)+s]
			if wt == 0 {
				continue
			}
			m0 := max(0, s-a)
			H[m0] += wt
			pge := wt
			for mm := m0; mm < s; mm++ {
				pge *= float64(s-mm) / float64(a+mm+1)
				G[mm+1] += pge
			}
		}
	}
	w.u = grow(w.u, max(S, 1))
	var run, acc float64
	for m := S; m >= 1; m-- {
		run += H[m]
		acc += G[m] + run
		w.u[m-1] = acc
	}
}

// passTimeWeights returns W(a, s) = ∫₀^τ Binom(a; k, t/L)·Pois(s; t) dt,
// a = 0..k, s = 0..S, at a·(S+1) + s, by Gauss–Legendre (in ws.timeWeights).
func (m *Map) passTimeWeights(L, tau float64, S int) []float64 {
	ws := &m.ws
	xs, wl := m.legendreChecked(quadNodes(m.K+S, tau))
	ws.timeWeights = grow(ws.timeWeights, (m.K+1)*(S+1))
	wts := ws.timeWeights
	ws.nodePois = grow(ws.nodePois, S+1)
	lps := ws.nodePois
	for i, z := range xs {
		x := 0.5 * tau * (z + 1)
		wi := 0.5 * tau * wl[i]
		ws.binom = m.binomialNode(ws.binom, x/L)
		lp := math.Exp(-x)
		for s := range lps {
			if s > 0 {
				lp *= x / float64(s)
			}
			lps[s] = lp
		}
		for a, ba := range ws.binom {
			c := wi * ba
			if c == 0 {
				continue
			}
			row := wts[a*(S+1) : (a+1)*(S+1)]
			for s, p := range lps {
				row[s] += c * p
			}
		}
	}
	return wts
}

// quadNodes is the number of Gauss–Legendre nodes that integrates
// P(t)·e^{−t} over [0, τ] to rounding, P ≥ 0 a polynomial of degree d: the
// rule is exact on P times the Taylor polynomial of e^{−t} of degree m,
// and the remainder, below τ^{m+1}/(m+1)! in [0, τ], is kept below
// 1e-18·e^{−τ}/(d + 1) of it. (weights, for the reference, takes
// d/2 + τ + 24 nodes: about half again as many.)
func quadNodes(d int, tau float64) int {
	bound := 1e-18 * math.Exp(-tau) / float64(d+1)
	term := tau // τ^{m+1}/(m+1)! at m = 0
	m := 0
	for term > bound {
		m++
		term *= tau / float64(m+1)
	}
	return (d+m)/2 + 1
}

// legendreChecked returns the Gauss–Legendre rule of n nodes or, if its
// weights do not sum to 2, of the next n that does: gonum v0.17's table
// for n = 26 has lost its two outermost weights (they read 0; its weights
// sum to 1.979), which would take 1% off the integral of a short pass.
func (m *Map) legendreChecked(n int) ([]float64, []float64) {
	for {
		xs, ws := m.legendre(n)
		var sum float64
		for _, w := range ws {
			sum += w
		}
		if math.Abs(sum-2) < 1e-13 {
			return xs, ws
		}
		n++
	}
}

// windowPass propagates the window x (levels 0..len(x)−1) through the
// first τ of a pass of length L into out (length len(x) + k) and returns
// ∫₀^τ E[q] dt (summed over the window's mass; 0 without the integral)
// and the mass lost to the Poisson truncation.
func (m *Map) windowPass(out, x []float64, w *boundaryWeights, L, tau float64) (float64, float64) {
	k := m.K
	n := len(x)
	var mass, first float64
	for q, v := range x {
		mass += v
		first += float64(q) * v
	}
	// Levels 0..k: the boundary rows.
	bw := w.bw
	nq := min(n, bw)
	xs := x[:nq]
	for j := 0; j <= k && j < len(out); j++ {
		out[j] = dot(w.bnd[j*bw:j*bw+nq], xs)
	}
	// Levels above k: the free convolution, out[j] = Σ_i rk[i]·x[j − dhi + i]:
	// a correlation where every term is in range, [dhi, n − len(rk) + dhi].
	rk, dhi := w.rk, w.dhi
	jLo, jHi := k+1, n+k-1
	jA, jB := max(jLo, dhi), min(jHi, n-len(rk)+dhi)
	for j := jLo; j <= jHi; j++ {
		if j == jA && jA <= jB {
			clear(out[jA : jB+1])
			xcorr(out[jA:jB+1], rk, x[jA-dhi:])
			j = jB
			continue
		}
		q0 := j - dhi
		i0, i1 := max(0, -q0), min(len(rk), n-q0)
		if i0 >= i1 {
			out[j] = 0
			continue
		}
		out[j] = dot(rk[i0:i1], x[q0+i0:q0+i1])
	}
	var integral float64
	if !m.noIntegral {
		integral = tau*first + (float64(k)/L-1)*tau*tau/2*mass
		integral += dot(w.u[:min(n, len(w.u))], x[:min(n, len(w.u))])
	}
	return integral, w.lost * mass
}

// dot returns Σ a[i]·b[i] over len(a) ≤ len(b) terms.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// xcorr adds Σ_i a[i]·b[o+i] to out[o] for every o (len(b) ≥
// len(out) + len(a) − 1), four outputs at a time: each b[j] is loaded
// once per block, and the four sums run side by side.
func xcorr(out, a, b []float64) {
	n, m := len(out), len(a)
	if n == 0 || m == 0 {
		return
	}
	b = b[:n+m-1]
	o := 0
	for ; o+4 <= n; o += 4 {
		var s0, s1, s2, s3 float64
		bb := b[o : o+m+3]
		b0, b1, b2 := bb[0], bb[1], bb[2]
		bb = bb[3:]
		bb = bb[:len(a)]
		for i, x := range a {
			b3 := bb[i]
			s0 += x * b0
			s1 += x * b1
			s2 += x * b2
			s3 += x * b3
			b0, b1, b2 = b1, b2, b3
		}
		out[o] += s0
		out[o+1] += s1
		out[o+2] += s2
		out[o+3] += s3
	}
	for ; o < n; o++ {
		out[o] += dot(a, b[o:o+m])
	}
}

// flushLevels returns, for each pass v of s, the level from which mass at
// t_v (before pass v) is moved to the cloud: a queue at ℓ that serves at
// an empty queue in pass u ≥ v has had more than ℓ + k·(u − v) services
// in [t_v, t_{u+1}) (pass V ends at T), so by the union bound and
// P(Pois(μ) ≥ n) ≤ exp(μ(e^θ − 1) − θn) the probability is at most
//
//	e^{−θ(ℓ+1)} Σ_{u≥v} exp((e^θ − 1)(t_{u+1} − t_v) − θk(u − v)),
//
// kept below flushTol for the best θ of flushThetas.
func (m *Map) flushLevels(s *passes) []int {
	V := s.V
	T, k := m.Period, float64(m.K)
	if cap(m.ws.h) < V+1 {
		m.ws.h = make([]int, V+1, V+1+(V+1)/4)
	}
	h := m.ws.h[:V+1]
	const none = math.MaxInt32
	for v := range h {
		h[v] = none
	}
	logEps := math.Log(flushTol)
	for _, th := range flushThetas {
		c := math.Expm1(th)
		// run = log Σ_{u≥v} exp(g_u − g_v), g_u = c·t_{u+1} − θ·k·u.
		run := 0.0
		prevEnd := 0.0
		for u := V; u >= 0; u-- {
			end := T
			if u < V {
				end = s.t[u] + s.L[u]
			}
			if u < V {
				// g_{u+1} − g_u = c·(end_{u+1} − end_u) − θk.
				run = log1pExp(run + c*(prevEnd-end) - th*k)
			}
			prevEnd = end
			// log bound = −θ(ℓ+1) + c·(end_v − t_v) + run.
			x := (c*(end-s.t[u])+run-logEps)/th - 1
			lv := none
			if x < float64(none)-2 {
				lv = int(math.Ceil(x)) + 1
			}
			h[u] = min(h[u], max(lv, 0))
		}
	}
	return h
}

// log1pExp is log(1 + e^x), without the transcendental functions where
// one of the terms is below rounding.
func log1pExp(x float64) float64 {
	switch {
	case x > 40:
		return x
	case x < -40:
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}

// evolve runs one period of board p (top its last non-zero class) through
// the passes s and fills res's distribution, mean queue, sojourn, board
// mean and lost mass. The passes need not be p's own: perturbed passes
// give the map's response to the dispatchers' timing.
//
// The activated servers' aggregate is split into the window (the levels
// that can still meet the floor before T, passed exactly through each
// pass) and the cloud (mass that cannot, moved once with its kernel to T).
// evolveRef is the same period with every pass over the whole aggregate.
func (m *Map) evolve(p []float64, top int, s *passes, res *MapResult) {
	T, k, V := m.Period, m.K, s.V
	ws := &m.ws
	h := m.flushLevels(s)
	loT, pmfT, loTh, pmfTh := m.periodKernel()
	win := ws.win[:0]
	ws.cloud = ws.cloud[:0]
	ws.dormant = grow(ws.dormant, k*V+1)
	var integral float64 // ∫₀^T E[q] dt, summed over all servers
	var cloudMass, cloudFirst float64
	for v := 0; v <= V; v++ {
		t, L := s.t[v], s.L[v]
		// Activate class v at t_v: pure death from v for time t_v; the part
		// at h_v or above goes to the cloud.
		if v <= top && p[v] > 0 {
			var integ, mass, first, lost float64
			win, integ, mass, first, lost = m.activate(win, p[v], v, t, h[v], s, loTh, pmfTh)
			integral += integ
			cloudMass += mass
			cloudFirst += first
			res.Lost += lost
		}
		// Move what cannot meet the floor any more to the cloud, a batch of
		// levels at a time (keeping it in the window is exact).
		if hv := h[v]; hv+flushBatch*k < len(win) {
			lost, mass, first := m.flush(win[hv:], hv, v, s)
			res.Lost += lost
			cloudMass += mass
			cloudFirst += first
			win = win[:hv]
		}
		tau := L
		if v == V {
			tau = T - t
		}
		if L <= 0 || tau <= 0 {
			continue
		}
		// The cloud moves freely: its mean rises by (k/L − 1) per unit time.
		if cloudMass > 0 {
			integral += tau*cloudFirst + (float64(k)/L-1)*tau*tau/2*cloudMass
			cloudFirst += (float64(k)/L - 1) * tau * cloudMass
		}
		if len(win) == 0 {
			continue
		}
		w := m.boundaryAt(v, L, tau)
		out := grow(ws.win2, len(win)+k)
		integ, lost := m.windowPass(out, win, w, L, tau)
		integral += integ
		res.Lost += lost
		ws.win2 = win
		win = out
		if v < V {
			res.Lost += trimTop(&win, m.trimTol())
		}
	}
	ws.win = win
	// Classes wholly in the cloud from their activation: Poisson(T) services
	// in all (thinning: N(t_b) + N(T) − N(t_b) is Poisson(T)).
	res.Lost += m.cloudClasses(loT, pmfT)
	m.nextBoard(p, top, s, loT, pmfT, integral, res)
}

// periodKernel computes the Poisson(T) terms of a death law over the whole
// period (addDeath's window, uncapped): the kernel of the classes that
// never meet the floor, from loT, with their suffix sums; and the part of
// it a class's thinned kernel uses, from loTh: terms above thinKernelCut
// of the largest (the rest, at most its tails, is counted as lost:
// ws.thinTail).
func (m *Map) periodKernel() (loT int, pmfT []float64, loTh int, pmfTh []float64) {
	ws := &m.ws
	loT, pmfT, buf := m.poissonSpan(ws.periodPois, m.Period, math.MaxInt, deathCut)
	ws.periodPois = buf
	ws.periodPoisTail = grow(ws.periodPoisTail, len(pmfT)+1)
	for i := len(pmfT) - 1; i >= 0; i-- {
		ws.periodPoisTail[i] = ws.periodPoisTail[i+1] + pmfT[i]
	}
	ws.periodPoisLo = loT
	ta, tb, peakT := 0, len(pmfT), 0.0
	for _, q := range pmfT {
		peakT = max(peakT, q)
	}
	for ta < tb && pmfT[ta] < thinKernelCut*peakT {
		ta++
	}
	for tb > ta && pmfT[tb-1] < thinKernelCut*peakT {
		tb--
	}
	ws.thinTail = ws.periodPoisTail[0] - ws.periodPoisTail[ta] + ws.periodPoisTail[tb]
	return loT, pmfT, loT + ta, pmfT[ta:tb]
}

// nextBoard assembles the next board into res: the window (ws.win), the
// cloud with pass V's arrivals, and the classes above V, never activated
// (pure death over [0, T]); with the period's time integral so far
// (integral) it sets the mean queue, sojourn, board mean, and the lost
// top.
func (m *Map) nextBoard(p []float64, top int, s *passes, loT int, pmfT []float64, integral float64, res *MapResult) {
	T, k, V := m.Period, m.K, s.V
	ws := &m.ws
	win := ws.win
	cloud := ws.cloud
	n := max(len(win), top+1)
	if len(cloud) > 0 {
		n = max(n, len(cloud)+k)
	}
	next := grow(ws.next, n)
	copy(next, win)
	if len(cloud) > 0 {
		ws.binom = m.binomialTo(ws.binom, (T-s.t[V])/s.L[V])
		for a, ba := range ws.binom {
			if ba == 0 {
				continue
			}
			dst := next[a : a+len(cloud)]
			for i, x := range cloud {
				dst[i] += ba * x
			}
		}
	}
	integral += m.addDeaths(next, p, V+1, top, loT, pmfT)
	ws.next = next
	if m.noIntegral {
		integral = 0
	}
	// Trim the negligible top and count it as lost.
	tol := m.trimTol()
	for n > 1 && next[n-1] < tol {
		res.Lost += next[n-1]
		n--
	}
	res.Next = append(res.Next[:0], next[:n]...)
	res.BoardMean = Mean(res.Next)
	res.MeanQueue = integral / T
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
}
