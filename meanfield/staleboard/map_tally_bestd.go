package staleboard

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// The tally evolution of best of d (see map_bestd.go for the model and
// what it neglects): the perceived law, each class's mean tally, and each
// class's count through the ticks.

// tallyODEStep is the longest RK4 step of the tally equations: the rates
// are at most d·λ/k per dispatcher, so a step of 0.5 keeps h·ν ≤ 0.27 at
// d = 3, k = 5, λ = 0.9, and RK4's error (h·ν)⁴/120 below 1e-4 per unit
// time on rates that change only as the water passes (halving it moves
// the mean time in system by less than 1e-6, TestTallyBestdSteps).
const tallyODEStep = 0.5

// tallyODERate bounds h·ν on the fastest rate d·λ/k (large d, few
// dispatchers): RK4 is stable to h·ν ≈ 2.8 and accurate far below it.
const tallyODERate = 0.25

// tallyTiny is the mass below which a tally or count window's end is cut.
const tallyTiny = 1e-30

// tallySpace is the work space of the tally evolution of best of d.
type tallySpace struct {
	h     float64        // tick length of the weights
	ticks map[int]*tickW // tick weights by arrivals a
	pois  []float64      // Pois(s; h), s = 0..smax
	plost float64        // its tail beyond smax
	mtail [][][]float64  // Σ_{m>q} P(M ≥ m | a, s) by a, s, q < s
	glx   []float64      // Gauss–Legendre nodes and weights on [0, h]
	glw   []float64
	land  []float64 // Poisson window of a push
}

// tickW is the transition of one tick with a arrivals at iid uniform times
// and Poisson(h) services: rows[q] the law of the end level (from 0) for
// a start q < len(rows) (where the floor can matter), and lint[q] =
// ∫₀ʰ E[services lost at the floor by u] du from q.
type tickW struct {
	rows [][]float64
	lint []float64
}

// lnChoose is log C(n, r).
func lnChoose(n, r int) float64 {
	a, _ := math.Lgamma(float64(n) + 1)
	b, _ := math.Lgamma(float64(r) + 1)
	c, _ := math.Lgamma(float64(n-r) + 1)
	return a - b - c
}

// mTail returns P(M ≥ m | a, s), m = 0..s+1, M the largest excess of
// services over arrivals along a uniformly random order of a arrivals and
// s services: 1 up to max(0, s − a), then C(a+s, a+m)/C(a+s, a)
// (reflection principle), 0 beyond s.
func mTail(a, s int) []float64 {
	out := make([]float64, s+2)
	m0 := max(0, s-a)
	for m := 0; m <= m0; m++ {
		out[m] = 1
	}
	for m := m0 + 1; m <= s; m++ {
		out[m] = out[m-1] * float64(s-m+1) / float64(a+m)
	}
	return out
}

// setup prepares the tick weights' shared parts for tick length h.
func (ts *tallySpace) setup(h, poissonTol float64) {
	if ts.ticks != nil && ts.h == h {
		return
	}
	ts.h = h
	ts.ticks = map[int]*tickW{}
	ts.pois = ts.pois[:0]
	pmf := math.Exp(-h)
	for s := 0; ; s++ {
		if s > 0 {
			pmf *= h / float64(s)
		}
		ts.pois = append(ts.pois, pmf)
		if r := h / float64(s+1); r < 0.5 {
			if bound := pmf * r / (1 - r); bound < poissonTol {
				ts.plost = bound
				break
			}
		}
	}
	const nodes = 24
	ts.glx, ts.glw = make([]float64, nodes), make([]float64, nodes)
	quad.Legendre{}.FixedLocations(ts.glx, ts.glw, 0, h)
	ts.mtail = nil
}

