package staleboard

import "math"

// The split evolution of the projected superposition's joint laws: an
// experiment, kept for tests and measurements only (bestdMap.split);
// map_tally_proj.go has the model and the RK4 evolution, the map. It is
// not the map because the splitting error at the boundary is a hundred
// times the tolerance wherever the boundary holds mass, and it is not
// cheaper where it is least wrong. One T = 400 period from the balanced
// board (k = 5, λ = 0.9, best of two; TestTallyProjSplitMeasure), against
// RK4's 2.2 s, time in system and board mean relative to RK4's:
//
//	H = 1:  2.5 s, +7.3e-3, +9.4e-3
//	H = 2:  1.7 s, +2.5e-2, +3.2e-2
//	H = 4:  1.2 s, +7.6e-2, +9.7e-2
//	H = 8:  0.9 s, +2.0e-1, +2.6e-1
//
// and from the herd (the half-loaded start B = 40 after one period),
// against RK4's 12.3 s:
//
//	H = 1:  8.4 s, +5.9e-4, +7.2e-4
//	H = 2:  5.5 s, +2.0e-3, +2.4e-3
//	H = 4:  3.8 s, +6.2e-3, +7.1e-3
//	H = 8:  3.0 s, +1.8e-2, +1.8e-2
//
// (rates frozen at each step's midpoint; frozen on every tally step
// instead, the errors are the same to two digits: they are the boundary's,
// not the rates'). Away from the boundary the split agrees with the exact
// chain to 3e-5 (TestTallyProjSplit); at q = 0 it serves every arrival of
// a step for the half step after it, where the exact chain serves the
// arrival at τ for H − τ: an error of order λ·H³·P(q = 0) a step that
// does not cancel, and the balanced board's mass is mostly near q = 0.
// The kernels are also wide: a row's arrival kernel spans its mean jump
// λH plus ±8 standard deviations (the left tail is not cut while
// e^{−λH} > projKernelCut), and the services' likewise, about 70
// multiply-adds a cell at H = 8 against RK4's 19 steps of four stages. The forward equation of a class's joint law of
// (A, q) is the sum of two generators: the arrivals, which move mass along
// the diagonals (a, q) → (a + 1, q + 1) at the rate λ_b(a, s) of its row
// alone, and the services, which move it along each row, q → q − 1 at
// rate 1 while q > 0. Away from q = 0 the two commute (a service and an
// arrival reach the same cell in either order at the same rates), so
// Strang's splitting
//
//	e^{H(G_A + G_S)} ≈ e^{H/2·G_S} · P_A(H) · e^{H/2·G_S}
//
// errs only through the boundary q = 0, at third order in H a step, and
// each factor is exact:
//
//   - services for a time σ take q to max(q − N, 0), N ~ Poisson(σ), in
//     every row: a convolution with the Poisson law and its upper tail
//     into q = 0;
//   - arrivals for the step take (a, q) to (a + J, q + J), where J is the
//     pure-birth chain's increment from row a over the step: one transition
//     vector P_A(a → a + ·) a row (the same for every diagonal through it),
//     computed by uniformization (exact for frozen rates) on sub-intervals
//     of projSplitSub tally steps, each at the rates of its midpoint; the
//     tally laws themselves are stepped as before, by RK4 at the tally
//     equations' own step.
//
// The kernels' widths grow like √H plus the mean jumps, while RK4's work
// grows like H/dt, dt ≤ 0.43 for stability; consecutive half steps of
// services are fused into one.
//
// The mean count's time integral is the trapezoid over the step ends with
// the Euler–Maclaurin end correction H²/12·(f′(0) − f′(T)), f(t) = E[q(t)]
// summed over the classes: f′ = λ − (mass − P(q = 0)) exactly (the farm's
// arrival rate is λ whatever the board, its service rate the busy mass),
// so the correction is H²/12·(P0(0) − P0(T)), and the rule is of fourth
// order on the step ends' values. The count's mean at an inner step end
// (between the two half steps of services) is read off the state after the
// arrivals with the weights E[(q − N)^+], N ~ Poisson(H/2).

// projSplitStep is the split evolution's step H, in time units (rounded to
// a whole number of tally steps): see TestTallyProjSplitSteps for the
// measured errors against RK4 at H = 1, 2, 4 and 8.
var projSplitStep = 4.0

// projSplitSub is the number of tally steps of each sub-interval of a split
// step on which the arrivals' rates are frozen at their midpoint
// (superposed there): 0 means the whole step.
var projSplitSub = 0

