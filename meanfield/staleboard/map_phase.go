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

// addUp adds c times Up x to dst (x over counts 0..n−1, dst over 0..n at
// least): an arrival.
// latticePoint fills d, the server state at lattice point (a arrivals, s
// services) of a pass, from the start x (the origin), the point below it
// in s (prev[a]) and the one before it in a (cur[a−1]), weighted by the
// chance cs = s/(a+s) that the last step was a service; nl is the
// pass's lowest level.
func (sv *phaseServer) latticePoint(d, x []float64, prev, cur [][]float64, a, s, nl int) {
	clear(d)
	switch {
	case s == 0 && a == 0:
		copy(d, x)
	case s == 0:
		sv.addUp(d, cur[a-1], 1, nl+a-1)
	default:
		cs := float64(s) / float64(a+s)
		sv.addDown(d, prev[a], cs, nl+a)
		if a > 0 {
			sv.addUp(d, cur[a-1], 1-cs, nl+a-1)
		}
	}
}

func (s *phaseServer) addUp(dst, x []float64, c float64, n int) {
	if c == 0 {
		return
	}
	switch {
	case !s.h2:
		d := dst[1 : n+1]
		for i, v := range x[:n] {
			d[i] += c * v
		}
	case s.disc == farm.FCFS:
		// (0) → (1, φ) with φ fresh; (q, φ) → (q + 1, φ).
		dst[1] += c * x[0] * (1 - s.p)
		dst[2] += c * x[0] * s.p
		if n > 1 {
			d := dst[3 : 2*n+1]
			for i, v := range x[1 : 2*n-1] {
				d[i] += c * v
			}
		}
	default:
		// (q, j) → (q + 1, j) with 1 − p, (q + 1, j + 1) with p.
		cs, cg := c*(1-s.p), c*s.p
		for q := range n {
			xo, do := s.offset(q), s.offset(q+1)
			xs := x[xo : xo+q+1]
			d := dst[do : do+q+2]
			for j, v := range xs {
				d[j] += cs * v
				d[j+1] += cg * v
			}
		}
	}
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
	var integral float64
	agg := ps.agg[:0]
	ps.next = ps.next[:0]
	for v := 0; v <= s.V; v++ {
		t, L := s.t[v], s.L[v]
		if v <= top && board[v] > 0 {
			law, integ, lost := m.deathChain(x, v, v, t)
			integral += integ
			res.Lost += lost
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
		law, integ, lost := m.deathChain(x, s.V+1, top, T)
		integral += integ
		res.Lost += lost
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
// hold mass (a count whose states hold less than deathDrop in all is cut
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
			if w > deathDrop {
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
		if w > 0 {
			for i, v := range y[:ny] {
				acc[i] += w * v
			}
		}
		cdf += w
		// ∫₀^t Pois(s; μu) du = P(N(μt) ≥ s + 1)/μ.
		tail := math.Max(0, 1-cdf)
		var busy float64
		for _, v := range y[1:ny] {
			busy += v
		}
		if tail > 0 && busy > 0 {
			integral += tail / sv.mu * sv.meanCount(y[:ny])
		}
		if step >= phi || busy <= deathDrop {
			// The rest of the Poisson law finds the chain at y (empty, or
			// at the truncation: lost).
			rest := math.Max(0, 1-cdf)
			if busy <= deathDrop {
				for i, v := range y[:ny] {
					acc[i] += rest * v
				}
			} else {
				lost += rest * mass
			}
			ps.cls, ps.nxt, ps.acc = y, nx, acc
			return acc, integral, lost
		}
		clear(nx[:ny])
		sv.addDown(nx, y, 1, levels)
		y, nx = nx, y
	}
}

// deathDrop is the mass (of all servers) below which the top count of a
// death chain is cut, or its busy part taken as empty: far below every
// truncation the map counts (TrimTol is 1e-20).
const deathDrop = 1e-30

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
			d := cur[a]
			sv.latticePoint(d, x, prev, cur, a, s, nl)
			if pw.w != nil {
				if wt := pw.w[a][s]; wt > 0 {
					integral += wt / mu * sv.meanCount(d[:sv.offset(nl+a)])
				}
			}
			if c := pw.pois[s] * pw.binom[a]; c > 0 {
				for i, v := range d[:sv.offset(nl+a)] {
					out[i] += c * v
				}
			}
		}
		prev, cur = cur, prev
	}
	return out, integral, pw.lost * mass
}
