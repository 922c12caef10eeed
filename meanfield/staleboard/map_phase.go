package staleboard

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// The phase evolution of a period: the map for servers whose state is
// more than their count — hyperexponential (H2) sizes under FCFS (the
// count and the phase of the job in service) or processor sharing (the
// numbers of small and giant jobs). The dispatchers act on counts, so the
// pass schedule is the exponential map's (L_v = k·F(v)/λ, F the count
// marginal of the board); what changes is how a server moves between
// refreshes, and the map's state, which becomes the joint law of (count,
// phase state) at a refresh.
//
// A server is a Markov chain whose service events are uniformised at rate
// μ = the fastest phase's rate: in the first τ of a pass of length L it
// sees a ~ Binomial(k, τ/L) arrivals and s ~ Poisson(μτ) potential service
// events, all orders equally likely (both sets of times are iid uniform on
// [0, τ) given their numbers), so its law obeys the two-term recursion
//
//	D(a, s) = a/(a+s)·Up D(a−1, s) + s/(a+s)·Down D(a, s−1)
//
// with Up an arrival (a new job is a giant with probability p) and Down a
// uniformised service event (the job in service, or under PS one of the
// jobs in proportion to its rate, completes with probability rate/μ).
// Positive weights only: nothing cancels. ∫₀^τ E[count] dt = Σ_{a,s}
// W(a, s)·mean D(a, s) with W(a, s) = ∫₀^τ Binom(a; k, t/L)·Pois(s; μt)
// dt. A class b receives nothing before t_b: it is a pure-death chain
// until then, uniformised the same way. Activated classes receive the same
// arrivals and are carried as one aggregate, as in the exponential map.
//
// Unlike the window evolution there is no cloud (above the floor a
// server's count still moves at a phase-dependent rate), so a period costs
// the passes times (k + 1)·(S + 1) applications of Up and Down to the
// aggregate: linear in its number of states (2 per count under FCFS,
// count + 1 under PS).

// phaseServer is the server chain of the phase evolution: its state
// layout (states grouped by count, level by level) and its operators.
type phaseServer struct {
	disc farm.Discipline
	h2   bool
	// p is the probability that a job is a giant; muS, muG the service
	// rates of small jobs and giants; mu the uniformisation rate
	// (max(muS, muG)); cS, cG = muS/mu, muG/mu.
	p, muS, muG, mu, cS, cG float64
	// psS, psG, psStay are, under PS, the probabilities that a
	// uniformised service event at state (q, j) completes a small job, a
	// giant, or nothing, by state index (grown on demand).
	psS, psG, psStay []float64
	zeros            []float64 // a row of zeros, for a missing operand
}

// psTables grows the PS completion tables to n states.
func (s *phaseServer) psTables(n int) {
	if len(s.psS) >= n {
		return
	}
	m := max(n, 2*len(s.psS))
	s.psS, s.psG, s.psStay = make([]float64, m), make([]float64, m), make([]float64, m)
	s.psStay[0] = 1
	for q := 1; s.offset(q) < m; q++ {
		o, inv := s.offset(q), 1/float64(q)
		for j := 0; j <= q && o+j < m; j++ {
			a, b := s.cS*float64(q-j)*inv, s.cG*float64(j)*inv
			s.psS[o+j], s.psG[o+j], s.psStay[o+j] = a, b, 1-a-b
		}
	}
}

// newPhaseServer is the server of sizes and discipline (exponential:
// one state per count, rate 1 — the exponential map by another path, for
// the tests).
func newPhaseServer(sz farm.Sizes, disc farm.Discipline) *phaseServer {
	s := &phaseServer{disc: disc, p: 0, muS: 1, muG: 1}
	if sz.Kind == farm.H2 {
		p, giant, small := farm.H2Params(sz.SCV)
		s.h2, s.p, s.muS, s.muG = true, p, 1/small, 1/giant
	}
	s.mu = math.Max(s.muS, s.muG)
	s.cS, s.cG = s.muS/s.mu, s.muG/s.mu
	return s
}

// offset is the index of the first state of count q.
func (s *phaseServer) offset(q int) int {
	switch {
	case !s.h2:
		return q
	case s.disc == farm.PS:
		return q * (q + 1) / 2
	case q == 0:
		return 0
	}
	return 2*q - 1
}

