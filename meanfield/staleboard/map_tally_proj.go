package staleboard

import (
	"math"
	"slices"
)

// The projected-superposition evolution of best of d with tallies (see
// map_bestd.go for the model). Given its board b a server's
// arrivals are the superposition A(s) = Σ_r t_r(s) of the k dispatchers'
// tallies, independent pure-birth processes of rate ν(b + t_r, s). The
// evolution replaces A by its Markovian projection (mimicking process): the
// birth process on A of rate
//
//	λ_b(a, s) = E[Σ_r ν(b + t_r, s) | A(s) = a]
//	          = k·[(π·ν) ∗ π^{∗(k−1)}](a) / π^{∗k}(a),
//
// π = π_b(·, s) the law of one tally, which has the same one-time laws as
// A (Gyöngy's theorem for counting processes: the projection's forward
// equation is the marginal of the exact one), and follows each class's
// joint law of (A, q) by the forward equation of the chain whose arrivals
// raise both by one at rate λ_b(A, s) and whose services lower q at rate 1
// while q > 0. It is exact for one dispatcher (A = t_1 is then Markov).
// This file steps the forward equation by RK4 (applyTallyProj: the
// tests' reference, bestdMap.rk4); the map steps it by SSPRK(10,4)
// (map_tally_ssp.go), with the classes, superposition and fit here.

// projStepRate bounds dt·(λ_max + 1) on the joint chain's fastest rates
// (arrivals at most d·λ, services 1): RK4 on a generator is stable to
// |z| ≈ 2.8, and the generator's spectrum lies within twice the largest
// rate. The rates are frozen at the step's midpoint, so the time
// discretisation is of second order: at k = 5, λ = 0.9, T = 400 (one
// period from a balanced board) halving the step moved the mean time in
// system by 1.3e-5 and the board mean by 1.8e-4 relative, and halving it
// again by a quarter of that.
const projStepRate = 1.2

// projCellCost is the work, in PeriodCost's units of about 10 ns, of one
// cell of a joint law in one RK4 step (its four stages, the fit and the
// rates' share): with it the count is 0.97 and 1.02 times the measured CPU
// time of one period from the balanced board and from the herd at T = 400
// and 0.83 times at T = 100 (TestTallyProjSSPMeasure; it was 1.5 before
// fit's re-layout copied rows instead of cells one by one); at T = 2,000,
// whose tally laws are wider, 0.56 times (the tally steps are not
// counted: RK4 is the tests' reference, the map counts them).
const projCellCost = 1.0

// projTiny is the mass (absolute: the joint laws carry their class's
// mass) below which a row or column of a joint law's window is cut, and
// (per unit of mass) below which a tally level is left out of the rates'
// convolutions.
const projTiny = 1e-18

// projBuf is the number of empty rows and columns kept above a joint law's
// window: one RK4 step moves mass by at most four rows or columns (one per
// stage), and what moves four is below (dt·rate)^4/4! ≈ 5e-3 of what sits
// at the window's edge, itself below projTiny.
const projBuf = 4

// jointLaw is a joint law of a row index (the arrivals A, or X, from alo)
// and the count q, row by row on its own window of counts: row i holds
// q = lo[i] .. lo[i]+n[i]−1 at f[off[i]:], so that the rows of a law mixed
// over board classes (whose counts differ by the board) stay narrow.
type jointLaw struct {
	alo      int
	lo, n    []int
	off      []int
	f        []float64
	elo, ehi []int     // work space of fit
	nlo, nn  []int     // likewise
	nf       []float64 // likewise
	nq       []float64 // fitWith's work space
	// buf, if positive, replaces projBuf: the most rows or counts one
	// step of the evolution moves mass by (ten for SSPRK(10,4)).
	buf int
}

// projSpace is the work space of the projected evolution.
type projSpace struct {
	k1, k2, k3       []float64
	sl               [sspHalf][]float64 // the SSP sweeps' rates
	lam              []float64
	conv, conv2, xnu []float64
	xs, num, den     []float64
}

