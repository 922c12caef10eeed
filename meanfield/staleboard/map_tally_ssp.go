package staleboard

import "math"

// The SSP evolution of the projected superposition's joint laws (see
// map_tally_proj.go for the model and the RK4 evolution, kept as the
// tests' reference). RK4's step is bounded by stability, dt·(λ_max + 1) ≤
// 1.2, four stages of five streams each: about nine passes over the cells
// a unit of time. Ketcheson's ten-stage, fourth-order strong-stability-
// preserving Runge–Kutta method SSPRK(10,4) is a chain of forward Euler
// steps of length h/6 and three linear combinations; a forward Euler step
// of the forward equation is a stochastic matrix (non-negative, mass
// preserving) while (h/6)·(λ_max + 1) ≤ 1, so the method keeps the laws
// non-negative and contracts in ‖·‖₁ for h ≤ 6/(λ_max + 1): five times
// RK4's step for 2.5 times its stages. Each Euler step is done in place,
// one pass reading a cell, its successor in the row and the row below's
// (rows from the top down, counts upwards: every value read is still the
// old one), so a unit of time costs about five light passes.
//
// The rates are interpolated between the superposed rates at the step's
// ends and midpoint (quadratic in time, third order), each Euler stage at
// its own abscissa; the time step's error is then that of the rates'
// interpolation and of the method, both far below RK4's (whose rates are
// frozen at the step's midpoint, second order: see TestTallyProjSSP).
//
// The mean count's time integral is the trapezoid over the step ends with
// the Euler–Maclaurin end correction h²/12·(f′(0) − f′(T)), f(t) = E[q(t)]
// summed over the classes: f′ = λ − (mass − P(q = 0)) exactly (the farm's
// arrival rate is λ whatever the board, its service rate the busy mass),
// so the correction is h²/12·(P0(0) − P0(T)) and the rule is of fourth
// order; the mean count is read once a step instead of at each stage.

// sspHalf is the number of Euler steps of each half of SSPRK(10,4)
// (either side of its combination).
const sspHalf = 5

// sspStages is the number of forward Euler steps of SSPRK(10,4), and the
// most rows or counts one of its steps moves mass by (the laws' margin).
const sspStages = 10

// sspRateMargin is the factor on the largest rate, d·λ/mass (best of d
// sends a dispatcher's jobs to a level at most d times its share), by
// which the step is kept inside the SSP bound: the interpolated rates may
// overshoot their nodes a little.
const sspRateMargin = 1.1

// sspTheta is the abscissa (in units of the step) of each Euler stage's
// rates: 0, 1/6, …, 4/6; after the combination the chain restarts at
// 9/25·5/6·15 − 5·5/6 = 1/3; then 1/3, …, 5/6 and the final stage at 1.
var sspTheta = [sspStages]float64{0, 1.0 / 6, 2.0 / 6, 3.0 / 6, 4.0 / 6, 2.0 / 6, 3.0 / 6, 4.0 / 6, 5.0 / 6, 1}

// sspCellCost, sspRowCost and sspTallyCost are the work, in PeriodCost's
// units, of one cell and of one row of a joint law in one SSPRK(10,4) step
// (its ten Euler passes, the combinations, the fits and the rates'
// superposition) and of one level of a tally law, or of the perceived law,
// in one tally step: with them the count is 1.00–1.23 times the measured
// CPU time of one period from the balanced board and from the herd (the
// half-loaded start B = 0.1·T after a period) at T = 400 and 2,000 (0.9
// at T = 100; TestTallyProjSSPMeasure, which prints the three counts; the
// CPU times on a shared machine vary by 10–50%, and a least-squares fit
// is no closer). A period under 0.1 s is mostly set-up, which the count
// leaves out.
const (
	sspCellCost  = 1.8
	sspRowCost   = 30.0
	sspTallyCost = 9.0
)