// level is the count of state index i.
func (s *phaseServer) level(i int) int {
	switch {
	case !s.h2:
		return i
	case s.disc == farm.PS:
		q := int((math.Sqrt(8*float64(i)+1) - 1) / 2)
		for s.offset(q+1) <= i {
			q++
		}
		for s.offset(q) > i {
			q--
		}
		return q
	}
	return (i + 1) / 2
}

// levels is the number of counts whose states fit in n entries (the
// count of the last state, plus one; 0 for n = 0).
func (s *phaseServer) levels(n int) int {
	if n == 0 {
		return 0
	}
	return s.level(n-1) + 1
}

// lift returns the state law of the count law c with fresh phases: under
// FCFS the job in service is a giant with probability p, under PS the
// number of giants among q jobs is Binomial(q, p) (a start whose jobs have
// just arrived).
func (s *phaseServer) lift(c []float64) []float64 {
	if !s.h2 {
		return append([]float64(nil), c...)
	}
	x := make([]float64, s.offset(len(c)))
	for q, w := range c {
		if w == 0 {
			continue
		}
		if q == 0 {
			x[0] += w
			continue
		}
		o := s.offset(q)
		if s.disc == farm.FCFS {
			x[o] += w * (1 - s.p)
			x[o+1] += w * s.p
			continue
		}
		for j := 0; j <= q; j++ {
			x[o+j] += w * binomPMFSafe(q, j, s.p)
		}
	}
	return x
}

// State returns the map state of the board p (a count law): p itself
// with exponential sizes; with H2 sizes the joint law of count and phases
// with the phases fresh — under FCFS the job in service a giant with
// probability p, under PS Binomial(q, p) giants among q jobs (as if every
// job had just arrived).
func (m *Map) State(p []float64) []float64 {
	if m.server == nil {
		return p
	}
	return m.server.lift(p)
}

// Counts returns the board (the count law) of the map state x: x itself
// with exponential sizes.
func (m *Map) Counts(x []float64) []float64 {
	if m.server == nil {
		return x
	}
	c, _ := m.server.counts(nil, x)
	return c
}

// binomPMFSafe is P(Binomial(n, ρ) = x) for 0 ≤ ρ ≤ 1.
func binomPMFSafe(n, x int, rho float64) float64 {
	switch {
	case rho <= 0:
		if x == 0 {
			return 1
		}
		return 0
	case rho >= 1:
		if x == n {
			return 1
		}
		return 0
	}
	return binomPMF(n, x, rho)
}

// counts writes the count marginal of the state law x into dst (grown,
// returned) and returns its mean.
func (s *phaseServer) counts(dst, x []float64) ([]float64, float64) {
	n := s.levels(len(x))
	dst = grow(dst, n)
	var mean float64
	for q := range n {
		lo, hi := s.offset(q), min(s.offset(q+1), len(x))
		var w float64
		for _, v := range x[lo:hi] {
			w += v
		}
		dst[q] = w
		mean += float64(q) * w
	}
	return dst, mean
}

// meanCount is the mean count of x (a sub-probability).
func (s *phaseServer) meanCount(x []float64) float64 {
	if !s.h2 {
		return Mean(x)
	}
	var mean float64
	n := s.levels(len(x))
	for q := 1; q < n; q++ {
		lo, hi := s.offset(q), min(s.offset(q+1), len(x))
		var w float64
		for _, v := range x[lo:hi] {
			w += v
		}
		mean += float64(q) * w
	}
	return mean
}

// latticePoint sets d, the server state at lattice point (a arrivals, s
// services) of a pass, from the start x (the origin), the point below it
// in s (prev[a]) and the one before it in a (cur[a−1]), weighted by the
// chance cs = s/(a+s) that the last step was a service; nl is the
// pass's lowest level. It adds c·d to acc (c = 0: nothing) and returns
// the mean count of d. Only the states of the nl + a counts of d are
// written (the rest of the buffer is never read).
func (sv *phaseServer) latticePoint(d, x []float64, prev, cur [][]float64, a, s, nl int, acc []float64, c float64) float64 {
	n := nl + a
	var down, up []float64
	cd, cu := 0.0, 1.0
	switch {
	case s == 0 && a == 0:
		m := sv.offset(n)
		copy(d[:m], x[:m])
		return sv.accumulate(d[:m], acc, c)
	case s == 0:
		up = cur[a-1]
	default:
		cd = float64(s) / float64(a+s)
		cu = 1 - cd
		down = prev[a]
		if a > 0 {
			up = cur[a-1]
		}
	}
	switch {
	case !sv.h2:
		return sv.pointExp(d, down, up, cd, cu, n, acc, c)
	case sv.disc == farm.FCFS:
		return sv.pointFCFS(d, down, up, cd, cu, n, acc, c)
	}
	return sv.pointPS(d, down, up, cd, cu, n, acc, c)
}