// projKernelCut is the probability below which a kernel's entries are cut
// (both ends): a cut entry moves at most that fraction of a cell's mass a
// step, 1e-17·(steps ≲ 10³) in all, far below every tolerance, and the
// cells' own cut (projTiny) is of the same order.
const projKernelCut = 1e-17

// splitOpCost is the work, in PeriodCost's units, of one multiply-add of
// the split evolution's kernels (the count its work bound uses): 1.05–1.16
// times the CPU time of the periods of TestTallyProjSplitMeasure (T = 400,
// herd, H = 1–8).
const splitOpCost = 0.1

// splitSpace is the work space of the split evolution.
type splitSpace struct {
	kv     []float64 // the arrival kernels, row after row
	kj, kn []int     // row i's kernel: J = kj[i] .. kj[i]+kn[i]−1 at kv[ko[i]:]
	ko     []int
	cur    []float64
	acc    []float64
	lo, n  []int
	off    []int
	nf     []float64
	ops    float64 // multiply-adds of the kernels so far (the work count)
}

// serviceKernel is services for a time σ: pmf[m] = P(N = m) for m ≥ m0
// (pmf[m] below projKernelCut cut at both ends), tail[q] = P(N ≥ q) for
// q < len(tail) (0 beyond), and the weights g[q] = E[(q − N')^+] of the
// half step N' ~ Poisson(half) for q < len(g) (q − half beyond).
type serviceKernel struct {
	m0   int
	pmf  []float64 // pmf[m−m0]
	tail []float64
	g    []float64
	half float64
}

// poissonCut returns the Poisson(mu) law from its first entry at or above
// cut to its last (the offset of the first), the whole upper tail summed
// from the top for accuracy.
func poissonCut(mu, cut float64) (m0 int, pmf []float64, tail []float64) {
	// Terms by the recurrence from the mode, in logs for the first.
	mode := int(math.Floor(mu))
	lg, _ := math.Lgamma(float64(mode) + 1)
	pm := math.Exp(float64(mode)*math.Log(mu) - mu - lg)
	if mu == 0 {
		return 0, []float64{1}, []float64{1}
	}
	lo, hi := mode, mode
	var down []float64
	for p := pm; lo > 0; {
		p *= float64(lo) / mu
		if p < cut {
			break
		}
		lo--
		down = append(down, p)
	}
	var up []float64
	for p := pm; ; {
		p *= mu / float64(hi+1)
		if p < cut {
			break
		}
		hi++
		up = append(up, p)
	}
	pmf = make([]float64, 0, hi-lo+1)
	for i := len(down) - 1; i >= 0; i-- {
		pmf = append(pmf, down[i])
	}
	pmf = append(pmf, pm)
	pmf = append(pmf, up...)
	tail = make([]float64, hi+1)
	var s float64
	for m := hi; m >= 0; m-- {
		if m >= lo {
			s += pmf[m-lo]
		}
		tail[m] = s
	}
	// P(N ≥ 0) is 1 exactly; the cut terms below lo are below cut.
	for m := 0; m <= lo && m <= hi; m++ {
		tail[m] = 1
	}
	return lo, pmf, tail
}

func newServiceKernel(sigma, half float64) serviceKernel {
	m0, pmf, tail := poissonCut(sigma, projKernelCut)
	k := serviceKernel{m0: m0, pmf: pmf, tail: tail, half: half}
	h0, hp, _ := poissonCut(half, projKernelCut)
	// g(q) = Σ_{m<q} (q − m)·P(N' = m) up to the law's end, q − half
	// beyond (the mass above the end is below the cut).
	k.g = make([]float64, h0+len(hp)+1)
	for q := range k.g {
		var s float64
		for i, p := range hp {
			if m := h0 + i; m < q {
				s += float64(q-m) * p
			}
		}
		k.g[q] = s
	}
	return k
}

// weight is g(q).
func (k *serviceKernel) weight(q int) float64 {
	if q < len(k.g) {
		return k.g[q]
	}
	return float64(q) - k.half
}