// sspRates is a class's rates at a step's start, midpoint and end (rows
// from its law's alo).
type sspRates struct {
	l0, lm, l1 []float64
	// m is the law's row masses (rows from malo), stepped with it.
	m    []float64
	malo int
	ro   int // the law's first row less the rates' first, within a step
	// The last superposition (fillRates' arguments).
	base     int
	num, den []float64
	fb       float64
}

// rowMasses sets r.m to the law's row masses.
func (r *sspRates) rowMasses(j *jointLaw) {
	r.m = growTo(&r.m, j.rows())
	for i := range r.m {
		var s float64
		for _, v := range j.f[j.off[i] : j.off[i]+j.n[i]] {
			s += v
		}
		r.m[i] = s
	}
	r.malo = j.alo
}

// shift re-indexes r.m, rows from alo, to the law's rows after fit (which
// drops empty rows at the bottom and adds empty ones at the top; the cells
// it cuts are below projTiny).
func (r *sspRates) shift(alo int, j *jointLaw) {
	r.m = shiftRows(&r.m, r.m, j.alo-alo, j.rows())
	r.malo = j.alo
}

// at sets buf to the rates at abscissa θ of the step on n rows from the
// step's first + ro (the rates' own rows: rows beyond them take the
// nearest one's, as fillRates does).
func (r *sspRates) at(theta float64, n int, buf *[]float64) []float64 {
	a := (1 - theta) * (1 - 2*theta)
	b := 4 * theta * (1 - theta)
	c := theta * (2*theta - 1)
	l := growTo(buf, n)
	last := len(r.l0) - 1
	for i := range l {
		k := min(max(i+r.ro, 0), last)
		l[i] = math.Max(0, a*r.l0[k]+b*r.lm[k]+c*r.l1[k])
	}
	return l
}

// sspStep advances the joint law by one SSPRK(10,4) step of length h at
// the rates r (interpolated in time), with q2 its work space, and returns
// the step's ∫ E[q] and the mean count at its end. The mean count E and
// its integral I are stepped with the law, as two more components of the
// same linear system: dI/dt = E, dE/dt = Σ_a λ(a)·m_a − (w − P0), m_a
// the law's row masses (stepped too: the arrivals' marginal, dm_a/dt =
// λ(a−1)·m_{a−1} − λ(a)·m_a, which services leave alone; r.m at the
// step's start, rows from j.alo), w = Σ m_a and P0 the mass at q = 0,
// read by each sweep from its input; so the integral is of the method's
// order. The copy of the law into q2 and the two combinations are done by
// the sweeps next to them, cell by cell as each is set.
func (ps *projSpace) sspStep(j *jointLaw, r *sspRates, h float64, e0 float64) (integ, e1 float64) {
	eta := h / 6
	q2 := growTo(&ps.k1, len(j.f))
	na := j.rows()
	m1 := r.m
	m2 := growTo(&ps.k3, na)
	copy(m2, m1)
	r.ro = 0
	E1, I1 := e0, 0.0
	E2, I2 := E1, I1
	var ls [sspHalf][]float64
	var modes [sspHalf]int
	var p0 [sspHalf]float64
	for half := range 2 {
		// The half's five sweeps' rates, row masses' arrival rates and
		// masses (the masses' own steps need nothing of the law).
		var in, w [sspHalf]float64
		for s := range sspHalf {
			l := r.at(sspTheta[half*sspHalf+s], na, &ps.sl[s])
			ls[s] = l
			for i, v := range m1 {
				in[s] += l[i] * v
				w[s] += v
			}
			for i := na - 1; i > 0; i-- {
				m1[i] += eta * (l[i-1]*m1[i-1] - l[i]*m1[i])
			}
			m1[0] -= eta * l[0] * m1[0]
			modes[s] = sweepPlain
		}
		if half == 0 {
			modes[0], modes[sspHalf-1] = sweepSave, sweepCombine
		} else {
			modes[sspHalf-1] = sweepFinal
		}
		p0 = j.sweeps(ls, modes, eta, q2)
		for s := range sspHalf {
			I1 += eta * E1
			E1 += eta * (in[s] - w[s] + p0[s])
		}
		if half == 1 {
			break
		}
		for i, v := range m1 {
			w := m2[i]/25 + 9*v/25
			m2[i] = w
			m1[i] = 15*w - 5*v
		}
		E2, I2 = E2/25+9*E1/25, I2/25+9*I1/25
		E1, I1 = 15*E2-5*E1, 15*I2-5*I1
		// Half way: the laws (q1 and q2) are re-fitted for the five
		// sweeps left, so that the margins are of five rows and counts,
		// not ten; the row masses and rates follow the rows.
		alo := j.alo
		q2 = j.fitWith(q2)
		if d := j.alo - alo; d != 0 || j.rows() != na {
			na = j.rows()
			m1 = shiftRows(&r.m, m1, d, na)
			m2 = shiftRows(&ps.k3, m2, d, na)
			r.ro += d
		}
	}
	// u = q2 + 3/5·q1 + h/10·F(q1) = q2 + 3/5·(q1 + h/6·F(q1)): the last
	// sweep is the tenth Euler step, and set the law to this.
	for i, v := range m1 {
		m1[i] = m2[i] + 0.6*v
	}
	r.m = m1
	r.malo = j.alo
	return I2 + 0.6*I1, E2 + 0.6*E1
}