// accumulate adds c·d to acc (c = 0: nothing) and returns the mean count
// of d.
func (sv *phaseServer) accumulate(d, acc []float64, c float64) float64 {
	if c != 0 {
		acc = acc[:len(d)]
		for i, v := range d {
			acc[i] += c * v
		}
	}
	return sv.meanCount(d)
}

// pointExp is latticePoint with one state per count: d = cd·Down(down) +
// cu·Up(up) over the n counts (down over n counts or nil, up over n − 1
// or nil), c·d added to acc; it returns the mean count of d.
func (sv *phaseServer) pointExp(d, down, up []float64, cd, cu float64, n int, acc []float64, c float64) float64 {
	d, acc = d[:n], acc[:n]
	clear(d)
	if down != nil {
		down = down[:n]
		d[0] = cd * down[0]
		dd := d[:n-1]
		for i, v := range down[1:] {
			dd[i] += cd * v
		}
	}
	if up != nil {
		up = up[:n-1]
		dd := d[1:]
		for i, v := range up {
			dd[i] += cu * v
		}
	}
	var mean float64
	for i, v := range d {
		acc[i] += c * v
		mean += float64(i) * v
	}
	return mean
}

// pointFCFS is pointExp for FCFS with H2 sizes: state (0), then (q, small)
// and (q, giant) at 2q − 1 and 2q. Down: (q, φ) completes with
// probability c_φ, to 0 from q = 1, to (q − 1, fresh φ) above; Up: (0) →
// (1, fresh φ), (q, φ) → (q + 1, φ).
func (sv *phaseServer) pointFCFS(d, down, up []float64, cd, cu float64, n int, acc []float64, c float64) float64 {
	m := sv.offset(n)
	d, acc = d[:m], acc[:m]
	clear(d)
	p, cS, cG := sv.p, sv.cS, sv.cG
	if down != nil {
		down = down[:m]
		d[0] = cd * down[0]
		// done(q) is the chance mass completing at count q.
		prevDone := 0.0
		for q := n - 1; q >= 1; q-- {
			o := 2*q - 1
			xs, xg := down[o], down[o+1]
			d[o] = cd * ((1-cS)*xs + (1-p)*prevDone)
			d[o+1] = cd * ((1-cG)*xg + p*prevDone)
			prevDone = cS*xs + cG*xg
		}
		d[0] += cd * prevDone
	}
	if up != nil && n > 1 {
		up = up[:sv.offset(n-1)]
		d[1] += cu * up[0] * (1 - p)
		d[2] += cu * up[0] * p
		dd := d[3:]
		for i, v := range up[1:] {
			dd[i] += cu * v
		}
	}
	var mean float64
	for i, v := range d {
		acc[i] += c * v
		mean += float64((i+1)/2) * v
	}
	return mean
}

