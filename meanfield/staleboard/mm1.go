package staleboard

import (
	"math"
	"slices"
)

// The M/M/1 transient from a fixed start, in closed form: the building
// block of the best-of-d map without tallies, where a server of board b
// receives a Poisson stream of constant rate for the whole period.
//
// With arrivals at rate ρ, services at rate 1 and q(0) = i, let X = A − D
// be the free walk over [0, t], A ~ Poisson(ρt), D ~ Poisson(t)
// independent (a Skellam law, pmf f). Then for n ≥ 1
//
//	P(q(t) ≥ n) = P(X ≥ n − i) + ρ^n·P(X ≤ −n − i − 1),
//
// the image (Bessel-function) solution of the M/M/1 forward equation
// written in Skellam terms (f(−j) = ρ^{−j}·f(j)). For ρ > 1 the second
// term is evaluated as Σ_{j ≥ n+i+1} ρ^{n−j}·f(j), so that no power above
// 1 is ever formed. The time integral of E[q] follows from the first two
// moments at t alone: d/ds E[q] = ρ − 1 + P(q = 0) and d/ds E[q²] =
// 2(ρ − 1)E[q] + ρ + 1 − P(q = 0), so
//
//	∫₀ᵗ E[q(s)] ds = (E[q(t)²] + E[q(t)] − i² − i − 2ρt) / (2(ρ − 1)),
//
// evaluated as Σ_n (n − i)(n + i + 1)·P(q(t) = n) to avoid cancelling i².
// Near ρ = 1 (|ρ − 1| < mm1Near) the quotient loses digits, and the
// integral is interpolated linearly between ρ = 1 ± mm1Near (TestMM1Integral
// bounds the error).

// mm1Near is the distance from ρ = 1 below which the integral is
// interpolated: at 1e-4 the rounding of the quotient (about
// 1e-13·(i + t)²/|ρ − 1|) and the interpolation error (the integral's
// curvature in ρ, about 1e-8·t³) are both below 1e-8 of it at t ≤ 3,000.
const mm1Near = 1e-4

// skellamCut is the relative size, against the mode, of the Skellam terms
// kept.
const skellamCut = 1e-30

// skellam returns the pmf of A − D, A ~ Poisson(mu1), D ~ Poisson(mu2)
// (mu2 > 0, mu1 ≥ 0), on the window lo..lo+len−1 of the terms above
// skellamCut of the largest, into *buf. Both parameters ≥ 2: Miller's
// recurrence μ₂f(k+1) + k·f(k) − μ₁f(k−1) = 0, run from each far tail
// toward k = 0 (where every term it adds is positive, so it is stable),
// matched at 0 and normalised; otherwise the direct convolution of the
// two Poisson windows, one of them short.
func skellam(buf, scratch *[]float64, mu1, mu2 float64) (int, []float64) {
	if mu1 < 2 || mu2 < 2 {
		return skellamConv(buf, mu1, mu2)
	}
	return skellamRec(buf, scratch, mu1, mu2)
}

