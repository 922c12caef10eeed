package jackson

import "math"

// The normalising constants are computed by Buzen's convolution (Buzen,
// Comm. ACM 16, 1973), arranged so that nothing overflows, underflows
// harmfully, or cancels:
//
//   - All delay stations together act as one, f(n) = a^n/n! with
//     a = Σ v_i/μ_i (multinomial theorem). Load-dependent stations are
//     convolved into this base in log space, O(N²) each.
//   - Single-server stations, f_i(n) = ρ_i^n, follow the recursion
//     G_i(n) = G_{i−1}(n) + ρ_i·G_i(n−1), run level by level (n outer):
//     at each level all values are held relative to a common scale and
//     renormalised so the largest is 1 (exact rescaling). Only sums of
//     positive numbers and products occur; the scale's logarithm
//     advances by a small increment per level, kept exactly.
//   - Alongside the full chain, the chains that omit one single-server
//     station r run in the same scale, so P(n_r = 0) = G₋ᵣ(N)/G(N) is a
//     ratio of two numbers in one scale: accurate to rounding even when
//     it is 1e-100 (where 1 − ρ_r·G(N−1)/G(N) would cancel).

// base is the product-form factor of everything that is not a
// single-server station.
type base struct {
	hasDelay bool
	a        float64     // combined delay demand Σ v_i/μ_i
	loadDep  [][]float64 // log f_i(n), n = 0..N, per load-dependent station
}

// chains is the result of the level recursion.
type chains struct {
	// dlog[n] = log G(n) − log G(n−1), n = 1..N (dlog[0] = log G(0)).
	dlog []float64
	// empty[r][n] = G₋ᵣ(n)/G(n) for single-server station r, at every
	// level n (if requested) or only at N (empty[r][0] holds it then).
	empty [][]float64
}

// logG returns log G(n), n = 0..N, accumulated with compensated summation
// from the per-level increments.
func (c *chains) logG() []float64 {
	out := make([]float64, len(c.dlog))
	var s kahan
	for n, d := range c.dlog {
		s.add(d)
		out[n] = s.sum()
	}
	return out
}

// kahan is Neumaier's compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// emptyMode says which G₋ᵣ/G ratios runChains keeps.
type emptyMode int

const (
	emptyNone  emptyMode = iota
	emptyFinal           // only at level N
	emptyAll             // at every level (for marginals)
)

// runChains runs the recursion for population n over the base b and the
// single-server stations with log ρ_i = logRho[i].
func runChains(b *base, logRho []float64, n int, mode emptyMode) *chains {
	logBase := b.logFactors(n)
	if len(logRho) == 0 {
		return baseChains(b, logBase, n)
	}
	l := newLevels(b, logBase, logRho, n, mode)
	for k := 1; k <= n; k++ {
		l.level(k)
	}
	if mode == emptyFinal {
		for q, m := range l.mw {
			l.out.empty[q][0] = m[len(m)-1]
		}
	}
	return l.out
}

// logFactors returns the base's log factors log f(k), k = 0..n, with the
// load-dependent stations convolved in, or nil when the base is the delay
// stations alone (then f(k) = a^k/k! is applied as increments).
func (b *base) logFactors(n int) []float64 {
	if len(b.loadDep) == 0 {
		return nil
	}
	logBase := make([]float64, n+1)
	var s kahan
	for k := range logBase {
		switch {
		case b.hasDelay:
			if k > 0 {
				s.add(math.Log(b.a / float64(k)))
			}
			logBase[k] = s.sum()
		case k > 0:
			logBase[k] = math.Inf(-1)
		}
	}
	for _, lf := range b.loadDep {
		next := make([]float64, n+1)
		for k := range next {
			next[k] = logSumExpConv(lf, logBase, k)
		}
		logBase = next
	}
	return logBase
}

// baseChains is the result for a network without single-server stations:
// only the base.
func baseChains(b *base, logBase []float64, n int) *chains {
	out := &chains{dlog: make([]float64, n+1)}
	for k := 1; k <= n; k++ {
		if logBase != nil {
			out.dlog[k] = logBase[k] - logBase[k-1]
		} else {
			out.dlog[k] = math.Log(b.a / float64(k))
		}
	}
	if logBase != nil {
		out.dlog[0] = logBase[0]
	}
	return out
}