// pointPS is pointExp for PS with H2 sizes: state (q, j) (j giants among
// q jobs) at q(q + 1)/2 + j. Down: a small job completes with probability
// cS·(q − j)/q, a giant with cG·j/q (the tables psS, psG), nothing with
// the rest (psStay); Up: (q, j) → (q + 1, j) with 1 − p, (q + 1, j + 1)
// with p. Row by row in one pass: row q of d from rows q and q + 1 of
// down and row q − 1 of up.
func (sv *phaseServer) pointPS(d, down, up []float64, cd, cu float64, n int, acc []float64, c float64) float64 {
	no := sv.offset(n)
	sv.psTables(no + n + 1)
	// A missing operand reads as zeros (one row of them at most).
	if len(sv.zeros) < n+1 {
		sv.zeros = make([]float64, 2*n+2)
	}
	zero := func(v []float64, o, m int) []float64 {
		if v == nil {
			return sv.zeros[:m]
		}
		return v[o : o+m]
	}
	us, ug := cu*(1-sv.p), cu*sv.p
	var mean float64
	for q := range n {
		o := q * (q + 1) / 2
		row, ar := d[o:o+q+1], acc[o:o+q+1]
		x0, st := zero(down, o, q+1), sv.psStay[o:o+q+1]
		// Row q + 1 of down (zeros past the last count) and its
		// completion chances; row q − 1 of up.
		o1 := o + q + 1
		var x1 []float64
		if q+1 < n {
			x1 = zero(down, o1, q+2)
		} else {
			x1 = sv.zeros[:q+2]
		}
		a, b := sv.psS[o1:o1+q+2], sv.psG[o1:o1+q+2]
		var u []float64
		if q > 0 {
			u = zero(up, (q-1)*q/2, q)
		}
		// j = 0 and j = q apart; between them every term is present.
		v := cd * (st[0]*x0[0] + a[0]*x1[0] + b[1]*x1[1])
		if q > 0 {
			v += us * u[0]
		}
		row[0] = v
		ar[0] += c * v
		w := v
		if q > 0 {
			m := q - 1
			r, ra := row[1:q], ar[1:q]
			st1, x01, a1, x11 := st[1:q], x0[1:q], a[1:q], x1[1:q]
			b2, x12 := b[2:q+1], x1[2:q+1]
			u1, u0 := u[1:q], u[0:m]
			_, _, _, _, _, _, _, _ = st1[:m], x01[:m], a1[:m], x11[:m], b2[:m], x12[:m], u1[:m], u0[:m]
			for i := range r {
				v := cd*(st1[i]*x01[i]+a1[i]*x11[i]+b2[i]*x12[i]) + us*u1[i] + ug*u0[i]
				r[i] = v
				ra[i] += c * v
				w += v
			}
			v := cd*(st[q]*x0[q]+a[q]*x1[q]+b[q+1]*x1[q+1]) + ug*u[q-1]
			row[q] = v
			ar[q] += c * v
			w += v
		}
		mean += float64(q) * w
	}
	return mean
}

// addDown adds c times Down x to dst (both over counts 0..n−1): a
// uniformised service event.
func (s *phaseServer) addDown(dst, x []float64, c float64, n int) {
	if c == 0 {
		return
	}
	switch {
	case !s.h2:
		dst[0] += c * x[0]
		if n > 1 {
			d := dst[:n-1]
			for i, v := range x[1:n] {
				d[i] += c * v
			}
		}
	case s.disc == farm.FCFS:
		// (q, φ) completes with probability c_φ: to 0 from q = 1, to
		// (q − 1, fresh φ) above; otherwise it stays.
		dst[0] += c * x[0]
		cs, cg, p := s.cS, s.cG, s.p
		for q := 1; q < n; q++ {
			o := 2*q - 1
			xs, xg := x[o], x[o+1]
			dst[o] += c * (1 - cs) * xs
			dst[o+1] += c * (1 - cg) * xg
			done := c * (cs*xs + cg*xg)
			if q == 1 {
				dst[0] += done
			} else {
				dst[o-2] += done * (1 - p)
				dst[o-1] += done * p
			}
		}
	default:
		// (q, j): a small job completes with probability cS·(q − j)/q,
		// a giant with cG·j/q (the tables psS, psG), to (q − 1, j) and
		// (q − 1, j − 1): row q of dst below from row q's small
		// completions at j and giant completions at j + 1.
		no := s.offset(n)
		s.psTables(no)
		stay, pS, pG := s.psStay[:no], s.psS[:no], s.psG[:no]
		xs := x[:no]
		for i, v := range xs {
			dst[i] += c * stay[i] * v
		}
		for q := 0; q+1 < n; q++ {
			do, xo := s.offset(q), s.offset(q+1)
			d := dst[do : do+q+1]
			xa, xb := xs[xo:xo+q+1], xs[xo+1:xo+q+2]
			a, b := pS[xo:xo+q+1], pG[xo+1:xo+q+2]
			for j := range d {
				d[j] += c * (a[j]*xa[j] + b[j]*xb[j])
			}
		}
	}
}