// skellamRec is skellam by Miller's recurrence (both parameters ≥ 2).
// Each sweep starts where a Chernoff bound puts the terms below
// skellamStart of the mode's (skellamEnds), so that the arbitrary start's
// error, which decays about as the square of the terms' ratio toward the
// mode, is below 1e-6 of the terms at the cut and far below rounding at
// the terms kept.
func skellamRec(buf, scratch *[]float64, mu1, mu2 float64) (int, []float64) {
	lo, hi := skellamEnds(mu1, mu2)
	n := hi - lo + 1
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	// Every entry is written: the upper sweep from hi down to max(lo, 0),
	// the lower one from lo up to min(hi, 0).
	f := (*buf)[:n]
	const big = 1e200
	// The recurrence runs two steps per iteration from the pair of terms
	// before, kept in registers, so that the chain of dependent operations
	// is one multiply and one add per two terms (math.FMA's run-time
	// dispatch on amd64 v1 would spill the loop): f(k−1) = (k/μ₁)·f(k) +
	// (μ₂/μ₁)·f(k+1) downward, f(k+1) = (−k/μ₂)·f(k) + (μ₁/μ₂)·f(k−1)
	// upward.
	inv1, inv2 := 1/mu1, 1/mu2
	r21, r12 := mu2*inv1, mu1*inv2
	// Upper sweep: k from hi down to max(lo, 0) (k ≥ 1 adds positive terms;
	// the step from k = 0 gives f(−1) = μ₂f(1)/μ₁, also positive).
	top := max(lo, 0)
	if hi >= top {
		var next, cur float64 = 0, 1 // f(k+1), f(k)
		f[hi-lo] = 1
		up := f[:hi-lo+1]
		k := hi
		for ; k-1 > top; k -= 2 {
			// Two steps at once: f(k−1) = b·f(k) + r·f(k+1) and f(k−2) =
			// (b'·b + r)·f(k) + b'·r·f(k+1), b = k/μ₁, b' = (k−1)/μ₁, both
			// from the pair before (positive terms only).
			b, b1 := float64(k)*inv1, float64(k-1)*inv1
			m1 := b*cur + r21*next
			m2 := (b1*b+r21)*cur + b1*r21*next
			next, cur = m1, m2
			up[k-1-lo], up[k-2-lo] = m1, m2
			if m1 > big || m2 > big {
				for j := k - 2; j <= hi; j++ {
					up[j-lo] /= big
				}
				next /= big
				cur /= big
			}
		}
		if k > top {
			up[k-1-lo] = float64(k)*inv1*cur + r21*next
		}
	}
	// Lower sweep: k from lo up to min(hi, 0), into f[0..bot−lo], scaled
	// to the upper sweep's f(0) when both ran.
	bot := min(hi, 0)
	if lo <= bot {
		var f0 float64
		if top == 0 && hi >= 0 {
			f0 = f[-lo]
		}
		low := f[:bot-lo+1]
		var prev, cur float64 = 0, 1 // f(k−1), f(k)
		low[0] = 1
		k := lo
		for ; k+1 < bot; k += 2 {
			// Two steps at once, as in the upper sweep: a = −k/μ₂, a' =
			// −(k+1)/μ₂ (positive: k < 0).
			a, a1 := float64(-k)*inv2, float64(-k-1)*inv2
			n1 := a*cur + r12*prev
			n2 := (a1*a+r12)*cur + a1*r12*prev
			prev, cur = n1, n2
			low[k+1-lo], low[k+2-lo] = n1, n2
			if n1 > big || n2 > big {
				for j := 0; j <= k+2-lo; j++ {
					low[j] /= big
				}
				prev /= big
				cur /= big
			}
		}
		if k < bot {
			low[k+1-lo] = float64(-k)*inv2*cur + r12*prev
		}
		if top == 0 && hi >= 0 {
			scale := f0 / low[bot-lo]
			for j := range low {
				low[j] *= scale
			}
		}
	}
	var sum, peak float64
	for _, v := range f {
		sum += v
		if v > peak {
			peak = v
		}
	}
	a, b := 0, len(f)
	for a < b-1 && f[a] < skellamCut*peak {
		a++
	}
	for b > a+1 && f[b-1] < skellamCut*peak {
		b--
	}
	f = f[a:b]
	inv := 1 / sum
	for i := range f {
		f[i] *= inv
	}
	return lo + a, f
}

// skellamStart is the size, against the mode's, below which a Skellam
// term is certainly dropped by skellamCut (a factor 1,000 below it) and
// the recurrence may start.
const skellamStart = 1e-3 * skellamCut

