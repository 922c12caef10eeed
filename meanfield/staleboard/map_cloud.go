package staleboard

import "math"

// The cloud of the window evolution (evolve): mass that cannot meet the
// floor before T, taken once to T with its free kernel (its level plus the
// remaining arrivals minus Poisson services), in coordinates at T before
// the arrivals of pass V. And the classes never activated, pure death
// over the period.

// flushCut is the Poisson term, relative to the mode's, below which the
// kernel of mass moved to the cloud is cut; the tails beyond (bounded
// geometrically, about 1e-19 of the mass) are counted as lost.
const flushCut = 1e-18

// tinyPeak is the largest Poisson term below which a class's death law is
// taken to be all at 0: its other terms are below tinyPeak each, so at
// most b·tinyPeak of its mass is put at 0 instead of just above.
const tinyPeak = 1e-40

// recips returns a table of 1/i for i = 1..n at least (entry 0 unused):
// the Poisson and binomial ratios below multiply by it instead of
// dividing.
func (m *Map) recips(n int) []float64 {
	r := m.ws.recip
	if len(r) > n {
		return r
	}
	old := len(r)
	nn := max(n+1, 2*old, 1024)
	r = append(r, make([]float64, nn-old)...)
	for i := max(old, 1); i < nn; i++ {
		r[i] = 1 / float64(i)
	}
	m.ws.recip = r
	return r
}

// poissonPeak is Pois(mode; μ).
func poissonPeak(mu float64, mode int) float64 { return poissonPMF(mode, mu) }

// poissonSpan computes Pois(i; μ) (μ > 0) for i = lo..hi: outward from
// the mode, capped at iMax ≥ 0, until a term falls below cut times the
// mode's (deathWindow's window, by multiplications). It returns lo, the
// terms, and the buffer holding them (dst's storage when large enough),
// to be passed back as dst.
func (m *Map) poissonSpan(dst []float64, mu float64, iMax int, cut float64) (int, []float64, []float64) {
	// Room below the mode: the left tail of a Poisson law is lighter than
	// the normal one, so a cut ≥ 1e-40 stops within 14σ.
	return m.poissonSpanRoom(dst, mu, iMax, cut, int(14*math.Sqrt(mu))+32)
}

// poissonSpanRoom is poissonSpan with room for room terms below the mode
// (doubled as often as needed).
func (m *Map) poissonSpanRoom(dst []float64, mu float64, iMax int, cut float64, room int) (int, []float64, []float64) {
	mode := min(int(mu), iMax)
	peak := poissonPeak(mu, mode)
	thr := cut * peak
	inv := 1 / mu
	room = min(mode, room)
	rc := m.recips(mode + room + 64)
	buf := dst[:0]
	if cap(buf) < 2*room+64 {
		buf = make([]float64, 0, 2*room+64+(2*room+64)/4)
	}
	buf = buf[:room+1]
	buf[room] = peak
	j, lo := room, mode
	for v := peak; lo > 0; {
		v *= float64(lo) * inv
		if v < thr {
			break
		}
		if j == 0 {
			return m.poissonSpanRoom(buf, mu, iMax, cut, 2*room)
		}
		lo--
		j--
		buf[j] = v
	}
	hi := mode
	for v := peak; hi < iMax; {
		if hi+1 >= len(rc) {
			rc = m.recips(2 * (hi + 1))
		}
		v *= mu * rc[hi+1]
		if v < thr {
			break
		}
		hi++
		buf = append(buf, v)
	}
	return lo, buf[j:], buf
}

