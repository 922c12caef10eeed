package bestofd

import "math"

// evolveLevels runs the uniformised steps of evolve for the chains other
// than PS with H2 sizes (at most two states per level), from the
// transition table, for the mass in ev.v on levels lo…hi. The states that
// can hold mass are a range [a, z) of state indices: the levels reached
// from the previous step's range, less the states at either end holding
// under trimMass. It returns the integrals of the count, and of the
// arrivals lost to the top level and as giants, over the period (times
// Λ).
func (ev *evolver) evolveLevels(dst []float64, lo, hi, k0 int, r, lam float64) (area, topArea, giantArea float64) {
	pm := ev.pm
	M, lvOf := pm.ch.M, pm.ch.lvl
	wts, tl := ev.wts, ev.tl
	kmax := k0 + len(wts) - 1
	il, ra := 1/lam, r/lam
	v, w, tr, lostG, lvl := ev.v, ev.w, pm.tr, pm.lostG, pm.lvl
	a, z := trimRange(v, 0, pm.lvStart[lo], pm.lvStart[hi+1])
	var updates int64
	for k := 0; ; k++ {
		var pk, wk float64 = 1, 0
		if k >= k0 {
			pk, wk = tl[k-k0], wts[k-k0]
		}
		if k == kmax {
			for s := a; s < z; s++ {
				dst[s] += wk * v[s]
				v[s] = 0
			}
			break
		}
		var top float64
		for s := max(a, pm.lvStart[M]); s < z; s++ {
			top += v[s]
		}
		updates += int64(z - a)
		// v ← v·(I + G/Λ) into w (zero on entry), leaving v zero.
		var c, lg float64
		for s := a; s < z; s++ {
			vs := v[s]
			v[s] = 0
			c += lvl[s] * vs
			lg += lostG[s] * vs
			dst[s] += wk * vs
			t := &tr[s]
			va, vl := vs*ra, vs*il
			w[t.a[0]] += va * t.pa[0]
			w[t.a[1]] += va * t.pa[1]
			w[t.sv[0]] += vl * t.rs[0]
			w[t.sv[1]] += vl * t.rs[1]
			w[s] += vs - va*t.arr - vl*t.out
		}
		area += c * pk * il
		topArea += r * top * pk * il
		giantArea += r * lg * pk * il
		v, w = w, v
		if a < z {
			a, z = pm.lvStart[max(lvOf[a]-1, 0)], pm.lvStart[min(lvOf[z-1]+1, M)+1]
			a, z = trimRange(v, 0, a, z)
		}
	}
	ev.updates += updates
	return area, topArea, giantArea
}

// evolvePS runs the uniformised steps of evolve for a PS chain with H2
// sizes. On each level the states that can hold mass are a range of giant
// counts [from, to): those reached from the previous step's ranges, less
// the states at either end holding under trimMass. The transitions are
// written out: state (i, j) of level n = i + j (position j) moves to
// (i+1, j) and, if j < J, to (i, j+1) on an arrival (a giant arriving to
// J giants is lost), and to (i−1, j) at rate μ_s·i/n and to (i, j−1) at
// rate μ_g·j/n. The mass starts in ev.v on levels lo…hi.
func (ev *evolver) evolvePS(dst []float64, lo, hi, k0 int, r, lam float64) (area, topArea, giantArea float64) {
	pm := ev.pm
	ps, M := pm.ch.ps, pm.ch.M
	wts, tl := ev.wts, ev.tl
	kmax := k0 + len(wts) - 1
	il, ra := 1/lam, r/lam
	st := psStep{pS: ps.ph[0] * ra, pG: ps.ph[1] * ra} // moves per unit mass: small, giant arrival
	v, w := ev.v, ev.w
	from, to, nfrom, nto := ev.from, ev.to, ev.nfrom, ev.nto
	for n := lo; n <= hi; n++ {
		from[n], to[n] = 0, pm.size[n]
	}
	lo, hi = trimLevelsPS(v, pm.lvStart, from, to, lo, hi)
	// The service moves per unit mass and job on each level, once per
	// class rather than at every step (two divisions per level and step
	// were a tenth of the time).
	for n := 1; n <= M; n++ {
		ev.svcS[n], ev.svcG[n] = ps.mu[0]*il/float64(n), ps.mu[1]*il/float64(n)
	}
	var updates int64
	for k := 0; ; k++ {
		var pk float64 = 1
		st.wk = 0
		if k >= k0 {
			pk, st.wk = tl[k-k0], wts[k-k0]
		}
		if k == kmax {
			ev.flushPS(dst, v, from, to, lo, hi, st.wk)
			break
		}
		// v ← v·(I + G/Λ) into w (zero on entry), leaving v zero.
		var c, lg, top float64
		for n := lo; n <= hi; n++ {
			f, e := from[n], to[n]
			if f >= e {
				continue
			}
			updates += int64(e - f)
			if n > 0 && n < M {
				// An inner level (nearly all the work): the loop below
				// with its tests on n and j taken out and its targets
				// sliced to one length, so that the compiler drops the
				// bounds checks.
				m, g := stepInnerLevelPS(ps, v, w, dst, pm.lvStart[n-1:n+2], f, e, n, st.wk, st.pS, st.pG, ev.svcS[n], ev.svcG[n])
				c += float64(n) * m
				lg += g
				continue
			}
			var mass float64
			mass, lg = ev.stepEdgeLevelPS(v, w, dst, n, f, e, st, lg)
			c += float64(n) * mass
			if n == M {
				top = mass
			}
		}
		area += c * pk * il
		topArea += r * top * pk * il
		giantArea += r * lg * pk * il
		nlo, nhi := ev.nextRangesPS(from, to, nfrom, nto, lo, hi)
		v, w = w, v
		from, nfrom = nfrom, from
		to, nto = nto, to
		lo, hi = trimLevelsPS(v, pm.lvStart, from, to, nlo, nhi)
	}
	ev.updates += updates
	return area, topArea, giantArea
}