// skellamEnds returns the first and last terms of the window of Miller's
// recurrence for the Skellam law of Poisson(mu1) − Poisson(mu2): the
// innermost k on either side of the mean whose tail P(X ≥ k) (P(X ≤ k))
// the Chernoff bound exp(−I(k)) puts below skellamStart times a lower
// bound of the mode's term, at most 15 standard deviations and 40 terms
// from the mean. I is the Legendre transform of the cumulant generating
// function ψ(θ) = μ₁(e^θ − 1) + μ₂(e^−θ − 1), minimised at e^θ =
// (k + √(k² + 4μ₁μ₂))/(2μ₁).
func skellamEnds(mu1, mu2 float64) (int, int) {
	mean, sd := mu1-mu2, math.Sqrt(mu1+mu2)
	lo := int(math.Floor(mean - 15*sd - 40))
	hi := int(math.Ceil(mean + 15*sd + 40))
	// The mode's term is at least 1/(its window's length) of the mass in
	// the window (more than half of all of it).
	logCut := math.Log(skellamStart / (2 * float64(hi-lo+1)))
	// tail is log of the Chernoff bound of P(A − B ≥ k), A ~ Poisson(a),
	// B ~ Poisson(b), k > a − b.
	tail := func(k, a, b float64) float64 {
		e := (k + math.Sqrt(k*k+4*a*b)) / (2 * a)
		return -(math.Log(e)*k - a*(e-1) - b*(1/e-1))
	}
	// The smallest d ≤ dmax with tail(m + d) below the cut, m the rounded
	// mean. tail is concave and decreasing in k, with slope −θ (the
	// minimiser, e^θ above): Newton's steps from the Gaussian guess stay
	// at or above the root after the first, and approach it from above,
	// so the ceiling of any of them is at or beyond the last term needed.
	reach := func(a, b float64, m, dmax int) int {
		d := math.Max(1, math.Sqrt(a+b)*math.Sqrt(-2*logCut))
		for range 6 {
			k := float64(m) + d
			e := (k + math.Sqrt(k*k+4*a*b)) / (2 * a)
			g := tail(k, a, b) - logCut
			step := g / math.Log(e)
			d = math.Max(1, d+step)
			if math.Abs(step) < 0.25 && g <= 0 {
				break
			}
		}
		return min(dmax, int(math.Ceil(d)))
	}
	m := int(math.Round(mean))
	up := reach(mu1, mu2, m, hi-m)
	down := reach(mu2, mu1, -m, m-lo)
	return max(lo, m-down), min(hi, m+up)
}

// recMinArrivals is the smallest arrival mean for which the M/M/1 law
// takes the Skellam law by Miller's recurrence (services ≥ 2): below 2 the
// recurrence still agrees with the convolution (TestSkellamSmallArrivals)
// and costs a few passes over the window, where the convolution costs one
// per arrival term kept (12 at μ₁ = 0.01, 28 at μ₁ = 1); below 1e-6 the
// arrival window is at most 5 terms.
const recMinArrivals = 1e-6

// skellam is the Skellam law of arrivals Poisson(mu1) minus services
// Poisson(t), with the service window kept from one call to the next.
func (ws *mm1Space) skellam(mu1, t float64) (int, []float64) {
	if mu1 >= recMinArrivals && t >= 2 {
		return skellamRec(&ws.sk, &ws.sc, mu1, t)
	}
	if ws.svc == nil || ws.svcT != t {
		ws.svcT = t
		ws.svcLo, ws.svc = poissonWindow(&ws.svc, t)
		ws.svcRev = append(ws.svcRev[:0], ws.svc...)
		slices.Reverse(ws.svcRev)
	}
	lo1, p1 := poissonWindow(&ws.ar, mu1)
	return convolveRev(&ws.sk, lo1, p1, ws.svcLo, ws.svcRev)
}

// convolveRev is convolve with the second pmf given reversed (rev[j] =
// p2[len − 1 − j]): for each term of the first, one contiguous
// multiply-add over the output. Every output term adds the same products
// in the same order as convolve's, so the result is the same to the bit.
func convolveRev(buf *[]float64, lo1 int, p1 []float64, lo2 int, rev []float64) (int, []float64) {
	n2 := len(rev)
	lo := lo1 - (lo2 + n2 - 1)
	n := len(p1) + n2 - 1
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	f := (*buf)[:n]
	clear(f)
	for a, pa := range p1 {
		// (lo1+a) − (lo2+d) − lo = a + n2 − 1 − d: d = n2 − 1 − j lands on a + j.
		dst := f[a : a+n2]
		for j, pd := range rev {
			dst[j] += pa * pd
		}
	}
	return lo, f
}

// skellamConv is skellam by the direct convolution of the two Poisson
// windows (one of them short when a parameter is below 2).
func skellamConv(buf *[]float64, mu1, mu2 float64) (int, []float64) {
	var s1, s2 []float64
	lo1, p1 := poissonWindow(&s1, mu1)
	lo2, p2 := poissonWindow(&s2, mu2)
	return convolve(buf, lo1, p1, lo2, p2)
}