// flush moves the window levels band (levels base, base+1, …, at t_v,
// before pass v) to the cloud: a level ℓ goes to ℓ + k·(V − v) −
// Pois(T − t_v). It returns the mass lost (the kernel's tails, terms below
// the drop level, and what would fall below 0 — at most flushTol of it)
// and the mass and first moment moved.
func (m *Map) flush(band []float64, base, v int, s *passes) (lost, mass, first float64) {
	ws := &m.ws
	mu := m.Period - s.t[v]
	shift := m.K * (s.V - v)
	lo, pmf, buf := m.poissonSpan(ws.flushPois, mu, math.MaxInt, flushCut)
	ws.flushPois = buf
	hi := lo + len(pmf) - 1
	// The tails beyond the window, bounded by the geometric ratio at its
	// ends (below the mode on the left, above it on the right).
	var tails float64
	if r := mu / float64(hi+1); r < 1 {
		tails += pmf[hi-lo] * r / (1 - r)
	} else {
		tails += pmf[hi-lo] * float64(hi+1)
	}
	if lo > 0 {
		if r := float64(lo) / mu; r < 1 {
			tails += pmf[0] * r / (1 - r)
		} else {
			tails += pmf[0] * float64(lo)
		}
	}
	// The levels, their mass lost to the tails and below 0 (n > c), and
	// the stretch [a, b] of those kept (terms below the drop level are
	// lost and cleared).
	drop := m.trimTol() * 1e-10
	a, b := -1, -1
	for idx, x := range band {
		if x == 0 {
			continue
		}
		if x < drop {
			lost += x
			band[idx] = 0
			continue
		}
		l := base + idx
		mass += x
		first += float64(l) * x
		lost += x * tails
		if c := l + shift; c < hi {
			var below float64
			for i := max(c+1, lo); i <= hi; i++ {
				below += pmf[i-lo]
			}
			lost += x * below
		}
		if a < 0 {
			a = idx
		}
		b = idx
	}
	if a < 0 {
		return lost, mass, first
	}
	// cloud[o] += Σ_ℓ x_ℓ·Pois(ℓ + shift − o), over o ≥ 0. Where the whole
	// band is in the kernel's range this is a correlation of the band and
	// the kernel, both reversed: Σ_t xr[t]·rp[C + o + t], xr[t] = x_{lb−t},
	// rp[j] = pmf[W−1−j], C = W − 1 − lb − shift + lo.
	la, lb := base+a, base+b
	xs := band[a : b+1]
	oLo, oHi := max(0, la+shift-hi), lb+shift-lo
	ws.cloud = growKeep(ws.cloud, oHi+1)
	cl := ws.cloud
	W, nb := len(pmf), len(xs)
	C := W - 1 - lb - shift + lo
	oA, oB := max(oLo, -C), min(oHi, W-nb-C)
	if oA <= oB {
		ws.flushBandRev = grow(ws.flushBandRev, nb)
		ws.flushKernRev = grow(ws.flushKernRev, W)
		for t := range nb {
			ws.flushBandRev[t] = xs[nb-1-t]
		}
		for j := range W {
			ws.flushKernRev[j] = pmf[W-1-j]
		}
		xcorr(cl[oA:oB+1], ws.flushBandRev, ws.flushKernRev[C+oA:])
	}
	for o := oLo; o <= oHi; o++ {
		if o == oA && oA <= oB {
			o = oB
			continue
		}
		l0, l1 := max(la, o-shift+lo), min(lb, o-shift+hi)
		if l0 > l1 {
			continue
		}
		cl[o] += dot(xs[l0-la:l1-la+1], pmf[l0+shift-o-lo:])
	}
	return lost, mass, first
}