// serve applies the services kernel sk to every row of j and returns
// Σ g(q)·mass over the law before it (the mean count half a step of
// services on).
func (sp *splitSpace) serve(j *jointLaw, sk *serviceKernel) float64 {
	na := j.rows()
	sp.lo, sp.n, sp.off = growInts(sp.lo, na), growInts(sp.n, na), growInts(sp.off, na)
	m1 := sk.m0 + len(sk.pmf) - 1 // the largest number of services kept
	tot := 0
	for i := range na {
		lo, n := j.lo[i], j.n[i]
		if n == 0 {
			sp.lo[i], sp.n[i], sp.off[i] = 0, 0, tot
			continue
		}
		nlo := max(0, lo-m1)
		nhi := lo + n - sk.m0
		if lo < len(sk.tail) {
			nhi = max(nhi, 1) // the tail into q = 0
		}
		if nhi <= nlo {
			nlo, nhi = 0, 0
		}
		sp.lo[i], sp.n[i], sp.off[i] = nlo, nhi-nlo, tot
		tot += nhi - nlo
	}
	nf := growTo(&sp.nf, tot)
	clear(nf)
	var mean float64
	for i := range na {
		lo, n := j.lo[i], j.n[i]
		if n == 0 || sp.n[i] == 0 {
			continue
		}
		src := j.f[j.off[i] : j.off[i]+n]
		dst := nf[sp.off[i] : sp.off[i]+sp.n[i]]
		nlo := sp.lo[i]
		for c, v := range src {
			mean += sk.weight(lo+c) * v
		}
		// Cells q ≥ 1 from q + m: dst[q − nlo] += pmf(m)·src[q + m − lo]
		// for q = max(1, lo − m) .. lo + n − 1 − m.
		for mi, p := range sk.pmf {
			m := sk.m0 + mi
			q0 := max(1, lo-m, nlo)
			q1 := lo + n - m // exclusive
			if q1 <= q0 {
				continue
			}
			d := dst[q0-nlo : q1-nlo]
			sp.ops += float64(len(d))
			s := src[q0+m-lo : q1+m-lo]
			s = s[:len(d)]
			for c, x := range s {
				d[c] += p * x
			}
		}
		if nlo == 0 {
			var z float64
			for c, v := range src {
				q := lo + c
				if q >= len(sk.tail) {
					break
				}
				z += sk.tail[q] * v
			}
			dst[0] += z
		}
	}
	j.lo, sp.lo = sp.lo[:na], j.lo
	j.n, sp.n = sp.n[:na], j.n
	j.off, sp.off = sp.off[:na], j.off
	j.f, sp.nf = nf, j.f
	j.trim()
	return mean
}

// trim cuts each row's ends below projTiny and drops empty rows at either
// end (the rows' cells stay where they are in f).
func (j *jointLaw) trim() {
	first, last := -1, -1
	for i := range j.rows() {
		r := j.f[j.off[i] : j.off[i]+j.n[i]]
		a, b := 0, len(r)
		for a < b && math.Abs(r[a]) < projTiny {
			a++
		}
		for b > a && math.Abs(r[b-1]) < projTiny {
			b--
		}
		if a == b {
			j.lo[i], j.n[i] = 0, 0
			continue
		}
		j.off[i] += a
		j.lo[i] += a
		j.n[i] = b - a
		if first < 0 {
			first = i
		}
		last = i
	}
	if first < 0 {
		j.lo, j.n, j.off = j.lo[:0], j.n[:0], j.off[:0]
		return
	}
	n := last + 1 - first
	copy(j.lo, j.lo[first:last+1])
	copy(j.n, j.n[first:last+1])
	copy(j.off, j.off[first:last+1])
	j.lo, j.n, j.off = j.lo[:n], j.n[:n], j.off[:n]
	j.alo += first
}

// uniformize advances the row law v (row i + c at v[c]) of the pure-birth
// chain of rates lam[i + c] (c < len(lam) − i; rates all ≤ top) by time h,
// exactly for the frozen rates: e^{hG} = Σ_n Pois(n; top·h)·(I + G/top)^n,
// every term non-negative. The result (in sp.acc) is returned; the row at
// the end of lam keeps its mass.
func (sp *splitSpace) uniformize(v []float64, i int, lam []float64, top, h float64) []float64 {
	mu := top * h
	reps := max(1, int(math.Ceil(mu/200))) // e^{−μ} stays far from underflow
	h /= float64(reps)
	mu /= float64(reps)
	cur := append(sp.cur[:0], v...)
	for range reps {
		nmax := len(lam) - i
		acc := growTo(&sp.acc, len(cur))
		clear(acc)
		p := math.Exp(-mu)
		for n := 0; ; n++ {
			sp.ops += 2 * float64(len(cur))
			for c, x := range cur {
				acc[c] += p * x
			}
			if float64(n) > mu && p < projKernelCut*1e-3 {
				break
			}
			// cur ← cur·(I + G/top), from the top down, growing by one row.
			if len(cur) < nmax {
				cur = append(cur, 0)
				if len(acc) < len(cur) {
					acc = append(acc, 0)
				}
			}
			l := lam[i : i+len(cur)]
			for c := len(cur) - 1; c > 0; c-- {
				if i+c == len(lam)-1 {
					cur[c] += cur[c-1] * l[c-1] / top
					continue
				}
				cur[c] = cur[c]*(1-l[c]/top) + cur[c-1]*l[c-1]/top
			}
			if i < len(lam)-1 {
				cur[0] *= 1 - l[0]/top
			}
			p *= mu / float64(n+1)
		}
		sp.acc = acc
		cur = append(cur[:0], acc...)
	}
	sp.cur = cur
	return cur
}