// convolve returns the law of A − D for A with pmf p1 from lo1 and D with
// pmf p2 from lo2, into *buf.
func convolve(buf *[]float64, lo1 int, p1 []float64, lo2 int, p2 []float64) (int, []float64) {
	// A − D ranges over lo1 − (lo2+len2−1) .. lo1+len1−1 − lo2.
	lo := lo1 - (lo2 + len(p2) - 1)
	n := len(p1) + len(p2) - 1
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	f := (*buf)[:n]
	clear(f)
	for a, pa := range p1 {
		for d, pd := range p2 {
			// value (lo1+a) − (lo2+d); index from lo.
			f[(lo1+a)-(lo2+d)-lo] += pa * pd
		}
	}
	return lo, f
}

// poissonWindow returns the Poisson(mu) terms above skellamCut of the
// mode's, from lo, into *buf (mu ≥ 0; mu = 0 is the point mass at 0).
func poissonWindow(buf *[]float64, mu float64) (int, []float64) {
	if mu == 0 {
		*buf = append((*buf)[:0], 1)
		return 0, *buf
	}
	mode := int(mu)
	lg, _ := math.Lgamma(float64(mode) + 1)
	peak := math.Exp(-mu + float64(mode)*math.Log(mu) - lg)
	lo, hi := mode, mode
	for v := peak; ; {
		v *= mu / float64(hi+1)
		if v < skellamCut*peak {
			break
		}
		hi++
	}
	for v := peak; lo > 0; {
		v *= float64(lo) / mu
		if v < skellamCut*peak {
			break
		}
		lo--
	}
	n := hi - lo + 1
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	p := (*buf)[:n]
	p[mode-lo] = peak
	for i := mode + 1; i <= hi; i++ {
		p[i-lo] = p[i-1-lo] * mu / float64(i)
	}
	for i := mode - 1; i >= lo; i-- {
		p[i-lo] = p[i+1-lo] * float64(i+1) / mu
	}
	return lo, p
}

// mm1Space is the work space of mm1Law.
type mm1Space struct {
	sk, sc, h, law []float64
	// The Poisson(t) window of the services, kept for the period's t.
	svcT            float64
	svcLo           int
	svc, svcRev, ar []float64
}

// mm1Law adds w times the law at time t of an M/M/1 queue (arrival rate
// rho, service rate 1) started at i into dst (grown as needed, returned),
// and returns w times ∫₀ᵗ E[q(s)] ds.
func (ws *mm1Space) mm1Law(dst []float64, w float64, i int, rho, t float64) ([]float64, float64) {
	off, law := ws.law1(i, rho, t)
	if n := off + len(law); len(dst) < n {
		dst = append(dst, make([]float64, n-len(dst))...)
	}
	var num float64 // Σ (n − i)(n + i + 1)·P(q = n)
	fi := float64(i)
	for j, p := range law {
		dst[off+j] += w * p
		fn := float64(off + j)
		num += (fn - fi) * (fn + fi + 1) * p
	}
	d := rho - 1
	if math.Abs(d) >= mm1Near {
		return dst, w * (num - 2*rho*t) / (2 * d)
	}
	lo, hi := ws.integral(i, 1-mm1Near, t), ws.integral(i, 1+mm1Near, t)
	return dst, w * (lo + (hi-lo)*(d+mm1Near)/(2*mm1Near))
}

// integral is ∫₀ᵗ E[q(s)] ds of the M/M/1 queue from i at rate rho, |ρ −
// 1| ≥ mm1Near (by the moment identity).
func (ws *mm1Space) integral(i int, rho, t float64) float64 {
	off, law := ws.law1(i, rho, t)
	var num float64
	fi := float64(i)
	for j, p := range law {
		fn := float64(off + j)
		num += (fn - fi) * (fn + fi + 1) * p
	}
	return (num - 2*rho*t) / (2 * (rho - 1))
}

// mm1Tiny is the size below which the reflected term H is dropped whole
// (its largest value is bounded before it is computed).
const mm1Tiny = 1e-40