// levels is the state of the level recursion between levels k−1 and k.
type levels struct {
	b       *base
	logBase []float64
	mode    emptyMode
	out     *chains
	// Every demand is scaled by 1/ρ_max: G(n) scales by ρ_max^−n, and
	// then ρ_i ≤ 1, so every queue term is at most 1.
	lmax    float64
	r       []float64 // ρ_i/ρ_max
	aScaled float64   // a/ρ_max
	w       []float64 // full chain at the previous level, scaled
	mw      [][]float64
	// lscale is log of the scale of level k−1 relative to log G(k−1),
	// needed only to place a log-space base into the current scale.
	lscale kahan
}

func newLevels(b *base, logBase, logRho []float64, n int, mode emptyMode) *levels {
	K := len(logRho)
	l := &levels{b: b, logBase: logBase, mode: mode, out: &chains{dlog: make([]float64, n+1)}, lmax: math.Inf(-1)}
	for _, lr := range logRho {
		l.lmax = math.Max(l.lmax, lr)
	}
	l.r = make([]float64, K)
	for i, lr := range logRho {
		l.r[i] = math.Exp(lr - l.lmax)
	}
	l.aScaled = b.a * math.Exp(-l.lmax)
	l.w = ones(K + 1)
	if logBase != nil {
		l.out.dlog[0] = logBase[0]
		l.lscale.add(logBase[0])
	}
	if mode == emptyNone {
		return l
	}
	l.mw = make([][]float64, K) // chains omitting station r
	l.out.empty = make([][]float64, K)
	for q := range l.mw {
		l.mw[q] = ones(K + 1)
		if mode == emptyAll {
			l.out.empty[q] = make([]float64, n+1)
			l.out.empty[q][0] = 1
		} else {
			l.out.empty[q] = make([]float64, 1)
		}
	}
	return l
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// level advances the chains from level k−1 to level k and renormalises
// them so the largest value is 1.
func (l *levels) level(k int) {
	w, mw, K := l.w, l.mw, len(l.r)
	u0, shift := l.baseAt(k)
	u := u0
	w[0] = u0
	for i := 1; i <= K; i++ {
		u += l.r[i-1] * w[i]
		w[i] = u
	}
	// The chain omitting station q (chain position q+1) equals the full
	// chain up to position q; only positions after it differ.
	for q := range mw {
		m := mw[q]
		v := w[q]
		m[q+1] = v
		for i := q + 2; i <= K; i++ {
			v += l.r[i-1] * m[i]
			m[i] = v
		}
	}
	// The partial sums grow with i, and every omitted chain is below
	// the full one: the full chain's last value is the largest.
	top := w[K]
	inv := 1 / top
	for i := range w {
		w[i] = flush(w[i] * inv)
	}
	for q := range mw {
		for i := q + 1; i <= K; i++ {
			mw[q][i] = flush(mw[q][i] * inv)
		}
		if l.mode == emptyAll {
			l.out.empty[q][k] = mw[q][K]
		}
	}
	lt := math.Log(top)
	l.lscale.add(lt)
	l.out.dlog[k] = shift + lt + l.lmax
}

// baseAt returns the base's value at level k in the scale of level k−1,
// and the log shift by which the previous level was brought down so the
// base fits (0 if it was not).
func (l *levels) baseAt(k int) (u0, shift float64) {
	if l.logBase == nil {
		if l.b.hasDelay {
			return l.w[0] * l.aScaled / float64(k), 0
		}
		return 0, 0
	}
	e := l.logBase[k] - float64(k)*l.lmax - l.lscale.sum()
	if e > 600 {
		f := math.Exp(600 - e)
		for i := range l.w {
			l.w[i] *= f
		}
		for q := range l.mw {
			for i := q + 1; i < len(l.mw[q]); i++ {
				l.mw[q][i] *= f
			}
		}
		shift = e - 600
		l.lscale.add(shift)
		e = 600
	}
	return math.Exp(e), shift
}

// tiny is the relative size below which a chain value is set to zero.
// Values are relative to the largest value of their level (which is 1);
// one that has decayed to 1e-280 of it contributes nothing at double
// precision to any later level, and keeping it would drive the recursion
// into subnormal arithmetic, which is about a hundred times slower.
const tiny = 1e-280

func flush(x float64) float64 {
	if x < tiny {
		return 0
	}
	return x
}

// logSumExpConv returns log Σ_{j=0..k} exp(lf[j] + lg[k−j]).
func logSumExpConv(lf, lg []float64, k int) float64 {
	m := math.Inf(-1)
	for j := 0; j <= k; j++ {
		m = math.Max(m, lf[j]+lg[k-j])
	}
	if math.IsInf(m, -1) {
		return m
	}
	var s float64
	for j := 0; j <= k; j++ {
		s += math.Exp(lf[j] + lg[k-j] - m)
	}
	return m + math.Log(s)
}