// tick returns the weights of a tick with a arrivals.
func (ts *tallySpace) tick(a int) *tickW {
	if w, ok := ts.ticks[a]; ok {
		return w
	}
	smax := len(ts.pois) - 1
	w := &tickW{rows: make([][]float64, smax), lint: make([]float64, smax)}
	for q := range smax {
		row := make([]float64, q+a+1)
		for s, ps := range ts.pois {
			if q >= s {
				row[q+a-s] += ps
				continue
			}
			// end = a − s + max(q, M).
			mt := mTail(a, s)
			v0 := max(q, s-a) // max(q, M) ≥ s − a
			row[a-s+v0] += ps * (1 - mt[v0+1])
			for v := v0 + 1; v <= s; v++ {
				row[a-s+v] += ps * (mt[v] - mt[v+1])
			}
		}
		w.rows[q] = row
	}
	// lint by Gauss–Legendre over the tick: at time u the arrivals so far
	// are Binom(a, u/h), the services Poisson(u), in uniform order.
	h := ts.h
	for n, u := range ts.glx {
		binom := make([]float64, a+1)
		for j := range binom {
			binom[j] = math.Exp(lnChoose(a, j) + float64(j)*math.Log(u/h) + float64(a-j)*math.Log1p(-u/h))
		}
		pmf := math.Exp(-u)
		for s := 0; s <= smax+20; s++ {
			if s > 0 {
				pmf *= u / float64(s)
			}
			if s == 0 {
				continue // no services: nothing lost
			}
			for j, pb := range binom {
				mt := mTail(j, s)
				// E[max(q, M) − q] = Σ_{m>q} P(M ≥ m), q < s.
				var tail float64
				for q := min(s, smax) - 1; q >= 0; q-- {
					tail += mt[q+1]
					w.lint[q] += ts.glw[n] * pb * pmf * tail
				}
			}
		}
	}
	ts.ticks[a] = w
	return w
}

// applyTick adds wt times the law x (from lo) after one tick with a
// arrivals into dst (from 0, grown as needed) and returns dst and wt
// times ∫ E[q] over the tick.
func (ts *tallySpace) applyTick(dst []float64, x []float64, lo int, a int, wt float64) ([]float64, float64) {
	if wt == 0 {
		return dst, 0
	}
	w := ts.tick(a)
	smax := len(ts.pois) - 1
	if n := lo + len(x) + a + 1; len(dst) < n {
		dst = append(dst, make([]float64, n-len(dst))...)
	}
	h := ts.h
	var integ float64
	for j, v := range x {
		if v == 0 {
			continue
		}
		q := lo + j
		vw := v * wt
		integ += vw * (float64(q)*h + float64(a)*h/2 - h*h/2)
		if q < smax {
			for e, r := range w.rows[q] {
				dst[e] += vw * r
			}
			integ += vw * w.lint[q]
			continue
		}
		base := q + a
		for s, ps := range ts.pois {
			dst[base-s] += vw * ps
		}
	}
	return dst, integ
}

