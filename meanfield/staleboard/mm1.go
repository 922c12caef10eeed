package staleboard

import "math"

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
func skellamRec(buf, scratch *[]float64, mu1, mu2 float64) (int, []float64) {
	mean, sd := mu1-mu2, math.Sqrt(mu1+mu2)
	lo := int(math.Floor(mean - 15*sd - 40))
	hi := int(math.Ceil(mean + 15*sd + 40))
	n := hi - lo + 1
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	f := (*buf)[:n]
	clear(f)
	const big = 1e200
	// Upper sweep: k from hi down to max(lo, 0) (k ≥ 1 adds positive terms;
	// the step from k = 0 gives f(−1) = μ₂f(1)/μ₁, also positive).
	top := max(lo, 0)
	if hi >= top {
		var next float64 // f(k+1)
		f[hi-lo] = 1
		for k := hi; k > top; k-- {
			cur := f[k-lo]
			prev := (mu2*next + float64(k)*cur) / mu1
			next = cur
			f[k-1-lo] = prev
			if prev > big {
				for j := k - 1; j <= hi; j++ {
					f[j-lo] /= big
				}
				next /= big
			}
		}
	}
	// Lower sweep: k from lo up to min(hi, 0).
	bot := min(hi, 0)
	if lo <= bot {
		low := (*scratch)[:0]
		var prev float64 // f(k−1)
		low = append(low, 1)
		for k := lo; k < bot; k++ {
			cur := low[k-lo]
			nx := (mu1*prev - float64(k)*cur) / mu2
			prev = cur
			low = append(low, nx)
			if nx > big {
				for j := range low {
					low[j] /= big
				}
				prev /= big
			}
		}
		scale := 1.0
		if top == 0 && hi >= 0 {
			scale = f[-lo] / low[bot-lo]
		}
		for j, v := range low {
			f[j] = v * scale
		}
		*scratch = low
	}
	var sum, peak float64
	for _, v := range f {
		sum += v
		peak = math.Max(peak, v)
	}
	a, b := 0, len(f)
	for a < b-1 && f[a] < skellamCut*peak {
		a++
	}
	for b > a+1 && f[b-1] < skellamCut*peak {
		b--
	}
	f = f[a:b]
	for i := range f {
		f[i] /= sum
	}
	return lo + a, f
}

// skellam is the Skellam law of arrivals Poisson(mu1) minus services
// Poisson(t), with the service window kept from one call to the next.
func (ws *mm1Space) skellam(mu1, t float64) (int, []float64) {
	if mu1 >= 2 && t >= 2 {
		return skellamRec(&ws.sk, &ws.sc, mu1, t)
	}
	if ws.svc == nil || ws.svcT != t {
		ws.svcT = t
		ws.svcLo, ws.svc = poissonWindow(&ws.svc, t)
	}
	lo1, p1 := poissonWindow(&ws.ar, mu1)
	return convolve(&ws.sk, lo1, p1, ws.svcLo, ws.svc)
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
	svcT    float64
	svcLo   int
	svc, ar []float64
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
	if rho <= 1 {
		// H(n) = ρ^n·C(−n − i − 1), C the cdf, nonzero while −n − i − 1 ≥ lo.
		if nh := -lo - i - 1; nh >= 1 {
			h = growTo(&ws.h, nh)
			var cum float64
			for k := lo; k <= -i-2; k++ {
				if k <= hi {
					cum += f[k-lo]
				}
				h[-k-i-2] = cum // n = −k − i − 1
			}
			pw := 1.0
			for n := 1; n <= nh; n++ {
				pw *= rho
				h[n-1] *= pw
			}
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
	ws.h = h
	H := func(n int) float64 {
		if n < 1 || n > len(h) {
			return 0
		}
		return h[n-1]
	}
	off := max(0, i+lo)
	if len(h) > 0 {
		off = 0
	}
	top := max(i+hi, len(h)+1)
	law := growTo(&ws.law, top-off+1)
	if off == 0 {
		// P(q = 0) = P(X ≤ −i) − H(1).
		var c0 float64
		for k := lo; k <= min(-i, hi); k++ {
			c0 += f[k-lo]
		}
		law[0] = math.Max(0, c0-H(1))
	}
	for n := max(off, 1); n <= top; n++ {
		var sk float64
		if k := n - i; k >= lo && k <= hi {
			sk = f[k-lo]
		}
		law[n-off] = math.Max(0, sk+H(n)-H(n+1))
	}
	for len(law) > 1 && law[len(law)-1] == 0 {
		law = law[:len(law)-1]
	}
	return off, law
}