// law1 returns the law at t of the M/M/1 queue from i at rate rho as
// P(q = off + j) = law[j], in ws.law (valid until the next call).
func (ws *mm1Space) law1(i int, rho, t float64) (int, []float64) {
	lo, f := ws.skellam(rho*t, t)
	hi := lo + len(f) - 1
	// The reflected term H(n) = ρ^n·P(X ≤ −n − i − 1), n = 1..len(h).
	h := ws.h[:0]
	var c0 float64 // P(X ≤ −i), if haveC0
	haveC0 := false
	if rho <= 1 {
		// H(n) = ρ^n·C(−n − i − 1), C the cdf, nonzero while −n − i − 1 ≥
		// lo, and below mm1Tiny once ρ^n is (those terms are dropped: the
		// tail of a geometric law, far below the map's truncations).
		nh := -lo - i - 1
		if rho < 1 {
			if c := math.Log(mm1Tiny) / math.Log(rho); c < float64(nh) {
				nh = int(c)
			}
		}
		if nh >= 1 {
			h = growTo(&ws.h, nh)
			var cum float64
			// The cdf up to the first k stored (n = nh), then n = nh … 1,
			// each times ρ^n from ρ^nh ≥ mm1Tiny up (a rounding of about
			// nh ulps).
			kFirst, kLast := -nh-i-1, -i-2
			for k := lo; k < kFirst && k <= hi; k++ {
				cum += f[k-lo]
			}
			pw, inv := math.Pow(rho, float64(nh)), 1/rho
			for k := kFirst; k <= kLast; k++ {
				if k <= hi {
					cum += f[k-lo]
				}
				h[-k-i-2] = cum * pw // n = −k − i − 1
				pw *= inv
			}
			// P(X ≤ −i), the same sum continued.
			for k := kLast + 1; k <= min(-i, hi); k++ {
				cum += f[k-lo]
			}
			c0, haveC0 = cum, true
		}
	} else if nh := hi - i - 1; nh >= 1 && float64(i+1)*math.Log(rho) < -math.Log(mm1Tiny)+math.Log(rho/(rho-1)) {
		// H(n) = ρ^{−(i+1)}·U(n + i + 1), U(m) = f(m) + U(m + 1)/ρ, U ≤
		// ρ/(ρ − 1): dropped when ρ^{−(i+1)}·ρ/(ρ − 1) < mm1Tiny.
		h = growTo(&ws.h, nh)
		var u float64
		for m := hi; m >= i+2; m-- {
			if m-lo >= 0 {
				u = f[m-lo] + u/rho
			} else {
				u /= rho
			}
			h[m-i-2] = u
		}
		s := math.Pow(rho, -float64(i+1))
		for n := range h {
			h[n] *= s
		}
	}
	nh := len(h)
	off := max(0, i+lo)
	if nh > 0 {
		off = 0
	}
	top := max(i+hi, nh+1)
	law := growTo(&ws.law, top-off+1)
	// law[n − off] = max(0, f(n − i) + H(n) − H(n + 1)) for n ≥ 1 (terms
	// out of range zero), in that order of operations; the Skellam term
	// is in range for i + lo ≤ n ≤ i + hi.
	n0 := max(off, 1)
	sBeg, sEnd := max(n0, i+lo), min(top, i+hi) // the n with a Skellam term
	if nh == 0 {
		// No reflected term: the Skellam terms (positive), zeros around.
		for n := n0; n < min(sBeg, top+1); n++ {
			law[n-off] = 0
		}
		copy(law[sBeg-off:], f[sBeg-i-lo:sEnd-i-lo+1])
		for n := max(sBeg, sEnd+1); n <= top; n++ {
			law[n-off] = 0
		}
	} else {
		// H(n) = h[n−1], zero beyond nh: h padded to n = top + 1.
		h = growKeep(h, top+1)
		hn := h[n0-1 : top+1] // hn[j] = H(n0 + j)
		lw := law[n0-off : top-off+1]
		_ = hn[len(lw)]
		for j := range lw {
			n := n0 + j
			var v float64
			if n >= sBeg && n <= sEnd {
				v = f[n-i-lo]
			}
			v = v + hn[j] - hn[j+1]
			if !(v >= 0) {
				v = 0 // math.Max(0, ·) without its call (no NaN reaches here)
			}
			lw[j] = v
		}
	}
	ws.h = h
	if off == 0 {
		// P(q = 0) = P(X ≤ −i) − H(1).
		if !haveC0 {
			for k := lo; k <= min(-i, hi); k++ {
				c0 += f[k-lo]
			}
		}
		if nh > 0 {
			c0 -= h[0]
		}
		law[0] = max(0, c0)
	}
	for len(law) > 1 && law[len(law)-1] == 0 {
		law = law[:len(law)-1]
	}
	return off, law
}