// applyTallyBestd evaluates Φ_T(p) for best of d on board + own tally (p
// checked, top its last non-zero class, mass its total) into res.
func (m *Map) applyTallyBestd(p []float64, top int, mass float64, res *MapResult) {
	bd := m.bestd
	ts := &bd.ts
	k, d, lam, T := float64(m.K), bd.d, m.Load, m.Period
	nt := max(1, int(math.Ceil(T*lam/k)))
	h := T / float64(nt)
	ts.setup(h, m.poissonTol())
	step := math.Min(tallyODEStep, tallyODERate/(float64(d)*lam/k))
	nsub := max(1, int(math.Ceil(h/step)))
	dt := h / float64(nsub)

	// Perceived law P on 0..V−1 and each class's tally law.
	V := top + 2 + int(math.Ceil(float64(d)*lam*T/k)) + 64
	st := newTallyStepper(p, top, mass, lam/k, d, V)
	type class struct {
		b, off int       // the law's first level is b + off
		w      float64   // the class's mass p_b
		pi     []float64 // law of the perceived level from b
		mean   []float64 // C_b at ticks 0..nt
	}
	var cls []*class
	for b := 0; b <= top; b++ {
		if p[b] > 0 {
			cls = append(cls, &class{b: b, w: p[b], pi: []float64{1}, mean: make([]float64, 1, nt+1)})
		}
	}
	for j := 1; j <= nt; j++ {
		for range nsub {
			st.stepP(dt)
			// The same step for every class's law, at the same rates.
			for _, c := range cls {
				c.pi = st.slopes(c.pi, c.b+c.off, dt)
				for q := range c.pi {
					c.pi[q] += st.inc(q, dt)
				}
				c.pi, c.off = trimLow(c.pi, c.off)
			}
		}
		for _, c := range cls {
			var s0, s1 float64
			for i, v := range c.pi {
				s0 += v
				s1 += float64(c.off+i) * v
			}
			c.mean = append(c.mean, k*s1/s0)
		}
	}

	// Each class's count through the ticks, with the carry; at every
	// checkpoint the mass that cannot reach the floor before T leaves for
	// T at once (push).
	next := res.Next[:0]
	*res = MapResult{Next: next}
	every := max(1, nt/tallyCheckpoints)
	push := ts.pushes(nt/every+1, nt, every, h)
	var integ float64
	var x0, x1, y0, y1 []float64
	ct := newCarryTable(nt)
	for _, c := range cls {
		ct.fill(c.mean)
		x0 = append(x0[:0], 1)
		x1 = x1[:0]
		lo0, lo1 := c.b, c.b
		for j := 1; j <= nt; j++ {
			base, p01, p11 := ct.base[j], ct.p01[j], ct.p11[j]
			var i0, i1, i2, i3 float64
			y0, i0 = ts.applyTick(y0[:0], x0, lo0, base, 1-p01)
			y1, i1 = ts.applyTick(y1[:0], x0, lo0, base+1, p01)
			if len(x1) > 0 {
				if base >= 1 {
					y0, i2 = ts.applyTick(y0, x1, lo1, base-1, 1-p11)
				}
				y1, i3 = ts.applyTick(y1, x1, lo1, base, p11)
			}
			integ += c.w * (i0 + i1 + i2 + i3)
			x0, lo0 = trimWindow(x0[:0], y0)
			x1, lo1 = trimWindow(x1[:0], y1)
			if j%every == 0 && j < nt {
				pj := push[j/every]
				need := ct.need(j, h)
				integ += c.w * pj.take(&x0, &lo0, need, 0, c.w, &ct, j, h)
				integ += c.w * pj.take(&x1, &lo1, need, 1, c.w, &ct, j, h)
			}
		}
		for i, v := range x0 {
			next = addAt(next, lo0+i, c.w*v)
		}
		for i, v := range x1 {
			next = addAt(next, lo1+i, c.w*v)
		}
	}
	for _, pj := range push {
		next = pj.land(next, ts)
	}
	m.finishBestd(res, next, mass, integ)
}

// tallyCheckpoints is the number of checkpoints of a period at which the
// mass that cannot reach the floor before T is pushed to T.
const tallyCheckpoints = 24

// carryTable holds one class's tick schedule: base_j = ⌊C_j⌋ − ⌊C_{j−1}⌋,
// the carry's transition probabilities into tick j, and ⌊C_j⌋.
type carryTable struct {
	base     []int
	fl       []float64
	p01, p11 []float64
	p1       [2][]float64 // P(c_i = 1 | c_j) for i ≥ j (work space of need/take)
}

func newCarryTable(nt int) carryTable {
	return carryTable{base: make([]int, nt+1), fl: make([]float64, nt+1), p01: make([]float64, nt+1), p11: make([]float64, nt+1),
		p1: [2][]float64{make([]float64, nt+1), make([]float64, nt+1)}}
}

// fill computes the schedule of the means C_0..C_nt (made non-decreasing).
func (ct *carryTable) fill(mean []float64) {
	prev := 0.0
	for j := 1; j < len(ct.base); j++ {
		C := math.Max(mean[j], prev)
		fp, fc := prev-math.Floor(prev), C-math.Floor(C)
		base := int(math.Floor(C) - math.Floor(prev))
		var p11, p01 float64
		if fp > 0 {
			p11 = math.Min(fc, fp) / fp
		}
		if base == 0 {
			p11 = 1 // the count cannot fall
		}
		if fp < 1 {
			p01 = math.Max(0, fc-fp) / (1 - fp)
		}
		ct.base[j], ct.p01[j], ct.p11[j], ct.fl[j] = base, p01, p11, math.Floor(C)
		prev = C
	}
}

// need returns the level above which a count at tick j cannot reach the
// floor before T: the most services by the end of each later tick i (the
// Poisson quantile τ + 10√τ + 40, below 1e-22 each; union over at most
// MaxTicks) less the fewest arrivals by the start of tick i (⌊C_i⌋ −
// ⌊C_j⌋ − 1, the carry at its worst).
func (ct *carryTable) need(j int, h float64) int {
	nt := len(ct.base) - 1
	var worst float64
	for i := j; i < nt; i++ {
		tau := float64(i+1-j) * h
		d := tau + 10*math.Sqrt(tau) + 40 - (ct.fl[i] - ct.fl[j] - 1)
		worst = math.Max(worst, d)
	}
	return int(math.Ceil(worst))
}