// phaseSpace is the work space of the phase evolution, kept in the Map.
type phaseSpace struct {
	counts   []float64   // the count marginal of the board
	agg, out []float64   // the aggregate before and after a pass
	d0, d1   [][]float64 // D(a, s−1) and D(a, s) rows of the pass recursion
	cls, nxt []float64   // a class's death chain: its law and the next step's
	acc      []float64   // a class's law at its end time
	next     []float64   // the next state
	pois     []float64   // Poisson terms of a death chain
}

// deathHelper computes the death chains of an evaluation of the phase
// map in a goroutine of its own while the passes run (a class's chain
// depends only on the state law, never on the aggregate): its own Map of
// the same parameters, for its own work space and caches, its own copy of
// the server (the PS tables grow on demand), and the chains' laws, one
// buffer per class, in the order the passes take them. The arithmetic is
// that of the sequential evaluation, so the results are the same bits
// whatever GOMAXPROCS.
type deathHelper struct {
	src  *phaseServer // the server dm's copy was taken from
	dm   *Map
	laws [][]float64
	// integ and lost are each chain's integral and lost mass.
	integ, lost []float64
}

// deathJob is one chain of an evaluation: the classes from..to at time t.
type deathJob struct {
	from, to int
	t        float64
}

// helper returns m's death-chain helper, its parameters m's.
func (m *Map) helper() *deathHelper {
	h := m.death
	if h == nil {
		h = &deathHelper{}
		m.death = h
	}
	if h.src != m.server || h.dm == nil {
		sv := *m.server
		sv.psS, sv.psG, sv.psStay, sv.zeros = nil, nil, nil, nil
		h.src = m.server
		h.dm = newMap(m.K, m.Load, m.Period)
		h.dm.server = &sv
	}
	d := h.dm
	d.K, d.Load, d.Period = m.K, m.Load, m.Period
	d.TrimTol, d.PoissonTol, d.noIntegral = m.TrimTol, m.PoissonTol, m.noIntegral
	return h
}

// run computes the chains of jobs on x into h.laws, sending each index
// on done once its law is ready.
func (h *deathHelper) run(x []float64, jobs []deathJob, done chan<- int) {
	defer close(done)
	for len(h.laws) < len(jobs) {
		h.laws = append(h.laws, nil)
	}
	h.integ, h.lost = growKeep(h.integ[:0], len(jobs)), growKeep(h.lost[:0], len(jobs))
	for i, j := range jobs {
		law, integ, lost := h.dm.deathChain(x, j.from, j.to, j.t)
		h.laws[i] = append(h.laws[i][:0], law...)
		h.integ[i], h.lost[i] = integ, lost
		done <- i
	}
}

// applyPhase evaluates Φ_T on the state law x (checked, mass its total)
// by the phase evolution into res: res.Next is the next state law,
// res.Counts its count marginal (the board).
func (m *Map) applyPhase(x []float64, mass float64, res *MapResult) {
	sv, ps := m.server, &m.ps
	ps.counts, _ = sv.counts(ps.counts, x)
	board := ps.counts
	top := boardTop(board)
	s := m.scheduleInto(&m.ws.sched, board, top, mass)
	next, counts := res.Next[:0], res.Counts[:0]
	*res = MapResult{Next: next, Counts: counts, Pass: s.V, PassStart: s.t[s.V], PassEnd: s.t[s.V] + s.L[s.V]}
	T := m.Period
	// The death chains, in the order they are taken: one per activated
	// class, then one for the classes above V. The helper computes them
	// while the passes run.
	jobs := m.deathJobs[:0]
	for v := 0; v <= s.V; v++ {
		if v <= top && board[v] > 0 {
			jobs = append(jobs, deathJob{v, v, s.t[v]})
		}
	}
	if s.V < top {
		jobs = append(jobs, deathJob{s.V + 1, top, T})
	}
	m.deathJobs = jobs
	h := m.helper()
	done := make(chan int, len(jobs))
	go h.run(x, jobs, done)
	ready := 0 // chains received from the helper
	wait := func(i int) {
		for ready <= i {
			<-done
			ready++
		}
	}
	// Every exit below waits for the helper first.
	defer func() {
		for range done {
		}
	}()
	var integral float64
	agg := ps.agg[:0]
	ps.next = ps.next[:0]
	job := 0
	for v := 0; v <= s.V; v++ {
		t, L := s.t[v], s.L[v]
		if v <= top && board[v] > 0 {
			wait(job)
			law := h.laws[job]
			integral += h.integ[job]
			res.Lost += h.lost[job]
			job++
			agg = growKeep(agg, len(law))
			for i, w := range law {
				agg[i] += w
			}
		}
		tau := L
		if v == s.V {
			tau = T - t
		}
		if L <= 0 || tau <= 0 || len(agg) == 0 {
			continue
		}
		out, integ, lost := m.phasePass(agg, L, tau)
		integral += integ
		res.Lost += lost
		ps.out, agg = agg, out
		if v < s.V {
			res.Lost += m.trimLevels(&agg)
		}
	}
	// The classes above V die over the whole period: one chain for all.
	next = grow(ps.next, max(len(agg), sv.offset(top+1)))
	copy(next, agg)
	if s.V < top {
		wait(job)
		law := h.laws[job]
		integral += h.integ[job]
		res.Lost += h.lost[job]
		for i, w := range law {
			next[i] += w
		}
	}
	res.Lost += m.trimLevels(&next)
	ps.next, ps.agg = next, agg
	res.Next = append(res.Next, next...)
	res.Counts, res.BoardMean = sv.counts(res.Counts, res.Next)
	res.MeanQueue = integral / T
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
}