// arrive applies the arrival kernels (row i's J law at kv[ko[i]:], from J
// = kj[i], kn[i] entries) to j.
func (sp *splitSpace) arrive(j *jointLaw) {
	na := j.rows()
	out := 0
	for i := range na {
		if j.n[i] > 0 && sp.kn[i] > 0 {
			out = max(out, i+sp.kj[i]+sp.kn[i])
		}
	}
	sp.lo, sp.n, sp.off = growInts(sp.lo, out), growInts(sp.n, out), growInts(sp.off, out)
	for r := range out {
		sp.lo[r], sp.n[r] = math.MaxInt, math.MinInt // lo, hi until laid out
	}
	for i := range na {
		if j.n[i] == 0 {
			continue
		}
		lo, hi := j.lo[i], j.lo[i]+j.n[i]
		for jj := sp.kj[i]; jj < sp.kj[i]+sp.kn[i]; jj++ {
			r := i + jj
			sp.lo[r] = min(sp.lo[r], lo+jj)
			sp.n[r] = max(sp.n[r], hi+jj)
		}
	}
	tot := 0
	for r := range out {
		if sp.lo[r] == math.MaxInt {
			sp.lo[r], sp.n[r] = 0, 0
		} else {
			sp.n[r] -= sp.lo[r]
		}
		sp.off[r] = tot
		tot += sp.n[r]
	}
	nf := growTo(&sp.nf, tot)
	clear(nf)
	for i := range na {
		n := j.n[i]
		if n == 0 {
			continue
		}
		src := j.f[j.off[i] : j.off[i]+n]
		kr := sp.kv[sp.ko[i] : sp.ko[i]+sp.kn[i]]
		for c, p := range kr {
			jj := sp.kj[i] + c
			r := i + jj
			o := sp.off[r] + j.lo[i] + jj - sp.lo[r]
			d := nf[o : o+n]
			sp.ops += float64(n)
			for x, v := range src {
				d[x] += p * v
			}
		}
	}
	j.lo, sp.lo = sp.lo[:out], j.lo
	j.n, sp.n = sp.n[:out], j.n
	j.off, sp.off = sp.off[:out], j.off
	j.f, sp.nf = nf, j.f
	j.trim()
}

// buildKernels computes each row's arrival kernel over the step from the
// sub-intervals' rates lams (rows from the law's alo; sub-interval s of
// length hs) into sp.
func (sp *splitSpace) buildKernels(j *jointLaw, lams [][]float64, tops []float64, hs float64) {
	na := j.rows()
	sp.kj, sp.kn, sp.ko = growInts(sp.kj, na), growInts(sp.kn, na), growInts(sp.ko, na)
	kv := sp.kv[:0]
	for i := range na {
		sp.kj[i], sp.kn[i], sp.ko[i] = 0, 0, len(kv)
		if j.n[i] == 0 {
			continue
		}
		v := []float64{1}
		for s, lam := range lams {
			v = sp.uniformize(v, i, lam, tops[s], hs)
		}
		a, b := 0, len(v)
		for a < b && v[a] < projKernelCut {
			a++
		}
		for b > a && v[b-1] < projKernelCut {
			b--
		}
		sp.kj[i], sp.kn[i] = a, b-a
		kv = append(kv, v[a:b]...)
	}
	sp.kv = kv
}