// pushAcc gathers the mass pushed at one checkpoint, by its level at T
// before the remaining services (Poisson(T − t_j)).
type pushAcc struct {
	tau float64
	acc []float64
}

// pushes returns the period's push accumulators (checkpoint j·every at
// index j).
func (ts *tallySpace) pushes(n, nt, every int, h float64) []*pushAcc {
	out := make([]*pushAcc, n)
	for i := range out {
		out[i] = &pushAcc{tau: float64(nt-i*every) * h}
	}
	return out
}

// take moves the mass of the law *x (first level *lo, carry c) above need
// into the accumulator, with its arrivals still to come (the carry's law
// at T given c), and returns the time integral of E[q] that mass adds
// from t_j to T (per unit of the class's mass).
func (pa *pushAcc) take(x *[]float64, lo *int, need, c int, w float64, ct *carryTable, j int, h float64) float64 {
	v := *x
	cut := need + 1 - *lo // first index moved
	if cut >= len(v) {
		return 0
	}
	cut = max(cut, 0)
	nt := len(ct.base) - 1
	// P(c_i = 1 | c_j = c), i = j..nt, and E[A(t_i) − A(t_j)].
	p := float64(c)
	var ea, prevEA, integA float64
	for i := j + 1; i <= nt; i++ {
		p = p*ct.p11[i] + (1-p)*ct.p01[i]
		prevEA = ea
		ea = ct.fl[i] - ct.fl[j] + p - float64(c)
		integA += h * (prevEA + ea) / 2
	}
	R := int(ct.fl[nt] - ct.fl[j])
	tau := pa.tau
	var integ float64
	for i := cut; i < len(v); i++ {
		m := v[i]
		if m == 0 {
			continue
		}
		q := *lo + i
		integ += m * (float64(q)*tau + integA - tau*tau/2)
		l0 := q + R - c // level at T before services with c_T = 0
		pa.acc = addAt(pa.acc, l0, w*m*(1-p))
		pa.acc = addAt(pa.acc, l0+1, w*m*p)
	}
	*x = v[:cut]
	return integ
}

// land adds the accumulated mass to dst after its Poisson(τ) services and
// returns dst (mass the services would take below 0 is put at 0: the push
// criterion keeps it below 1e-19).
func (pa *pushAcc) land(dst []float64, ts *tallySpace) []float64 {
	if len(pa.acc) == 0 {
		return dst
	}
	lo, pmf := poissonWindow(&ts.land, pa.tau)
	for l, m := range pa.acc {
		if m == 0 {
			continue
		}
		for i, ps := range pmf {
			dst = addAt(dst, max(0, l-(lo+i)), m*ps)
		}
	}
	pa.acc = pa.acc[:0]
	return dst
}

// tallyBuffer is the number of empty levels kept above a tally law's
// window while it is stepped: within one step of 0.5 at rate ≤ 0.54 the
// mass that climbs 8 levels is below 1e-9 of what sits at the window's
// top, itself below tallyTiny.
const tallyBuffer = 8

// forward writes the right side of the pure-birth forward equation for the
// law x (its first level lo) at rates r into dst: inflow from the level
// below minus outflow; the top level's outflow leaves the window (see
// tallyBuffer).
func forward(dst, x []float64, lo int, r []float64) {
	var in float64
	for j, v := range x {
		out := r[lo+j] * v
		dst[j] = in - out
		in = out
	}
	if n := len(x); n > 0 && lo+n == len(r) {
		dst[n-1] += r[lo+n-1] * x[n-1] // the last level of the map keeps its mass
	}
}

// allBelow reports whether every |x_i| < tol.
func allBelow(x []float64, tol float64) bool {
	for _, v := range x {
		if math.Abs(v) >= tol {
			return false
		}
	}
	return true
}

// trimWindow copies y (from 0) into dst without its ends below tallyTiny
// and returns it with its first level.
func trimWindow(dst, y []float64) ([]float64, int) {
	a, b := 0, len(y)
	for a < b && y[a] < tallyTiny {
		a++
	}
	for b > a && y[b-1] < tallyTiny {
		b--
	}
	return append(dst, y[a:b]...), a
}