// sweeps runs five Euler sweeps (rates ls, duties modes) as a wavefront
// down the rows: sweep s on row i needs sweep s − 1 done on rows i and i −
// 1 and sweep s not yet on row i − 1, so at each row t from the top it
// does sweep s on row t + s, s = 0 … 4; the rows in play stay in cache,
// where five whole passes would each stream the law from memory. It
// returns each sweep's input mass at q = 0.
func (j *jointLaw) sweeps(ls [sspHalf][]float64, modes [sspHalf]int, eta float64, q2 []float64) (p0 [sspHalf]float64) {
	na := j.rows()
	for t := na - 1; t > -sspHalf; t-- {
		for s := range sspHalf {
			if i := t + s; i >= 0 && i < na {
				p0[s] += j.sweepRow(i, ls[s], eta, q2, modes[s])
			}
		}
	}
	return p0
}

// shiftRows returns x (rows from some alo) re-indexed to n rows from alo
// + d, new rows 0, in buf, which is x's own array (from its start) or
// apart from it: in place, each x[i + d] is read before it is overwritten
// (upwards when d ≥ 0, downwards otherwise).
func shiftRows(buf *[]float64, x []float64, d, n int) []float64 {
	out := growTo(buf, n)
	if d >= 0 {
		for i := range out {
			out[i] = at(x, i+d)
		}
	} else {
		for i := n - 1; i >= 0; i-- {
			out[i] = at(x, i+d)
		}
	}
	return out
}

// The sweeps' duties beside the Euler step, for each cell x as it is set
// (q its place in q2, x0 its value before): sweepSave keeps q = x0 (the
// step's start, the first sweep); sweepCombine sets q = q/25 + 9x/25 and
// x = 15q − 5x (after the fifth); sweepFinal sets x = q + 3x/5 (the
// tenth).
const (
	sweepPlain = iota
	sweepSave
	sweepCombine
	sweepFinal
)