// newJointLaw returns the law with mass w[i] at (alo + rows[i], q[i]).
func newJointLaw(alo int, rows, qs []int, w []float64) jointLaw {
	na := 0
	for _, r := range rows {
		na = max(na, r+1)
	}
	j := jointLaw{alo: alo, lo: make([]int, na), n: make([]int, na), off: make([]int, na)}
	for i, r := range rows {
		j.lo[r], j.n[r] = qs[i], 1
	}
	tot := 0
	for i := range na {
		j.off[i] = tot
		tot += j.n[i]
	}
	j.f = make([]float64, tot)
	for i, r := range rows {
		j.f[j.off[r]] = w[i]
	}
	j.fit()
	return j
}

// rows is the number of rows.
func (j *jointLaw) rows() int { return len(j.lo) }

// fit re-lays the law out when its mass comes within projBuf (buf if
// set) of a row window's edge, counting the arrivals' climb from up to
// projBuf rows below (one RK4 step moves mass by at most four rows or
// counts), with 2·projBuf of room; rows below projTiny at the bottom are
// dropped and projBuf rows are kept above the last one with mass.
func (j *jointLaw) fit() { j.fitWith(nil) }

// fitWith is fit for the law and a second one laid out as it, q2 (the
// cells either holds count; nil: none), and returns q2 re-laid out.
func (j *jointLaw) fitWith(q2 []float64) []float64 {
	bf := projBuf
	if j.buf > 0 {
		bf = j.buf
	}
	na := j.rows()
	j.elo, j.ehi = growInts(j.elo, na), growInts(j.ehi, na)
	first, last := -1, -1
	for i := range na {
		r := j.f[j.off[i] : j.off[i]+j.n[i]]
		a, b := 0, len(r)
		if q2 == nil {
			for a < b && math.Abs(r[a]) < projTiny {
				a++
			}
			for b > a && math.Abs(r[b-1]) < projTiny {
				b--
			}
		} else {
			r2 := q2[j.off[i] : j.off[i]+j.n[i]]
			for a < b && math.Abs(r[a]) < projTiny && math.Abs(r2[a]) < projTiny {
				a++
			}
			for b > a && math.Abs(r[b-1]) < projTiny && math.Abs(r2[b-1]) < projTiny {
				b--
			}
		}
		j.elo[i], j.ehi[i] = j.lo[i]+a, j.lo[i]+b
		if a < b {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return q2
	}
	newNa := last + 1 + bf - first
	j.nlo, j.nn = growInts(j.nlo, newNa), growInts(j.nn, newNa)
	need := first != 0 || newNa != na
	clo, chi, depth := 0, 0, 0
	for r := range newNa {
		i := r + first
		lo, hi := 0, 0 // required counts [lo, hi), empty if lo == hi
		if i < na && j.elo[i] < j.ehi[i] {
			lo, hi = j.elo[i], j.ehi[i]
			if depth > 0 {
				lo, hi = min(lo, clo+1), max(hi, chi+1)
			}
			clo, chi, depth = lo, hi, bf
		} else if depth > 0 {
			lo, hi = clo+1, chi+1
			clo, chi = lo, hi
			depth--
		}
		if lo == hi {
			j.nlo[r], j.nn[r] = 0, 0
			if i >= na || j.n[i] != 0 {
				need = need || i >= na
			}
			if i < na {
				j.nlo[r], j.nn[r] = j.lo[i], j.n[i]
			}
			continue
		}
		wlo, whi := max(0, lo-bf), hi+bf
		if i < na && j.lo[i] <= wlo && j.lo[i]+j.n[i] >= whi {
			j.nlo[r], j.nn[r] = j.lo[i], j.n[i]
			continue
		}
		need = true
		wlo, whi = max(0, lo-2*bf), hi+2*bf
		j.nlo[r], j.nn[r] = wlo, whi-wlo
	}
	if !need {
		return q2
	}
	tot := 0
	for r := range newNa {
		tot += j.nn[r]
	}
	if j.buf > 0 && len(j.f) <= 2*tot {
		return j.rechunk(first, newNa, q2)
	}
	if cap(j.nf) < tot {
		// Half again as much room: the windows grow a few cells at a
		// time, and a buffer of exactly tot is outgrown at the next fit.
		j.nf = make([]float64, tot, tot+tot/2)
	}
	nf := j.nf[:tot]
	clear(nf)
	var nq []float64
	if q2 != nil {
		if cap(j.nq) < tot {
			j.nq = make([]float64, tot, tot+tot/2)
		}
		nq = j.nq[:tot]
		clear(nq)
	}
	off := make([]int, newNa)
	pos := 0
	for r := range newNa {
		off[r] = pos
		if i := r + first; i < na {
			// The counts both windows hold, [a, b).
			a, b := max(j.lo[i], j.nlo[r]), min(j.lo[i]+j.n[i], j.nlo[r]+j.nn[r])
			if a < b {
				copy(nf[pos+a-j.nlo[r]:pos+b-j.nlo[r]], j.f[j.off[i]+a-j.lo[i]:j.off[i]+b-j.lo[i]])
				if q2 != nil {
					copy(nq[pos+a-j.nlo[r]:pos+b-j.nlo[r]], q2[j.off[i]+a-j.lo[i]:j.off[i]+b-j.lo[i]])
				}
			}
		}
		pos += j.nn[r]
	}
	if q2 != nil {
		q2 = nq // in the law's own work space, until its next fitWith
	}
	j.nf, j.f = j.f, nf
	j.lo = append(j.lo[:0], j.nlo[:newNa]...)
	j.n = append(j.n[:0], j.nn[:newNa]...)
	j.off = off
	j.alo += first
	return q2
}

// rechunk is fitWith's re-layout for the SSP evolution, whose passes go
// row by row: a row whose window is kept keeps its cells where they are,
// and only the rows that need a new window get one, appended at the end
// of f (and of q2), so that the rows dropped at the bottom and added at
// the top, most fits' changes, move no cell; what the moved rows leave
// behind is reclaimed by fitWith's full re-layout once f is twice the
// law.
func (j *jointLaw) rechunk(first, newNa int, q2 []float64) []float64 {
	na := j.rows()
	off := make([]int, newNa)
	for r := range newNa {
		i := r + first
		if i < na && j.lo[i] == j.nlo[r] && j.n[i] == j.nn[r] {
			off[r] = j.off[i]
			continue
		}
		o, w := len(j.f), j.nn[r]
		j.f = slices.Grow(j.f, w)[:o+w]
		clear(j.f[o:])
		if q2 != nil {
			q2 = slices.Grow(q2[:o], w)[:o+w]
			clear(q2[o:])
		}
		if i < na {
			a, b := max(j.lo[i], j.nlo[r]), min(j.lo[i]+j.n[i], j.nlo[r]+w)
			if a < b {
				copy(j.f[o+a-j.nlo[r]:o+b-j.nlo[r]], j.f[j.off[i]+a-j.lo[i]:j.off[i]+b-j.lo[i]])
				if q2 != nil {
					copy(q2[o+a-j.nlo[r]:o+b-j.nlo[r]], q2[j.off[i]+a-j.lo[i]:j.off[i]+b-j.lo[i]])
				}
			}
		}
		off[r] = o
	}
	j.lo = append(j.lo[:0], j.nlo[:newNa]...)
	j.n = append(j.n[:0], j.nn[:newNa]...)
	j.off = off
	j.alo += first
	return q2
}

// cells is the number of cells of the law's windows.
func (j *jointLaw) cells() int {
	n := 0
	for _, w := range j.n {
		n += w
	}
	return n
}

func growInts(x []int, n int) []int {
	if cap(x) < n {
		return make([]int, n)
	}
	return x[:n]
}

// superpose returns the numerator and denominator of the projected rate
// for the tally law x (tallies from off, class b) at the rates nu (by
// perceived level): num(a) = k·[(π·ν) ∗ π^{∗(k−1)}](a) and den(a) =
// π^{∗k}(a) for A = base + i, i < len(num) (the law cut below projTiny).
func (ps *projSpace) superpose(x []float64, off, b, k int, nu []float64) (base int, num, den []float64) {
	lo, hi := 0, len(x)
	for lo < hi-1 && x[lo] < projTiny {
		lo++
	}
	for hi > lo+1 && x[hi-1] < projTiny {
		hi--
	}
	xs := append(ps.xs[:0], x[lo:hi]...)
	for i := range xs {
		xs[i] = math.Max(0, xs[i])
	}
	ps.xs = xs
	xnu := growTo(&ps.xnu, len(xs))
	for i, v := range xs {
		xnu[i] = v * nu[b+off+lo+i]
	}
	// π^{∗(k−1)}.
	cur := append(ps.conv[:0], 1)
	for range k - 1 {
		nx := growTo(&ps.conv2, len(cur)+len(xs)-1)
		clear(nx)
		for i, a := range cur {
			for j, v := range xs {
				nx[i+j] += a * v
			}
		}
		ps.conv, ps.conv2 = nx, cur
		cur = nx
	}
	n := len(cur) + len(xs) - 1
	num, den = growTo(&ps.num, n), growTo(&ps.den, n)
	clear(num)
	clear(den)
	for i, c := range cur {
		for j, v := range xs {
			num[i+j] += xnu[j] * c
			den[i+j] += v * c
		}
	}
	kf := float64(k)
	for i := range num {
		num[i] *= kf
	}
	return k * (off + lo), num, den
}

// fillRates sets lam[i] = num/den at row alo + i where den > 1e-280 (rows
// of index base + j), and elsewhere the nearest such row's value (rows
// the law's mass has left or not reached, whose joint mass is below
// projTiny); with no such row, fallback.
func fillRates(lam []float64, alo, base int, num, den []float64, fallback float64) {
	first, last := -1, -1
	for i := range lam {
		j := alo + i - base
		if j >= 0 && j < len(den) && den[j] > 1e-280 {
			lam[i] = num[j] / den[j]
			if first < 0 {
				first = i
			}
			last = i
		} else if last >= 0 {
			lam[i] = lam[last]
		}
	}
	if first < 0 {
		for i := range lam {
			lam[i] = fallback
		}
		return
	}
	for i := range first {
		lam[i] = lam[first]
	}
}

// stepJoint advances the joint law by one RK4 step of length dt at the
// frozen row rates lam and returns ∫ E[q] over the step. Each stage is one
// fused pass over the law: a row's slope is formed cell by cell from the
// row's own values and the arrival inflow from the row below (gathered
// first into a row buffer that stays in cache), and written at once into
// the next stage's input and the slopes' running sum, so the law is read
// and written once a stage with no separate clearing or combining pass.
func (ps *projSpace) stepJoint(j *jointLaw, lam []float64, dt float64) float64 {
	n := len(j.f)
	sa, sb, acc := growTo(&ps.k1, n), growTo(&ps.k2, n), growTo(&ps.k3, n)
	f := j.f
	var m [4]float64
	for st := range 4 {
		src := [4][]float64{f, sa, sb, sa}[st]
		dst := [4][]float64{sa, sb, sa, f}[st]
		h := [4]float64{dt / 2, dt / 2, dt, dt / 6}[st]
		for i := range j.rows() {
			m[st] += ps.rowStage(j, i, st, src, dst, acc, lam, h)
		}
	}
	return dt / 6 * (m[0] + 2*m[1] + 2*m[2] + m[3])
}

// rowStage runs RK4 stage st on row i: with D the forward equation's right
// side at src (the row's outflow at rate lam[i] + 1{q > 0}, the service
// inflow from q + 1 in the row, the arrival inflow from (row i − 1, q − 1)
// at rate lam[i−1]; inflow from outside the window is dropped, below
// projTiny by fit's margins), it writes dst = f + h·D and acc = D (stage
// 0), dst = f + h·D and acc += 2·D (stages 1, 2), or f += h·(acc + D)
// (stage 3, h = dt/6), and returns the row's part of E[q] under src.
func (ps *projSpace) rowStage(j *jointLaw, i, st int, src, dst, acc, lam []float64, h float64) float64 {
	o, n, lo := j.off[i], j.n[i], j.lo[i]
	if n == 0 {
		return 0
	}
	r := src[o : o+n]
	pr, lp, c0, c1, sh := j.inflow(i, src, lam)
	l, l1 := lam[i], lam[i]+1
	fr, ar, dr := j.f[o:o+n], acc[o:o+n], dst[o:o+n]
	// cell sets cell c from its slope v.
	cell := func(c int, v float64) {
		switch st {
		case 0:
			dr[c], ar[c] = fr[c]+h*v, v
		case 1, 2:
			dr[c], ar[c] = fr[c]+h*v, ar[c]+2*v
		default:
			fr[c] += h * (ar[c] + v)
		}
	}
	// in is the arrival inflow into cell c.
	in := func(c int) float64 {
		if c >= c0 && c < c1 {
			return lp * pr[c+sh]
		}
		return 0
	}
	// Cell c's slope: in(c) − (l + 1{q > 0})·r[c] + r[c+1] (the service
	// inflow; none into the window's last cell). The first cell (q = 0:
	// no service out) and the last are set one by one, the cells between
	// in three runs (before, within and after the arrivals' reach).
	first := 0
	if lo == 0 {
		v := in(0) - l*r[0]
		if n > 1 {
			v += r[1]
		}
		cell(0, v)
		first = 1
	}
	if first < n {
		e := n - 1
		a0, a1 := min(max(c0, first), e), min(max(c1, first), e)
		runStage(st, h, l1, fr[first:a0], ar[first:a0], dr[first:a0], r[first:a0], r[first+1:a0+1], nil, 0)
		if a0 < a1 {
			runStage(st, h, l1, fr[a0:a1], ar[a0:a1], dr[a0:a1], r[a0:a1], r[a0+1:a1+1], pr[a0+sh:a1+sh], lp)
		}
		runStage(st, h, l1, fr[a1:e], ar[a1:e], dr[a1:e], r[a1:e], r[a1+1:e+1], nil, 0)
		cell(e, in(e)-l1*r[e])
	}
	return rowMean(src[o:o+n], lo)
}

// inflow is the arrival inflow into row i (n[i] > 0) from row i − 1 of
// the law src (laid out as j.f) at row rates lam: it reaches the row's
// cells [c0, c1), cell c getting lp·pr[c + sh] (none when row i − 1 is
// absent or empty: c0 = c1 = 0).
func (j *jointLaw) inflow(i int, src, lam []float64) (pr []float64, lp float64, c0, c1, sh int) {
	if i == 0 || j.n[i-1] == 0 {
		return nil, 0, 0, 0, 0
	}
	n, lo := j.n[i], j.lo[i]
	pl, pn := j.lo[i-1], j.n[i-1]
	pr = src[j.off[i-1] : j.off[i-1]+pn]
	c0, c1 = min(n, max(0, pl+1-lo)), max(0, min(n, pl+pn+1-lo))
	return pr, lam[i-1], c0, max(c0, c1), lo - 1 - pl
}

// runStage sets the cells of one run from their slopes
// lp·pin[c] − l1·r[c] + rn[c] (pin nil: no arrival inflow), as rowStage's
// stage st (every slice of the run's length).
func runStage(st int, h, l1 float64, fr, ar, dr, r, rn, pin []float64, lp float64) {
	m := len(r)
	fr, ar, dr, rn = fr[:m], ar[:m], dr[:m], rn[:m]
	if pin == nil {
		switch st {
		case 0:
			for c, x := range r {
				v := rn[c] - l1*x
				dr[c], ar[c] = fr[c]+h*v, v
			}
		case 1, 2:
			for c, x := range r {
				v := rn[c] - l1*x
				dr[c], ar[c] = fr[c]+h*v, ar[c]+2*v
			}
		default:
			for c, x := range r {
				fr[c] += h * (ar[c] + rn[c] - l1*x)
			}
		}
		return
	}
	pin = pin[:m]
	switch st {
	case 0:
		for c, x := range r {
			v := lp*pin[c] - l1*x + rn[c]
			dr[c], ar[c] = fr[c]+h*v, v
		}
	case 1, 2:
		for c, x := range r {
			v := lp*pin[c] - l1*x + rn[c]
			dr[c], ar[c] = fr[c]+h*v, ar[c]+2*v
		}
	default:
		for c, x := range r {
			fr[c] += h * (ar[c] + lp*pin[c] - l1*x + rn[c])
		}
	}
}

// rowMean is Σ_c (lo + c)·r[c], in four interleaved partial sums (one
// running sum would wait on each add's latency).
func rowMean(r []float64, lo int) float64 {
	var s0, s1, s2, s3 float64
	q := float64(lo)
	c := 0
	for ; c+4 <= len(r); c += 4 {
		x := r[c : c+4 : c+4]
		s0 += q * x[0]
		s1 += (q + 1) * x[1]
		s2 += (q + 2) * x[2]
		s3 += (q + 3) * x[3]
		q += 4
	}
	for ; c < len(r); c++ {
		s0 += q * r[c]
		q++
	}
	return (s0 + s1) + (s2 + s3)
}

// qMarginal adds the law's count marginal into dst and returns it.
func (j *jointLaw) qMarginal(dst []float64) []float64 {
	for i := range j.rows() {
		for c, v := range j.f[j.off[i] : j.off[i]+j.n[i]] {
			if v > 0 {
				dst = addAt(dst, j.lo[i]+c, v)
			}
		}
	}
	return dst
}

// applyTallyProj evaluates Φ_T(p) for best of d on board + own tally by
// the projected superposition (p checked, top its last non-zero class,
// mass its total) into res.
func (m *Map) applyTallyProj(p []float64, top int, mass float64, res *MapResult) {
	bd := m.bestd
	ps := &bd.ps
	k, d, lam, T := float64(m.K), bd.d, m.Load, m.Period
	step := math.Min(tallyODEStep, tallyODERate/(float64(d)*lam/k))
	step = math.Min(step, projStepRate/(float64(d)*lam+1))
	if bd.stepScale > 0 {
		step *= bd.stepScale
	}
	nstep := max(1, int(math.Ceil(T/step)))
	bd.merged = 0
	dt := T / float64(nstep)

	V := top + 2 + int(math.Ceil(float64(d)*lam*T/k)) + 64
	st := newTallyStepper(p, top, mass, lam/k, d, V)
	cls := newProjClasses(p, top)
	var mid []float64
	bd.workUsed, bd.overCap = 0, false
	for i := range nstep {
		// The work is counted as it is done (the cells of the joint laws a
		// step updates): their number follows the board's spread and the
		// herd's, which no estimate from the board alone bounded within a
		// factor 25 of the measured cost.
		for _, c := range cls {
			bd.workUsed += projCellCost * float64(len(c.jl.f))
		}
		if bd.overWork(res) {
			return
		}
		if i%projMergeEvery == 0 && !bd.noMerge {
			n0 := len(cls)
			cls = projMerge(cls, m.K)
			bd.merged += n0 - len(cls)
		}
		st.stepP(dt)
		for _, c := range cls {
			c.pi = st.slopes(c.pi, c.b+c.off, dt)
			mid = growTo(&mid, len(c.pi))
			// The tally law and rates at the step's midpoint (its RK4
			// step's two ends averaged: second order in dt) drive the joint step.
			for q := range c.pi {
				inc := st.inc(q, dt)
				mid[q] = c.pi[q] + inc/2
				c.pi[q] += inc
			}
			base, num, den := ps.superpose(mid, c.off, c.b, m.K, st.nu[1])
			lamA := growTo(&ps.lam, c.jl.rows())
			fillRates(lamA, c.jl.alo, base, num, den, k*st.nu[1][c.b+c.off])
			c.integ += ps.stepJoint(&c.jl, lamA, dt)
			c.jl.fit()
			c.pi, c.off = trimLow(c.pi, c.off)
		}
	}
	m.finishProj(cls, mass, res)
}

// newProjClasses returns the period's start: one class for each board
// level b ≤ top of positive mass, its tallies at 0 and its joint law at
// (A, q) = (0, b).
func newProjClasses(p []float64, top int) []*projClass {
	var cls []*projClass
	for b := 0; b <= top; b++ {
		if p[b] > 0 {
			c := &projClass{b: b, w: p[b], pi: []float64{1}}
			c.jl = newJointLaw(0, []int{0}, []int{b}, []float64{p[b]})
			cls = append(cls, c)
		}
	}
	return cls
}

// finishProj sets res from the classes at the period's end: the next
// board is the sum of their count marginals, the mean time in system
// their integrals' (mass the board's total).
func (m *Map) finishProj(cls []*projClass, mass float64, res *MapResult) {
	next := res.Next[:0]
	*res = MapResult{Next: next}
	var integ float64
	for _, c := range cls {
		integ += c.integ
		next = c.jl.qMarginal(next)
	}
	m.finishBestd(res, next, mass, integ)
}

// projClass is one board class of the projected evolution: its tally law
// (tallies from off), its joint law of (A, q) in absolute mass, and the
// time integral of its mass's mean count so far.
type projClass struct {
	b, off int
	w      float64
	pi     []float64
	jl     jointLaw
	integ  float64
	// The SSP evolution's rates and the mean count of jl.
	ssp  sspRates
	mean float64
}

// projMergeTol is the total variation between two classes' tally laws, in
// perceived levels (board + tally), below which the lighter class's joint
// law is added to the heavier's and follows its rates from then on: λ_b
// depends on the class only through the law of b + t (its rows shifted by
// k·b), so the merged rates differ by at most that relative amount, and
// the laws keep converging (a server behind the others' perceived level
// is sent to faster). At T = 400 merging changes the mean time in system
// by less than 1e-9 relative (TestTallyProjMerge).
const projMergeTol = 1e-10

// projMergeEvery is the number of steps between merge checks.
const projMergeEvery = 8

// projMerge merges into the heaviest class every class whose perceived
// tally law is within projMergeTol of its own, and returns the classes
// left.
func projMerge(cls []*projClass, k int) []*projClass {
	if len(cls) < 2 {
		return cls
	}
	root := cls[0]
	for _, c := range cls {
		if c.w > root.w {
			root = c
		}
	}
	out := cls[:0]
	for _, c := range cls {
		if c != root && perceivedTV(c, root) < projMergeTol {
			root.jl.add(&c.jl, k*(c.b-root.b))
			root.integ += c.integ
			root.mean += c.mean
			root.w += c.w
			continue
		}
		out = append(out, c)
	}
	return out
}

// perceivedTV is Σ_v |π_a(v) − π_b(v)| over perceived levels v.
func perceivedTV(a, b *projClass) float64 {
	la, lb := a.b+a.off, b.b+b.off
	lo, hi := min(la, lb), max(la+len(a.pi), lb+len(b.pi))
	var tv float64
	for v := lo; v < hi; v++ {
		tv += math.Abs(at(a.pi, v-la) - at(b.pi, v-lb))
	}
	return tv
}

func at(x []float64, i int) float64 {
	if i < 0 || i >= len(x) {
		return 0
	}
	return x[i]
}

// add adds the joint law src, whose row A is this law's row A + shift,
// into j, each row on the union of the two windows.
func (j *jointLaw) add(src *jointLaw, shift int) {
	slo := src.alo + shift
	lo := min(j.alo, slo)
	hi := max(j.alo+j.rows(), slo+src.rows())
	na := hi - lo
	nlo, nn, off := make([]int, na), make([]int, na), make([]int, na)
	win := func(l *jointLaw, base, r int) (int, int, bool) {
		i := r + lo - base
		if i < 0 || i >= l.rows() || l.n[i] == 0 {
			return 0, 0, false
		}
		return l.lo[i], l.lo[i] + l.n[i], true
	}
	tot := 0
	for r := range na {
		a0, a1, okA := win(j, j.alo, r)
		b0, b1, okB := win(src, slo, r)
		switch {
		case okA && okB:
			nlo[r], nn[r] = min(a0, b0), max(a1, b1)-min(a0, b0)
		case okA:
			nlo[r], nn[r] = a0, a1-a0
		case okB:
			nlo[r], nn[r] = b0, b1-b0
		}
		off[r] = tot
		tot += nn[r]
	}
	f := make([]float64, tot)
	for _, l := range []struct {
		law  *jointLaw
		base int
	}{{j, j.alo}, {src, slo}} {
		for i := range l.law.rows() {
			r := i + l.base - lo
			for c, v := range l.law.f[l.law.off[i] : l.law.off[i]+l.law.n[i]] {
				f[off[r]+l.law.lo[i]+c-nlo[r]] += v
			}
		}
	}
	j.alo, j.lo, j.n, j.off, j.f = lo, nlo, nn, off, f
	j.fit()
}