// addAt adds v at index i of dst, grown as needed.
func addAt(dst []float64, i int, v float64) []float64 {
	if len(dst) <= i {
		dst = append(dst, make([]float64, i+1-len(dst))...)
	}
	dst[i] += v
	return dst
}

// tallyStepper is the RK4 evolution both best-of-d-with-tally maps share:
// the perceived law P on 0..V−1, with the rates recorded at its four
// stages, and at those rates each class's law of the perceived level.
type tallyStepper struct {
	V     int
	lamK  float64 // λ/k
	d     int
	mass  float64
	P     []float64
	stage [][]float64 // P at the four stages
	nu    [][]float64 // the rates there
	kP    [][]float64
	kb    [4][]float64 // a class law's four slopes
	xb    []float64
}

// newTallyStepper starts the perceived law at the board p[:top+1] (of
// total mass) on V levels.
func newTallyStepper(p []float64, top int, mass, lamK float64, d, V int) *tallyStepper {
	s := &tallyStepper{V: V, lamK: lamK, d: d, mass: mass, P: make([]float64, V)}
	copy(s.P, p[:top+1])
	s.stage, s.nu, s.kP = make([][]float64, 4), make([][]float64, 4), make([][]float64, 4)
	for i := range s.nu {
		s.stage[i], s.nu[i], s.kP[i] = make([]float64, V), make([]float64, V), make([]float64, V)
	}
	return s
}

// rates writes into dst the rate at which a server at each perceived
// level receives one dispatcher's jobs under the perceived law x.
func (s *tallyStepper) rates(dst, x []float64) {
	var S float64
	for v := s.V - 1; v >= 0; v-- {
		Sn := S
		S += x[v]
		dst[v] = s.lamK * choiceRate(S/s.mass, Sn/s.mass, s.d) / s.mass
	}
}

// stepP advances P by dt (RK4), recording the rates at the four stages.
func (s *tallyStepper) stepP(dt float64) {
	P := s.P
	copy(s.stage[0], P)
	for i := range 4 {
		if i > 0 {
			f := dt / 2
			if i == 3 {
				f = dt
			}
			for v := range P {
				s.stage[i][v] = P[v] + f*s.kP[i-1][v]
			}
		}
		s.rates(s.nu[i], s.stage[i])
		forward(s.kP[i], s.stage[i], 0, s.nu[i])
	}
	for v := range P {
		P[v] += dt / 6 * (s.kP[0][v] + 2*s.kP[1][v] + 2*s.kP[2][v] + s.kP[3][v])
	}
}

// slopes fits a class's law pi of the perceived level from lo = b + off
// to its mass (grown until its last tallyBuffer entries are below
// tallyTiny, cut at V) and computes its four RK4 slopes over dt at the
// rates of the last stepP; it returns the fitted law, whose increment at
// q is inc(q, dt).
func (s *tallyStepper) slopes(pi []float64, lo int, dt float64) []float64 {
	for len(pi) < tallyBuffer || !allBelow(pi[len(pi)-tallyBuffer:], tallyTiny) {
		pi = append(pi, 0)
	}
	if over := lo + len(pi) - s.V; over > 0 {
		pi = pi[:len(pi)-over]
	}
	n := len(pi)
	for i := range s.kb {
		s.kb[i] = growTo(&s.kb[i], n)
	}
	s.xb = growTo(&s.xb, n)
	for i := range 4 {
		src := pi
		if i > 0 {
			f := dt / 2
			if i == 3 {
				f = dt
			}
			for q := range s.xb {
				s.xb[q] = pi[q] + f*s.kb[i-1][q]
			}
			src = s.xb
		}
		forward(s.kb[i], src, lo, s.nu[i])
	}
	return pi
}

// inc is the RK4 increment at q of the law slopes last fitted.
func (s *tallyStepper) inc(q int, dt float64) float64 {
	return dt / 6 * (s.kb[0][q] + 2*s.kb[1][q] + 2*s.kb[2][q] + s.kb[3][q])
}

// trimLow drops a law's leading entries below tallyTiny (keeping one),
// returning the law and its first level's new offset.
func trimLow(pi []float64, off int) ([]float64, int) {
	cut := 0
	for cut < len(pi)-1 && math.Abs(pi[cut]) < tallyTiny {
		cut++
	}
	if cut > 0 {
		pi = append(pi[:0], pi[cut:]...)
		off += cut
	}
	return pi, off
}