// trimLevels cuts the top counts of the state law *x whose mass is below
// TrimTol and returns their mass.
func (m *Map) trimLevels(x *[]float64) float64 {
	sv := m.server
	v := *x
	tol := m.trimTol()
	var cut float64
	for n := sv.levels(len(v)); n > 1; n-- {
		lo := sv.offset(n - 1)
		var w float64
		for _, u := range v[lo:] {
			w += u
		}
		if w >= tol {
			break
		}
		cut += w
		v = v[:lo]
	}
	*x = v
	return cut
}

// deathChain returns the law at time t (in the map's scratch) of the
// classes from..to of the state law x — the servers whose count at the
// refresh is in from..to, serving with no arrivals — and its time
// integral ∫₀^t E[count] and the mass lost to truncation. By
// uniformisation: Σ_s Pois(s; μt) Down^s y, over the counts that still
// hold mass (a count whose states hold less than deathDrop() in all is cut
// from the top, and counted as lost), stopped once no mass is left above
// count 0.
func (m *Map) deathChain(x []float64, from, to int, t float64) ([]float64, float64, float64) {
	sv, ps := m.server, &m.ps
	n := sv.offset(to + 1)
	y := grow(ps.cls, n)
	lo, hi := sv.offset(from), min(n, len(x))
	copy(y[lo:hi], x[lo:hi])
	acc := grow(ps.acc, n)
	var mass float64
	for _, w := range y {
		mass += w
	}
	if t <= 0 || to == 0 || mass == 0 {
		copy(acc, y)
		ps.cls, ps.acc = y, acc
		return acc, 0, 0
	}
	// Pois(s; μt) from the mode outward (no underflow for long t).
	plo, pmf, buf := m.poissonSpan(ps.pois, sv.mu*t, math.MaxInt, deathCut)
	ps.pois = buf
	phi := plo + len(pmf) - 1
	nx := grow(ps.nxt, n)
	var integral, cdf, lost float64
	levels := to + 1
	for step := 0; ; step++ {
		// The top counts that hold (almost) nothing leave the chain.
		for levels > 1 {
			o := sv.offset(levels - 1)
			var w float64
			for _, v := range y[o:sv.offset(levels)] {
				w += v
			}
			if w > m.deathDrop() {
				break
			}
			lost += w
			clear(y[o:sv.offset(levels)])
			levels--
		}
		ny := sv.offset(levels)
		var w float64
		if step >= plo && step <= phi {
			w = pmf[step-plo]
		}
		// One pass over y: w·y added to acc, its busy mass and mean count,
		// and the next step into nx (unused if the chain stops here).
		busy, meanY := sv.deathStep(nx, y, levels, acc, w)
		cdf += w
		// ∫₀^t Pois(s; μu) du = P(N(μt) ≥ s + 1)/μ.
		tail := math.Max(0, 1-cdf)
		if tail > 0 && busy > 0 {
			integral += tail / sv.mu * meanY
		}
		if step >= phi || busy <= m.deathDrop() {
			// The rest of the Poisson law finds the chain at y (empty, or
			// at the truncation: lost).
			rest := math.Max(0, 1-cdf)
			if busy <= m.deathDrop() {
				for i, v := range y[:ny] {
					acc[i] += rest * v
				}
			} else {
				lost += rest * mass
			}
			ps.cls, ps.nxt, ps.acc = y, nx, acc
			return acc, integral, lost
		}
		y, nx = nx, y
	}
}