// sweepRow replaces row i of the law f by its part of f + eta·D(f), D
// the forward equation's right side at row rates lam, in place, with
// mode's duty for each cell (q2 laid out as f), and returns the row's
// mass at q = 0 before it. It reads row i − 1, which must not have been
// swept yet (a sweep goes from the top row down), and cell c + 1 before
// setting cell c. Inflow from outside the window is dropped, below
// projTiny by fit's margins.
func (j *jointLaw) sweepRow(i int, lam []float64, eta float64, q2 []float64, mode int) (p0 float64) {
	{
		o, n, lo := j.off[i], j.n[i], j.lo[i]
		if n == 0 {
			return 0
		}
		r := j.f[o : o+n]
		q := q2[o : o+n]
		// The arrival inflow from row i − 1 (not swept yet: old values).
		pr, lp, c0, c1, sh := j.inflow(i, j.f, lam)
		in := func(c int) float64 {
			if c >= c0 && c < c1 {
				return lp * pr[c+sh]
			}
			return 0
		}
		// set sets cell c to the Euler value x from its old value x0,
		// with the mode's duty.
		set := func(c int, x0, x float64) {
			switch mode {
			case sweepSave:
				q[c] = x0
			case sweepCombine:
				w := q[c]/25 + 9*x/25
				q[c] = w
				x = 15*w - 5*x
			case sweepFinal:
				x = q[c] + 0.6*x
			}
			r[c] = x
		}
		l1 := lam[i] + 1
		first := 0
		if lo == 0 {
			// q = 0: no service out.
			v := r[0]
			p0 += v
			d := in(0) - lam[i]*v
			if n > 1 {
				d += r[1]
			}
			set(0, v, v+eta*d)
			first = 1
		}
		if first >= n {
			return p0
		}
		e := n - 1
		a0, a1 := min(max(c0, first), e), min(max(c1, first), e)
		alpha := 1 - eta*l1
		sweepRun(r[first:a0+1], nil, q[first:a0+1], mode, alpha, eta, 0)
		if a0 < a1 {
			sweepRun(r[a0:a1+1], pr[a0+sh:a1+sh], q[a0:a1+1], mode, alpha, eta, eta*lp)
		}
		sweepRun(r[a1:e+1], nil, q[a1:e+1], mode, alpha, eta, 0)
		// The last cell: no service inflow.
		v := r[e]
		set(e, v, alpha*v+eta*in(e))
	}
	return p0
}

// sweepRun sets x[c] = alpha·x[c] + eta·x[c+1] + gamma·pin[c] for c <
// len(x) − 1 in order (pin nil: no arrival inflow), each x[c+1] read
// before it is set, with mode's duty on q (eulerSweep).
func sweepRun(x, pin, q []float64, mode int, alpha, eta, gamma float64) {
	m := len(x) - 1
	if m <= 0 {
		return
	}
	nx := x[1 : m+1]
	x = x[:m]
	q = q[:m]
	if pin == nil {
		switch mode {
		case sweepPlain:
			for c, v := range x {
				x[c] = alpha*v + eta*nx[c]
			}
		case sweepSave:
			for c, v := range x {
				q[c] = v
				x[c] = alpha*v + eta*nx[c]
			}
		case sweepCombine:
			for c, v := range x {
				w := q[c]/25 + 9*(alpha*v+eta*nx[c])/25
				x[c] = 15*w - 5*(alpha*v+eta*nx[c])
				q[c] = w
			}
		default:
			for c, v := range x {
				x[c] = q[c] + 0.6*(alpha*v+eta*nx[c])
			}
		}
		return
	}
	pin = pin[:m]
	switch mode {
	case sweepPlain:
		for c, v := range x {
			x[c] = alpha*v + eta*nx[c] + gamma*pin[c]
		}
	case sweepSave:
		for c, v := range x {
			q[c] = v
			x[c] = alpha*v + eta*nx[c] + gamma*pin[c]
		}
	case sweepCombine:
		for c, v := range x {
			y := alpha*v + eta*nx[c] + gamma*pin[c]
			w := q[c]/25 + 9*y/25
			x[c] = 15*w - 5*y
			q[c] = w
		}
	default:
		for c, v := range x {
			x[c] = q[c] + 0.6*(alpha*v+eta*nx[c]+gamma*pin[c])
		}
	}
}