// psStep holds the per-step constants of evolvePS: the Poisson weight of
// the step and the arrival moves per unit mass.
type psStep struct {
	wk, pS, pG float64
}

// flushPS adds the last step's weight wk times v to dst on the ranges of
// levels lo…hi, leaving v zero.
func (ev *evolver) flushPS(dst, v []float64, from, to []int, lo, hi int, wk float64) {
	pm := ev.pm
	for n := lo; n <= hi; n++ {
		st := pm.lvStart[n]
		for s := st + from[n]; s < st+to[n]; s++ {
			dst[s] += wk * v[s]
			v[s] = 0
		}
	}
}

// stepEdgeLevelPS is evolvePS's step for the positions [f, e) of level 0
// or M (the general loop, with the tests on the level kept): it moves v's
// mass on the level into w, adds the step's weight of it to dst, and
// returns the mass on the level and lg plus the giant arrivals lost (per
// unit Λ).
func (ev *evolver) stepEdgeLevelPS(v, w, dst []float64, n, f, e int, st psStep, lg float64) (mass, lgOut float64) {
	pm := ev.pm
	ps, M := pm.ch.ps, pm.ch.M
	J := ps.J
	s0 := pm.lvStart[n]
	vn, wn := v[s0:s0+pm.size[n]], w[s0:s0+pm.size[n]]
	dn := dst[s0 : s0+pm.size[n]]
	var wu, wd []float64    // w on levels n+1 and n−1
	var sS, sG float64      // service moves per unit mass and job
	keep, keepJ := 1.0, 1.0 // 1 − arrival moves per unit mass (j < J, j = J)
	if n > 0 {
		wd = w[pm.lvStart[n-1]:pm.lvStart[n]]
		sS, sG = ev.svcS[n], ev.svcG[n]
	}
	if n < M {
		wu = w[pm.lvStart[n+1]:pm.lvStart[n+2]]
		keep, keepJ = 1-st.pS-st.pG, 1-st.pS
	}
	// Position j+1 of level n+1 receives giant arrivals from j and small
	// ones from j+1; position j of level n−1 small services from j and
	// giant ones from j+1: the first of each pair is carried to the next
	// position (cu, cd), so that each target is written once.
	var cu, cd float64
	fi, fj := float64(n-f), float64(f) // small and giant jobs at (n, j)
	for j := f; j < e; j++ {
		x := vn[j]
		vn[j] = 0
		mass += x
		if st.wk != 0 {
			dn[j] += st.wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		var stay float64
		if wu != nil {
			wu[j] += x*st.pS + cu
			if j < J {
				cu = x * st.pG
				stay = x*keep - xs - xg
			} else {
				cu = 0
				lg += x * ps.ph[1]
				stay = x*keepJ - xs - xg
			}
		} else {
			stay = x - xs - xg
		}
		if j > 0 {
			wd[j-1] += xg + cd
		}
		cd = xs
		wn[j] += stay
		fi--
		fj++
	}
	if cu != 0 {
		wu[e] += cu
	}
	if cd != 0 {
		wd[e-1] += cd
	}
	return mass, lg
}

// nextRangesPS writes into nfrom, nto the positions each level can hold
// after a step from the ranges from, to of levels lo…hi — the hull of the
// positions reached — and returns the levels that can hold mass.
func (ev *evolver) nextRangesPS(from, to, nfrom, nto []int, lo, hi int) (nlo, nhi int) {
	pm := ev.pm
	nlo, nhi = max(lo-1, 0), min(hi+1, pm.ch.M)
	for n := nlo; n <= nhi; n++ {
		f, e := math.MaxInt, math.MinInt
		if n-1 >= lo && from[n-1] < to[n-1] {
			f, e = from[n-1], to[n-1]+1 // small and giant arrivals
		}
		if n >= lo && n <= hi && from[n] < to[n] {
			f, e = min(f, from[n]), max(e, to[n])
		}
		if n+1 <= hi && from[n+1] < to[n+1] {
			f, e = min(f, from[n+1]-1), max(e, to[n+1]) // giant and small services
		}
		nfrom[n], nto[n] = max(f, 0), min(e, pm.size[n])
		if nfrom[n] >= nto[n] {
			nfrom[n], nto[n] = 0, 0
		}
	}
	return nlo, nhi
}

// trimLevelsPS trims the range of every level lo…hi of v (see trimRange)
// and returns the levels left with a non-empty range at either end.
func trimLevelsPS(v []float64, lvStart, from, to []int, lo, hi int) (int, int) {
	for n := lo; n <= hi; n++ {
		from[n], to[n] = trimRange(v, lvStart[n], from[n], to[n])
	}
	for lo < hi && from[lo] >= to[lo] {
		lo++
	}
	for hi > lo && from[hi] >= to[hi] {
		hi--
	}
	return lo, hi
}

// stepInnerLevelPS is evolvePS's step for the positions [f, e) of an
// inner level n (0 < n < M) whose states, and those of levels n ± 1,
// start at st[1] and st[2], st[0]: the same operations in the same order
// as the general loop, so the same numbers. It returns the mass on the
// level and the giant arrivals lost (per unit Λ).
func stepInnerLevelPS(ps *psChain, v, w, dst []float64, st []int, f, e, n int, wk, pS, pG, sS, sG float64) (mass, lg float64) {
	J := ps.J
	stD, st0, stU := st[0], st[1], st[2]
	keep, keepJ := 1-pS-pG, 1-pS
	var cu, cd float64
	fi, fj := float64(n-f), float64(f) // small and giant jobs at (n, j)
	j := f
	if j == 0 { // no giant to serve, no state below to receive one
		x := v[st0]
		v[st0] = 0
		mass += x
		if wk != 0 {
			dst[st0] += wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		var stay float64
		w[stU] += x*pS + cu
		if J > 0 {
			cu = x * pG
			stay = x*keep - xs - xg
		} else {
			lg += x * ps.ph[1]
			stay = x*keepJ - xs - xg
		}
		cd = xs
		w[st0] += stay
		fi--
		fj++
		j++
	}
	if eJ := min(e, J); j < eJ { // 0 < j < J
		vs := v[st0+j : st0+eJ]
		ws := w[st0+j : st0+eJ][:len(vs)]
		ds := dst[st0+j : st0+eJ][:len(vs)]
		us := w[stU+j : stU+eJ][:len(vs)]
		dd := w[stD+j-1 : stD+eJ-1][:len(vs)]
		for i, x := range vs {
			vs[i] = 0
			mass += x
			if wk != 0 {
				ds[i] += wk * x
			}
			xs, xg := x*sS*fi, x*sG*fj
			us[i] += x*pS + cu
			cu = x * pG
			stay := x*keep - xs - xg
			dd[i] += xg + cd
			cd = xs
			ws[i] += stay
			fi--
			fj++
		}
		j = eJ
	}
	if j < e { // j = J ≥ 1: a giant arriving is lost
		x := v[st0+j]
		v[st0+j] = 0
		mass += x
		if wk != 0 {
			dst[st0+j] += wk * x
		}
		xs, xg := x*sS*fi, x*sG*fj
		w[stU+j] += x*pS + cu
		cu = 0
		lg += x * ps.ph[1]
		stay := x*keepJ - xs - xg
		w[stD+j-1] += xg + cd
		cd = xs
		w[st0+j] += stay
	}
	if cu != 0 {
		w[stU+e] += cu
	}
	if cd != 0 {
		w[stD+e-1] += cd
	}
	return mass, lg
}

// trimRange drops the states below trimMass at both ends of the positions
// [f, e) of the level starting at st, and returns the range left.
func trimRange(v []float64, st, f, e int) (int, int) {
	for f < e && v[st+f] < trimMass {
		v[st+f] = 0
		f++
	}
	for e > f && v[st+e-1] < trimMass {
		v[st+e-1] = 0
		e--
	}
	return f, e
}