// deathStep is one uniformised step of a death chain on the states of the
// counts 0..levels−1 of y: it adds w·y to acc (w = 0: nothing), sets nx
// to Down y, and returns the busy mass of y (above count 0) and its mean
// count. Under PS in one pass, row by row.
func (sv *phaseServer) deathStep(nx, y []float64, levels int, acc []float64, w float64) (busy, mean float64) {
	ny := sv.offset(levels)
	if !sv.h2 || sv.disc != farm.PS {
		if w > 0 {
			for i, v := range y[:ny] {
				acc[i] += w * v
			}
		}
		for _, v := range y[1:ny] {
			busy += v
		}
		mean = sv.meanCount(y[:ny])
		clear(nx[:ny])
		sv.addDown(nx, y, 1, levels)
		return busy, mean
	}
	sv.psTables(ny + levels + 1)
	for q := range levels {
		o, o1 := q*(q+1)/2, (q+1)*(q+2)/2
		x0, st, row, ar := y[o:o+q+1], sv.psStay[o:o+q+1], nx[o:o+q+1], acc[o:o+q+1]
		var rs float64
		if q+1 < levels {
			x1, a, b := y[o1:o1+q+2], sv.psS[o1:o1+q+2], sv.psG[o1+1:o1+q+2]
			x2 := x1[1:]
			_, _, _, _, _ = st[:len(x0)], row[:len(x0)], a[:len(x0)], b[:len(x0)], x2[:len(x0)]
			for j, v := range x0 {
				row[j] = st[j]*v + a[j]*x1[j] + b[j]*x2[j]
				rs += v
			}
		} else {
			_, _ = st[:len(x0)], row[:len(x0)]
			for j, v := range x0 {
				row[j] = st[j] * v
				rs += v
			}
		}
		if w > 0 {
			_ = ar[:len(x0)]
			for j, v := range x0 {
				ar[j] += w * v
			}
		}
		if q > 0 {
			busy += rs
			mean += float64(q) * rs
		}
	}
	return busy, mean
}

// deathDrop is the mass (of all servers) below which the top count of a
// death chain is cut, or its busy part taken as empty: TrimTol·1e-10, far
// below every truncation the map counts (1e-30 at the default TrimTol,
// 1e-20, as for the terms every evaluation drops).
func (m *Map) deathDrop() float64 { return m.trimTol() * 1e-10 }

// phasePass propagates the aggregate x through the first τ of a pass of
// length L (the recursion in the comment above) and returns the new
// aggregate (in the map's scratch), its time integral and the mass lost
// to the Poisson truncation.
func (m *Map) phasePass(x []float64, L, tau float64) ([]float64, float64, float64) {
	sv, ps, k := m.server, &m.ps, m.K
	mu := sv.mu
	// In uniformised time u = μt the pass has length μL and the service
	// events are a rate-1 Poisson process: the weights of the
	// exponential map's recursion (pass.go), W scaled back by 1/μ.
	pw := m.weights(mu*L, mu*tau)
	S := len(pw.pois) - 1
	nl := sv.levels(len(x))
	n := sv.offset(nl + k)
	if len(ps.d0) != k+1 {
		ps.d0, ps.d1 = make([][]float64, k+1), make([][]float64, k+1)
	}
	for a := range ps.d0 {
		ps.d0[a] = grow(ps.d0[a], n)
		ps.d1[a] = grow(ps.d1[a], n)
	}
	out := grow(ps.out, n)
	var mass float64
	for _, v := range x {
		mass += v
	}
	var integral float64
	prev, cur := ps.d0, ps.d1
	for s := 0; s <= S; s++ {
		for a := 0; a <= k; a++ {
			c := math.Max(0, pw.pois[s]*pw.binom[a])
			mean := sv.latticePoint(cur[a], x, prev, cur, a, s, nl, out, c)
			if pw.w != nil {
				if wt := pw.w[a][s]; wt > 0 {
					integral += wt / mu * mean
				}
			}
		}
		prev, cur = cur, prev
	}
	return out, integral, pw.lost * mass
}