// applyTallyProjSSP is applyTallyProj by SSPRK(10,4).
func (m *Map) applyTallyProjSSP(p []float64, top int, mass float64, res *MapResult) {
	bd := m.bestd
	ps := &bd.ps
	k, d, lam, T := float64(m.K), bd.d, m.Load, m.Period
	step := math.Min(tallyODEStep, tallyODERate/(float64(d)*lam/k))
	hmax := 6 / (sspRateMargin*float64(d)*lam/mass + 1)
	if bd.stepScale > 0 {
		hmax *= bd.stepScale
	}
	// An even number of tally steps a step (the midpoint's rates are read
	// at a tally step's start), at least two.
	step = math.Min(step, hmax/2)
	mt := 2 * max(1, int(math.Floor(hmax/(2*step))))
	nbig := max(1, int(math.Ceil(T/(float64(mt)*step))))
	nstep := mt * nbig
	dt := T / float64(nstep)
	h := float64(mt) * dt
	bd.merged = 0

	V := top + 2 + int(math.Ceil(float64(d)*lam*T/k)) + 64
	st := newTallyStepper(p, top, mass, lam/k, d, V)
	cls := newProjClasses(p, top)
	for _, c := range cls {
		c.jl.buf = sspStages / 2
		c.jl.fit()
		c.mean = float64(c.b) * c.w
	}
	bd.workUsed, bd.overCap = 0, false
	bd.sspCells, bd.sspRows, bd.sspTally = 0, 0, 0
	// rates superposes class c's rates from the tally law x at the
	// perceived rates nu (kept in c.ssp) and fills dst with them (rows of
	// its law).
	rates := func(dst *[]float64, c *projClass, x, nu []float64) {
		base, num, den := ps.superpose(x, c.off, c.b, m.K, nu)
		c.ssp.base, c.ssp.fb = base, k*nu[c.b+c.off]
		c.ssp.num = append(c.ssp.num[:0], num...)
		c.ssp.den = append(c.ssp.den[:0], den...)
		l := growTo(dst, c.jl.rows()+sspStages)
		fillRates(l, c.jl.alo, base, num, den, c.ssp.fb)
	}
	// advance does every class's step, with its end's rates from its tally
	// law at the perceived rates nu.
	advance := func(nu []float64) {
		for _, c := range cls {
			rates(&c.ssp.l1, c, c.pi, nu)
			if c.ssp.malo != c.jl.alo || len(c.ssp.m) != c.jl.rows() {
				c.ssp.rowMasses(&c.jl)
			}
			var in float64
			in, c.mean = ps.sspStep(&c.jl, &c.ssp, h, c.mean)
			c.integ += in
			alo := c.jl.alo
			c.jl.fit()
			c.ssp.shift(alo, &c.jl)
		}
	}
	for i := range nstep {
		il := i % mt
		st.stepP(dt)
		tally := float64(V)
		if il == 0 && i > 0 {
			advance(st.nu[0])
			if bd.overWork(res) {
				return
			}
			if !bd.noMerge {
				n0 := len(cls)
				cls = projMerge(cls, m.K)
				if len(cls) < n0 {
					bd.merged += n0 - len(cls)
					for _, c := range cls {
						c.ssp.rowMasses(&c.jl) // a root's law has grown
					}
				}
			}
			// The next step's start is the last one's end: the same
			// superposed rates on the law's new rows (a merged class
			// follows its root's).
			for _, c := range cls {
				r := &c.ssp
				fillRates(growTo(&r.l0, c.jl.rows()+sspStages), c.jl.alo, r.base, r.num, r.den, r.fb)
			}
		}
		for _, c := range cls {
			c.pi = st.slopes(c.pi, c.b+c.off, dt)
			tally += float64(len(c.pi))
			switch {
			case il == 0:
				// The work is counted as it is done (the cells of the joint
				// laws a step updates; see applyTallyProj).
				cells, rows := float64(c.jl.cells()), float64(c.jl.rows())
				bd.workUsed += sspCellCost*cells + sspRowCost*rows
				bd.sspCells += cells
				bd.sspRows += rows
				if i == 0 {
					rates(&c.ssp.l0, c, c.pi, st.nu[0])
				}
			case il == mt/2:
				rates(&c.ssp.lm, c, c.pi, st.nu[0])
			}
			for q := range c.pi {
				c.pi[q] += st.inc(q, dt)
			}
			c.pi, c.off = trimLow(c.pi, c.off)
		}
		bd.workUsed += sspTallyCost * tally
		bd.sspTally += tally
	}
	nuT := make([]float64, V)
	st.rates(nuT, st.P)
	advance(nuT)
	m.finishProj(cls, mass, res)
}