// activate adds class b (mass w) at its activation time t = t_b: its
// death law below h goes to the window (grown as needed, returned), the
// part at h or above to the cloud. It returns the window, the class's
// time integral over [0, t], the mass and first moment sent to the cloud,
// and the mass lost.
//
// A queue of the class that is at h or above at t never meets the floor
// before T (flushLevels), so its level at T is b − N(t) + k·(V − b) + the
// arrivals of pass V − (N(T) − N(t)), N a Poisson process of rate 1. Given
// N(T) = n, N(t) is Binomial(n, t/T): the cloud gets, at
// b + k·(V − b) − n, the mass w·Pois(n; T)·P(Binomial(n, t/T) ≤ b − h) —
// the Poisson(T) kernel (loT, pmfT), shared by all classes
// (cloudClasses) when the whole death law is at h or above.
func (m *Map) activate(win []float64, w float64, b int, t float64, h int, s *passes, loT int, pmfT []float64) ([]float64, float64, float64, float64, float64) {
	pos := b + m.K*(s.V-b) // the class's level at T, before services
	if t == 0 || b == 0 {
		if b < h {
			win = growKeep(win, b+1)
			win[b] += w
			return win, 0, 0, 0, 0
		}
		m.ws.dormant[pos] += w
		return win, 0, w, float64(b) * w, 0
	}
	if mode := min(int(t), b-1); mode < int(t) && poissonPeak(t, mode) < tinyPeak {
		// Every term of the death law is negligible: all of it is at 0,
		// and ∫₀^t E[q] = Σ_{i<b} (b − i)·P(N(t) > i) = b(b + 1)/2.
		win = growKeep(win, 1)
		win[0] += w
		fb := float64(b)
		return win, w * fb * (fb + 1) / 2, 0, 0, 0
	}
	lo, pmf, buf := m.poissonSpan(m.ws.deathPois, t, b-1, deathCut)
	m.ws.deathPois = buf
	hi := lo + len(pmf) - 1
	c := b - h // the death law is at h or above where N(t) ≤ c
	win = growKeep(win, max(1, min(h, b-lo+1)))
	// As deathInto: below the window N(t) < lo has no mass; the mass beyond
	// it is at 0.
	fl, fb := float64(lo), float64(b)
	integ := fl*fb - fl*(fl-1)/2
	var cdf, mass, first float64
	for j, q := range pmf {
		i := lo + j
		if i > c {
			win[b-i] += w * q
		} else {
			mass += q
			first += float64(b-i) * q
		}
		cdf += q
		if cdf < 1 {
			integ += float64(b-i) * (1 - cdf)
		}
	}
	if cdf < 1 {
		win[0] += w * (1 - cdf)
	}
	integ *= w
	mass, first = w*mass, w*first
	if mass < m.trimTol()*1e-10 {
		return win, integ, 0, 0, mass
	}
	if c >= hi {
		m.ws.dormant[pos] += w
		return win, integ, mass, first, 0
	}
	return win, integ, mass, first, m.cloudThinned(w, pos, c, t/m.Period, loT, pmfT)
}

// thinCut is the binomial tail below which the thinned kernel of a class
// is taken as 0 (above the range it keeps) or 1 (below it), and
// thinKernelCut the Poisson(T) term, relative to the largest, below which
// it is cut (the terms left out, about 1e-21 of the class, are lost).
const (
	thinCut       = 1e-25
	thinKernelCut = 1e-20
)