// applyTallyProjSplit is applyTallyProj by the split evolution.
func (m *Map) applyTallyProjSplit(p []float64, top int, mass float64, res *MapResult) {
	bd := m.bestd
	ps, sp := &bd.ps, &bd.sp
	k, d, lam, T := float64(m.K), bd.d, m.Load, m.Period
	step := math.Min(tallyODEStep, tallyODERate/(float64(d)*lam/k))
	H := projSplitStep
	if bd.splitStep > 0 {
		H = bd.splitStep
	}
	M := max(1, int(math.Round(H/step)))
	ms := M
	if sub := projSplitSub; bd.splitSub > 0 || sub > 0 {
		if bd.splitSub > 0 {
			sub = bd.splitSub
		}
		ms = min(M, sub)
		M = ms * max(1, int(math.Round(float64(M)/float64(ms))))
	}
	nsub := M / ms
	nbig := max(1, int(math.Ceil(T/(float64(M)*step))))
	nstep := M * nbig
	dt := T / float64(nstep)
	Hb := float64(M) * dt
	bd.merged = 0

	V := top + 2 + int(math.Ceil(float64(d)*lam*T/k)) + 64
	st := newTallyStepper(p, top, mass, lam/k, d, V)
	// ext is the rows a kernel may climb above its own in a step: the
	// fastest rate is d·λ (every dispatcher's jobs, best of d at the
	// least level), and 12 standard deviations above its mean jumps.
	lmax := float64(d) * lam
	ext := int(math.Ceil(lmax*Hb+12*math.Sqrt(lmax*Hb))) + 16
	skFull := newServiceKernel(Hb, Hb/2)
	skHalf := newServiceKernel(Hb/2, Hb/2)
	sp.ops = 0
	var cls []*projClass
	var e0 float64
	for b := 0; b <= top; b++ {
		if p[b] > 0 {
			c := &projClass{b: b, w: p[b], pi: []float64{1}}
			c.jl = newJointLaw(0, []int{0}, []int{b}, []float64{p[b]})
			c.jl.trim()
			sp.serve(&c.jl, &skHalf)
			c.lams = make([][]float64, nsub)
			c.tops = make([]float64, nsub)
			cls = append(cls, c)
			e0 += float64(b) * p[b]
		}
	}
	var mid []float64
	bd.workUsed, bd.overCap = 0, false
	workCap := workBudget
	if bd.workCap > 0 {
		workCap = bd.workCap
	}
	var trap float64 // Σ of the inner step ends' mean counts
	var eN float64
	// rates sets class c's sub-interval s rates from the tally law x
	// (perceived rates nu).
	rates := func(c *projClass, s int, x, nu []float64) {
		base, num, den := ps.superpose(x, c.off, c.b, m.K, nu)
		l := growTo(&c.lams[s], c.jl.rows()+ext)
		fillRates(l, c.jl.alo, base, num, den, k*nu[c.b+c.off])
		t := 0.0
		for _, v := range l {
			t = math.Max(t, v)
		}
		if t <= 0 {
			t = 1
		}
		c.tops[s] = t
	}
	for i := range nstep {
		il := i % M
		if il == 0 && i > 0 && !bd.noMerge {
			n0 := len(cls)
			cls = projMerge(cls, m.K)
			bd.merged += n0 - len(cls)
		}
		st.stepP(dt)
		s, is := il/ms, il%ms
		for _, c := range cls {
			c.pi = st.slopes(c.pi, c.b+c.off, dt)
			if ms%2 == 0 && is == ms/2 {
				rates(c, s, c.pi, st.nu[0])
			}
			mid = growTo(&mid, len(c.pi))
			for q := range c.pi {
				inc := st.inc(q, dt)
				mid[q] = c.pi[q] + inc/2
				c.pi[q] += inc
			}
			if ms%2 == 1 && is == ms/2 {
				rates(c, s, mid, st.nu[1])
			}
			c.pi, c.off = trimLow(c.pi, c.off)
		}
		if il != M-1 {
			continue
		}
		last := i == nstep-1
		for _, c := range cls {
			sp.buildKernels(&c.jl, c.lams, c.tops, float64(ms)*dt)
			sp.arrive(&c.jl)
			sk := &skFull
			if last {
				sk = &skHalf
			}
			e := sp.serve(&c.jl, sk)
			if last {
				eN += e
			} else {
				trap += e
			}
		}
		// The work is counted as it is done: the kernels' multiply-adds.
		bd.workUsed += splitOpCost * sp.ops
		sp.ops = 0
		if bd.workUsed > workCap {
			bd.overCap = true
			*res = MapResult{Next: res.Next[:0]}
			return
		}
	}
	next := res.Next[:0]
	*res = MapResult{Next: next}
	for _, c := range cls {
		next = c.jl.qMarginal(next)
	}
	integ := Hb*(e0/2+trap+eN/2) + Hb*Hb/12*(p[0]-entry(next, 0))
	m.finishBestd(res, next, mass, integ)
}