// cloudThinned adds to the cloud w·Pois(n; T)·F(n), F(n) =
// P(Binomial(n, ρ) ≤ c), at pos − n, for n over the Poisson(T) terms
// (loT, pmfT: part of ws.periodPois, whose other terms are ws.thinTail), and
// returns the mass lost: F is computed only where
// neither it nor 1 − F is below thinCut (Chernoff bounds), and what would
// fall below 0 (at most flushTol of the mass) or beyond the range kept is
// counted by its bound.
func (m *Map) cloudThinned(w float64, pos, c int, rho float64, loT int, pmfT []float64) float64 {
	ws := &m.ws
	hiT := loT + len(pmfT) - 1
	// The range (nL, nU] where F is computed: F ≥ 1 − thinCut at nL and
	// below, F ≤ thinCut above nU.
	mid := float64(c) / rho
	sd := math.Sqrt(math.Max(float64(c), 1)*(1-rho))/rho + 1
	step := int(math.Ceil(sd))
	nU := int(math.Ceil(mid + 11*sd))
	if nU < hiT {
		for binomLowerBound(nU, c, rho) > thinCut {
			nU += step
		}
	}
	nL := int(math.Floor(mid - 11*sd))
	if nL > loT {
		for nL > c && binomUpperBound(nL, c, rho) > thinCut {
			nL -= step
		}
	}
	nL = max(nL, c)
	nTop := min(hiT, pos, nU)
	lost := w * ws.thinTail
	if nTop < hiT {
		// Beyond nTop: below 0 (n > pos) or F ≤ its bound there.
		beyond := ws.periodPoisTail[max(nTop+1, loT)-ws.periodPoisLo] - ws.periodPoisTail[hiT+1-ws.periodPoisLo]
		lost += w * beyond * binomLowerBound(nTop+1, c, rho)
	}
	if nTop < loT {
		return lost
	}
	nA := max(loT, min(nL+1, nTop), c+1)
	ws.cloud = growKeep(ws.cloud, pos-loT+1)
	cl := ws.cloud
	// From nTop down: F(nTop) by its series, then F(n) = F(n+1) +
	// ρ·P(Binomial(n, ρ) = c), the binomial term carried down by
	// P(Bin(n−1) = c) = P(Bin(n) = c)·(n − c)/(n·(1 − ρ)); the cloud gets
	// w·Pois(n; T)·F(n) at pos − n.
	n := nTop
	if n >= nA {
		rc := m.recips(nTop + 1)
		F := binomCDF(rc, nTop, c, rho)
		cl[pos-n] += w * pmfT[n-loT] * F
		iq := 1 / (1 - rho)
		pm := binomPMF(n-1, c, rho)
		n--
		// Two terms a step: the chains of sums and products carry one
		// operation per two n.
		for ; n-1 >= nA; n -= 2 {
			r := float64(n-c) * rc[n] * iq
			pm1 := pm * r // P(Bin(n−1) = c)
			F0 := F + rho*pm
			F1 := F0 + rho*pm1
			cl[pos-n] += w * pmfT[n-loT] * F0
			cl[pos-n+1] += w * pmfT[n-1-loT] * F1
			F = F1
			pm = pm1 * (float64(n-1-c) * rc[n-1] * iq)
		}
		for ; n >= nA; n-- {
			F += rho * pm
			pm *= float64(n-c) * rc[n] * iq
			cl[pos-n] += w * pmfT[n-loT] * F
		}
	}
	// Below nA, F = 1 (to thinCut).
	if n >= loT {
		dst := cl[pos-n : pos-loT+1]
		src := pmfT[:n-loT+1]
		for d := range dst {
			dst[d] += w * src[n-loT-d]
		}
	}
	return lost
}

// binomLowerBound bounds P(Binomial(n, ρ) ≤ c) by exp(−n·D(c/n ‖ ρ))
// (Chernoff), 1 where c/n ≥ ρ.
func binomLowerBound(n, c int, rho float64) float64 {
	if n <= c {
		return 1
	}
	a := float64(c) / float64(n)
	if a >= rho {
		return 1
	}
	return math.Exp(-float64(n) * klBernoulli(a, rho))
}

// binomUpperBound bounds P(Binomial(n, ρ) > c) by
// exp(−n·D((c+1)/n ‖ ρ)), 1 where (c+1)/n ≤ ρ (0 where c ≥ n).
func binomUpperBound(n, c int, rho float64) float64 {
	if c >= n {
		return 0
	}
	a := float64(c+1) / float64(n)
	if a <= rho {
		return 1
	}
	return math.Exp(-float64(n) * klBernoulli(a, rho))
}

// klBernoulli is D(a ‖ ρ) = a·log(a/ρ) + (1 − a)·log((1 − a)/(1 − ρ)).
func klBernoulli(a, rho float64) float64 {
	var d float64
	if a > 0 {
		d += a * math.Log(a/rho)
	}
	if a < 1 {
		d += (1 - a) * math.Log((1-a)/(1-rho))
	}
	return d
}

// cloudClasses adds to the cloud the classes wholly in it from their
// activation (ws.dormant, by level at T before services), with the
// Poisson(T) kernel, and returns the mass that would fall below 0 (lost).
func (m *Map) cloudClasses(loT int, pmfT []float64) float64 {
	ws := &m.ws
	var lost float64
	hiT := loT + len(pmfT) - 1
	for pos, w := range ws.dormant {
		if w == 0 {
			continue
		}
		if pos < loT {
			lost += w
			continue
		}
		ws.cloud = growKeep(ws.cloud, pos-loT+1)
		iHi := min(hiT, pos)
		dst := ws.cloud[pos-iHi : pos-loT+1]
		// dst[d] is level pos − iHi + d: n = iHi − d.
		for d := range dst {
			dst[d] += w * pmfT[iHi-d-loT]
		}
		for n := iHi + 1; n <= hiT; n++ {
			lost += w * pmfT[n-loT]
		}
	}
	return lost
}

// binomCDF is P(Binomial(n, ρ) ≤ c), 0 ≤ c < n, as a series of positive
// terms falling away from the mean (below it, the terms up to c; above
// it, one minus the terms above c); rc is a table of reciprocals up to
// n + 1.
func binomCDF(rc []float64, n, c int, rho float64) float64 {
	const rel = 1e-22
	q := 1 - rho
	below := float64(c) < float64(n)*rho
	j := c
	if !below {
		j = c + 1
	}
	term := binomPMF(n, j, rho)
	var sum float64
	if below {
		f := q / rho
		for term > 0 {
			sum += term
			if j == 0 {
				break
			}
			r := float64(j) * rc[n-j+1] * f
			j--
			term *= r
			if r < 1 && term*r/(1-r) < rel*sum {
				sum += term
				break
			}
		}
		return sum
	}
	f := rho / q
	for term > 0 {
		sum += term
		if j == n {
			break
		}
		r := float64(n-j) * rc[j+1] * f
		j++
		term *= r
		if r < 1 && term*r/(1-r) < rel*sum {
			sum += term
			break
		}
	}
	return math.Max(0, 1-sum)
}

// addDeaths adds the death laws over [0, T] of the classes from..top of p
// into dst (long enough) and returns their time integral. All share the
// Poisson(T) terms (lo, pmf) of addDeath's uncapped window: a class b has
// Pois(i; T) at b − i for lo ≤ i ≤ min(b − 1, hi), the rest at 0, and
// ∫₀^T E[q] = Σ_{i<b} (b − i)·P(N(T) > i), from prefix sums. (Below the
// mode addDeath's window, from the capped mode, reaches terms below
// deathCut of the uncapped mode's: those are left out here.)
func (m *Map) addDeaths(dst, p []float64, from, top int, lo int, pmf []float64) float64 {
	if from > top {
		return 0
	}
	ws := &m.ws
	hi := lo + len(pmf) - 1
	// Prefix sums over the window of Q_i = P(N(T) > i) and i·Q_i.
	ws.tailSum = grow(ws.tailSum, len(pmf))
	ws.tailMoment = grow(ws.tailMoment, len(pmf))
	ws.poisCDF = grow(ws.poisCDF, len(pmf))
	var cdf, sq, siq float64
	for j, q := range pmf {
		cdf += q
		if cdf < 1 {
			sq += 1 - cdf
			siq += float64(lo+j) * (1 - cdf)
		}
		ws.tailSum[j], ws.tailMoment[j], ws.poisCDF[j] = sq, siq, cdf
	}
	fl := float64(lo)
	var integral, zero float64
	for b := from; b <= top; b++ {
		w := p[b]
		if w == 0 {
			continue
		}
		fb := float64(b)
		if b <= lo {
			zero += w
			integral += w * fb * (fb + 1) / 2
			continue
		}
		iTop := min(b-1, hi) - lo
		integral += w * (fl*fb - fl*(fl-1)/2 + fb*ws.tailSum[iTop] - ws.tailMoment[iTop])
		// What the window leaves at 0: P(N(T) > min(b − 1, hi)).
		zero += w * math.Max(0, 1-ws.poisCDF[iTop])
	}
	dst[0] += zero
	// dst[j] += Σ_i pmf[i − lo]·p[j + i], j ≥ 1, over classes from..top:
	// where every term is in range, [from − lo, top − hi], a correlation.
	jLo, jHi := max(1, from-hi), top-lo
	jA, jB := max(jLo, from-lo), min(jHi, top-hi)
	for j := jLo; j <= jHi; j++ {
		if j == jA && jA <= jB {
			xcorr(dst[jA:jB+1], pmf, p[jA+lo:])
			j = jB
			continue
		}
		i0, i1 := max(lo, from-j), min(hi, top-j)
		if i0 > i1 {
			continue
		}
		dst[j] += dot(pmf[i0-lo:i1-lo+1], p[j+i0:j+i1+1])
	}
	return integral
}
