package meanfield

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/model"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
)

// Discipline is a server's service discipline (FCFS or PS), shared with
// the simulator.
type Discipline = model.Discipline

// The disciplines.
const (
	FCFS = model.FCFS
	PS   = model.PS
)

// ParseDiscipline parses fcfs or ps.
func ParseDiscipline(s string) (Discipline, error) { return model.ParseDiscipline(s) }

// JSQd is the N → ∞ mean field of best-of-d dispatching (JSQ(d)) on live
// job counts: each job samples d servers and joins the one with the fewest
// jobs. A server holding n jobs receives Poisson arrivals at rate
//
//	a(n) = λ·(S_n^d − S_{n+1}^d)/P(n),  S_n = P(count ≥ n),
//
// which depends on the whole population (the mean-field coupling). Job
// sizes are exponential (SCV = 1; FCFS and PS then coincide) or the
// balanced-means hyperexponential H2 of SPEC §2 (SCV > 1). A server's state
// is its count for exponential sizes, its (small, giant) job counts under
// PS, and its count with the phase of the job in service under FCFS.
type JSQd struct {
	D          int
	Load       float64
	Discipline Discipline
	// SCV of the job sizes: 1 (exponential, the default when 0) or > 1
	// (H2).
	SCV float64
	// MaxQueue truncates the count (arrivals to a full server are dropped
	// and counted as lost). Zero: chosen automatically, doubled until the
	// mass at the top is below TailTol.
	MaxQueue int
	// TailTol is the largest acceptable mass at the truncation level
	// (default 1e-13).
	TailTol float64
}

// JSQdResult is the mean-field fixed point.
type JSQdResult struct {
	// Dist is P(count = n) and Tail P(count ≥ n), n = 0..MaxQueue.
	Dist, Tail []float64
	// MeanQueue is E[count]; Sojourn the mean time in system E[count]/λ
	// (Little's law).
	MeanQueue, Sojourn float64
	// Lost is the mass at the truncation level MaxQueue (an upper bound
	// on the probability of the states cut off).
	Lost     float64
	MaxQueue int
	// States is the number of server states in the truncated model.
	States int
	// Solve reports the final fixed-point iteration on the count
	// distribution (Evaluations include the ODE's right-hand sides), and
	// SettleTime the time the mean-field ODE ran before it.
	Solve      *fixedpoint.Result
	SettleTime float64
	// Abscissa is the largest real part of the eigenvalues of the
	// mean-field ODE's Jacobian at the fixed point (on perturbations that
	// keep the total mass); negative means locally stable. Eigenvalues are
	// those eigenvalues.
	Abscissa    float64
	Eigenvalues []complex128
	// State is the full stationary distribution over the server states
	// (level by level: counts 0, 1, …; within a level, by phase counts).
	State []float64
}

// Validate checks the parameters (*param.Error names the bad one).
func (m *JSQd) Validate() error {
	if m.D < 1 || m.D > 1000 {
		return param.Errorf("policy", "best of d = %d, want 1 ≤ d ≤ 1000", m.D)
	}
	if !param.Finite(m.Load) || m.Load <= 0 || m.Load >= 1 {
		return param.Errorf("load", "λ = %v, want 0 < λ < 1", m.Load)
	}
	if !m.Discipline.Valid() {
		return param.Errorf("discipline", "unknown discipline %d", int(m.Discipline))
	}
	if !param.Finite(m.SCV) || (m.SCV != 0 && m.SCV < 1) {
		return param.Errorf("sizes", "SCV = %v, want 1 (exponential) or more (H2)", m.SCV)
	}
	if m.MaxQueue < 0 || (m.MaxQueue > 0 && m.MaxQueue < 2) || m.MaxQueue > 100_000 {
		return param.Errorf("max-queue", "truncation %d, want 0 (automatic) or 2..100000", m.MaxQueue)
	}
	if m.TailTol < 0 || m.TailTol >= 1 {
		return param.Errorf("tail-tol", "%v, want 0 (default) or in (0, 1)", m.TailTol)
	}
	return nil
}

func (m *JSQd) scv() float64 {
	if m.SCV == 0 {
		return 1
	}
	return m.SCV
}

func (m *JSQd) tailTol() float64 {
	if m.TailTol == 0 {
		return 1e-13
	}
	return m.TailTol
}

// FixedPoint computes the mean-field fixed point: Anderson iteration on
// the count distribution q, each step solving the server chain's
// stationary distribution exactly for the arrival rates a(n) that q
// implies (linear level reduction: the chain moves between count levels
// one job at a time). The truncation grows until its mass is below
// TailTol; the stability comes from the Jacobian of the mean-field ODE.
func (m *JSQd) FixedPoint() (*JSQdResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	M := m.MaxQueue
	auto := M == 0
	if auto {
		M = 16
	}
	var q0 []float64
	for {
		ch := newServerChain(m.Discipline, m.scv(), M)
		res, err := m.solve(ch, q0)
		if err != nil {
			return nil, err
		}
		if !auto || res.Lost <= m.tailTol() || M >= 100_000 {
			if res.Solve.Status != fixedpoint.Converged {
				return res, fmt.Errorf("meanfield: JSQ(%d) fixed point: %v after %d iterations (residual %.3g)", m.D, res.Solve.Status, res.Solve.Iterations, res.Solve.Residual)
			}
			if res.Lost > m.tailTol() {
				return res, fmt.Errorf("meanfield: JSQ(%d): mass %.3g at the truncation %d exceeds %g", m.D, res.Lost, M, m.tailTol())
			}
			if err := m.stability(ch, res); err != nil {
				return nil, err
			}
			return res, nil
		}
		q0 = append(res.Dist, make([]float64, M)...)
		M *= 2
	}
}

// solve finds the fixed point on one truncation in two stages: the
// mean-field ODE is integrated from q0 (default: the M/M/1 law of random
// dispatch, every job in the first phase) until its drift is below a
// threshold, then Anderson acceleration of the exact map Φ (count
// distribution → arrival rates → the chain's stationary law → its count
// distribution) converges from there. Φ alone is poorly conditioned far
// from the fixed point; the ODE alone converges slowly near it. If the
// second stage fails, the first continues to a threshold 100 times
// smaller.
func (m *JSQd) solve(ch *serverChain, q0 []float64) (*JSQdResult, error) {
	M := ch.M
	x := make([]float64, ch.n)
	if q0 == nil {
		q0 = make([]float64, M+1)
		for n := range q0 {
			q0[n] = (1 - m.Load) * math.Pow(m.Load, float64(n))
		}
		q0[M] = math.Pow(m.Load, float64(M))
	}
	for n, st := range ch.level {
		x[st[0]] = q0[n]
	}
	q := make([]float64, M+1)
	a := make([]float64, M+1)
	dx := make([]float64, ch.n)
	it, err := ode.NewIntegrator(ode.Problem{Func: func(dx []float64, _ float64, x []float64) { m.drift(ch, dx, x, q, a) }}, ch.n, &ode.Settings{RTol: 1e-9, ATol: 1e-12})
	if err != nil {
		return nil, err
	}
	rates := make([]float64, M+1)
	pi := make([]float64, ch.n)
	phi := func(dst, q []float64) error {
		m.arrivalRates(rates, q)
		if err := ch.stationary(pi, rates); err != nil {
			return err
		}
		ch.levelSums(dst, pi)
		return nil
	}
	const chunk, maxTime = 10.0, 1e5
	var r *fixedpoint.Result
	odeTime, evals := 0.0, 0
	for thr := 1e-2; ; thr /= 100 {
		for {
			m.drift(ch, dx, x, q, a)
			var norm float64
			for _, v := range dx {
				norm += math.Abs(v)
			}
			if norm < thr {
				break
			}
			if odeTime >= maxTime {
				return nil, fmt.Errorf("meanfield: JSQ(%d): the mean-field ODE has not settled after t = %g (drift %.3g)", m.D, odeTime, norm)
			}
			res, err := it.Solve(x, 0, chunk)
			if err != nil {
				return nil, err
			}
			evals += res.Stats.FuncEvals
			odeTime += chunk
		}
		ch.levelSums(q, x)
		start := append([]float64(nil), q...)
		r, err = fixedpoint.Solve(phi, start, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: 1e-13, MaxIter: 200, Simplex: true})
		if err != nil {
			return nil, err
		}
		if r.Status == fixedpoint.Converged || thr < 1e-10 {
			break
		}
	}
	r.Evaluations += evals
	qs := r.X
	m.arrivalRates(rates, qs)
	if err := ch.stationary(pi, rates); err != nil {
		return nil, err
	}
	res := &JSQdResult{Dist: make([]float64, M+1), Tail: make([]float64, M+1), MaxQueue: M, States: ch.n, Solve: r, State: append([]float64(nil), pi...), SettleTime: odeTime}
	ch.levelSums(res.Dist, pi)
	var s float64
	for n := M; n >= 0; n-- {
		s += res.Dist[n]
		res.Tail[n] = s
		res.MeanQueue += float64(n) * res.Dist[n]
	}
	res.Sojourn = res.MeanQueue / m.Load
	res.Lost = res.Dist[M]
	return res, nil
}

// arrivalRates fills a(n) = λ(S_n^d − S_{n+1}^d)/q_n from the count
// distribution q (the limit λ·d·S_n^{d−1} where q_n = 0); a(M) = 0 (the
// truncation).
func (m *JSQd) arrivalRates(a, q []float64) {
	// One pass from the top, S_{n+1} carried down (no work space: this runs
	// at every evaluation of the ODE's right-hand side).
	M := len(q) - 1
	d := float64(m.D)
	var total float64
	for _, v := range q {
		total += math.Max(v, 0)
	}
	a[M] = 0
	s := math.Max(q[M], 0) // S_M·total
	for n := M - 1; n >= 0; n-- {
		sn1 := s / total
		s += math.Max(q[n], 0)
		sn := s / total
		qn := sn - sn1
		if qn > 1e-300 {
			a[n] = m.Load * (math.Pow(sn, d) - math.Pow(sn1, d)) / qn
		} else {
			a[n] = m.Load * d * math.Pow(sn, d-1)
		}
	}
}

// drift writes the mean-field ODE's right-hand side at the state x.
func (m *JSQd) drift(ch *serverChain, dx, x, q, a []float64) {
	ch.levelSums(q, x)
	m.arrivalRates(a, q)
	ch.flow(dx, x, a)
}

// stability computes the spectrum of the drift's Jacobian at the fixed
// point, on perturbations that keep the total mass.
func (m *JSQd) stability(ch *serverChain, res *JSQdResult) error {
	q := make([]float64, ch.M+1)
	a := make([]float64, ch.M+1)
	f := func(dst, x []float64) error {
		m.drift(ch, dst, x, q, a)
		return nil
	}
	sp, err := fixedpoint.ComputeSpectrum(f, res.State, &fixedpoint.SpectrumSettings{DenseLimit: 2000, SupportTol: 1e-14})
	if err != nil {
		return err
	}
	res.Eigenvalues = sp.Eigenvalues
	res.Abscissa = math.Inf(-1)
	for _, e := range sp.Eigenvalues {
		res.Abscissa = math.Max(res.Abscissa, real(e))
	}
	return nil
}

// Settle integrates the mean-field ODE from the empty system for time
// until and returns the count distribution reached: the long-time limit,
// an independent check of FixedPoint. maxQueue truncates the state.
func (m *JSQd) Settle(until float64, maxQueue int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if maxQueue < 2 {
		return nil, param.Errorf("max-queue", "truncation %d, want at least 2", maxQueue)
	}
	ch := newServerChain(m.Discipline, m.scv(), maxQueue)
	q := make([]float64, maxQueue+1)
	a := make([]float64, maxQueue+1)
	x := make([]float64, ch.n)
	x[0] = 1
	res, err := ode.Solve(ode.Problem{Func: func(dx []float64, _ float64, x []float64) {
		m.drift(ch, dx, x, q, a)
	}}, x, 0, until, &ode.Settings{RTol: 1e-10, ATol: 1e-13})
	if err != nil {
		return nil, err
	}
	out := make([]float64, maxQueue+1)
	ch.levelSums(out, res.Y)
	return out, nil
}

// serverChain is one server's Markov chain, level by level (level n holds
// the states with n jobs). Arrivals move up one level, services down one.
type serverChain struct {
	M      int
	n      int     // states
	level  [][]int // state indices of each level
	pos    []int   // index of a state within its level
	lvl    []int   // level of each state
	arrTo  [][]int // arrival destinations of each state
	arrP   [][]float64
	svcTo  [][]int // service destinations
	svcR   [][]float64
	svcOut []float64 // total service rate of each state
}

// newServerChain builds the chain for a discipline and size SCV (1:
// exponential; > 1: balanced-means H2) truncated at M jobs, and under PS
// at J giants if J > 0 (a giant arriving to a server holding J is lost: a
// self-loop, which the level-reduction solver does not support — such
// chains serve the stale-board map only).
func newServerChain(disc Discipline, scv float64, M int, J ...int) *serverChain {
	giants := 0
	if len(J) > 0 {
		giants = J[0]
	}
	ch := &serverChain{M: M}
	add := func(level int) int {
		s := ch.n
		ch.n++
		for len(ch.level) <= level {
			ch.level = append(ch.level, nil)
		}
		ch.pos = append(ch.pos, len(ch.level[level]))
		ch.level[level] = append(ch.level[level], s)
		ch.lvl = append(ch.lvl, level)
		ch.arrTo, ch.arrP = append(ch.arrTo, nil), append(ch.arrP, nil)
		ch.svcTo, ch.svcR = append(ch.svcTo, nil), append(ch.svcR, nil)
		return s
	}
	if scv == 1 {
		for n := 0; n <= M; n++ {
			add(n)
		}
		for n := 0; n <= M; n++ {
			if n < M {
				ch.arrTo[n], ch.arrP[n] = []int{n + 1}, []float64{1}
			}
			if n > 0 {
				ch.svcTo[n], ch.svcR[n] = []int{n - 1}, []float64{1}
			}
		}
	} else {
		p, giant, small := model.H2Params(scv)
		mu := [2]float64{1 / small, 1 / giant} // small, giant rates
		ph := [2]float64{1 - p, p}
		switch disc {
		case PS:
			// State (i small, j giant), level i + j.
			idx := map[[2]int]int{}
			top := func(n int) int { // most giants at level n
				if giants > 0 {
					return min(n, giants)
				}
				return n
			}
			for n := 0; n <= M; n++ {
				for j := 0; j <= top(n); j++ {
					idx[[2]int{n - j, j}] = add(n)
				}
			}
			for n := 0; n <= M; n++ {
				for j := 0; j <= top(n); j++ {
					i := n - j
					s := idx[[2]int{i, j}]
					if n < M {
						g, ok := idx[[2]int{i, j + 1}]
						if !ok {
							g = s // the giant is lost
						}
						ch.arrTo[s] = []int{idx[[2]int{i + 1, j}], g}
						ch.arrP[s] = []float64{ph[0], ph[1]}
					}
					if i > 0 {
						ch.svcTo[s] = append(ch.svcTo[s], idx[[2]int{i - 1, j}])
						ch.svcR[s] = append(ch.svcR[s], mu[0]*float64(i)/float64(n))
					}
					if j > 0 {
						ch.svcTo[s] = append(ch.svcTo[s], idx[[2]int{i, j - 1}])
						ch.svcR[s] = append(ch.svcR[s], mu[1]*float64(j)/float64(n))
					}
				}
			}
		default:
			// State 0 (empty), or (n ≥ 1, phase of the job in service).
			empty := add(0)
			idx := map[[2]int]int{}
			for n := 1; n <= M; n++ {
				for f := range 2 {
					idx[[2]int{n, f}] = add(n)
				}
			}
			ch.arrTo[empty] = []int{idx[[2]int{1, 0}], idx[[2]int{1, 1}]}
			ch.arrP[empty] = []float64{ph[0], ph[1]}
			for n := 1; n <= M; n++ {
				for f := range 2 {
					s := idx[[2]int{n, f}]
					if n < M {
						ch.arrTo[s], ch.arrP[s] = []int{idx[[2]int{n + 1, f}]}, []float64{1}
					}
					if n == 1 {
						ch.svcTo[s], ch.svcR[s] = []int{empty}, []float64{mu[f]}
					} else {
						// The next job starts in phase g with probability ph[g].
						ch.svcTo[s] = []int{idx[[2]int{n - 1, 0}], idx[[2]int{n - 1, 1}]}
						ch.svcR[s] = []float64{mu[f] * ph[0], mu[f] * ph[1]}
					}
				}
			}
		}
	}
	ch.svcOut = make([]float64, ch.n)
	for s := range ch.n {
		for _, r := range ch.svcR[s] {
			ch.svcOut[s] += r
		}
	}
	return ch
}

// levelSums writes the mass of each level.
func (ch *serverChain) levelSums(q, x []float64) {
	for n, states := range ch.level {
		q[n] = 0
		for _, s := range states {
			q[n] += x[s]
		}
	}
}

// flow writes dx = x·G for arrival rates a(level).
func (ch *serverChain) flow(dx, x, a []float64) {
	clear(dx)
	for s := range ch.n {
		xs := x[s]
		if xs == 0 {
			continue
		}
		if r := a[ch.lvl[s]]; r > 0 && len(ch.arrTo[s]) > 0 {
			dx[s] -= r * xs
			for k, t := range ch.arrTo[s] {
				dx[t] += r * xs * ch.arrP[s][k]
			}
		}
		dx[s] -= ch.svcOut[s] * xs
		for k, t := range ch.svcTo[s] {
			dx[t] += ch.svcR[s][k] * xs
		}
	}
}

// stationary writes the stationary distribution of the chain with arrival
// rates a(level), by linear level reduction (Gaver, Jacobs and Latouche,
// 1984): from the top level down, U_M = L_M and U_n = L_n + R_n·D_{n+1},
// R_{n−1} = −A_{n−1}·U_n⁻¹ (A: level n−1 → n, L: within a level, D: level
// n → n−1); then π_0·U_0 = 0 and π_n = π_{n−1}·R_{n−1}. Every block is
// small (at most M + 1 states), so the cost is O(M⁴) flops for PS and
// O(M) for FCFS.
func (ch *serverChain) stationary(pi, a []float64) error {
	M := ch.M
	size := func(n int) int { return len(ch.level[n]) }
	up := func(n int) *mat.Dense { // A_n: level n → n+1
		A := mat.NewDense(size(n), size(n+1), nil)
		for i, s := range ch.level[n] {
			for k, t := range ch.arrTo[s] {
				A.Set(i, ch.pos[t], A.At(i, ch.pos[t])+a[n]*ch.arrP[s][k])
			}
		}
		return A
	}
	local := func(n int) *mat.Dense { // L_n
		L := mat.NewDense(size(n), size(n), nil)
		for i, s := range ch.level[n] {
			out := ch.svcOut[s]
			if len(ch.arrTo[s]) > 0 {
				out += a[n]
			}
			L.Set(i, i, -out)
		}
		return L
	}
	down := func(n int) *mat.Dense { // D_n: level n → n−1
		D := mat.NewDense(size(n), size(n-1), nil)
		for i, s := range ch.level[n] {
			for k, t := range ch.svcTo[s] {
				D.Set(i, ch.pos[t], D.At(i, ch.pos[t])+ch.svcR[s][k])
			}
		}
		return D
	}
	R := make([]*mat.Dense, M) // R_n: level n → n+1 rate matrix of π
	U := local(M)
	for n := M; n >= 1; n-- {
		// R_{n−1} = −A_{n−1}·U_n⁻¹: solve U_nᵀ·Xᵀ = −A_{n−1}ᵀ.
		A := up(n - 1)
		var xt mat.Dense
		var negAt mat.Dense
		negAt.Scale(-1, A.T())
		if err := xt.Solve(U.T(), &negAt); err != nil {
			return fmt.Errorf("meanfield: level reduction at level %d: %w", n, err)
		}
		R[n-1] = mat.DenseCopyOf(xt.T())
		// U_{n−1} = L_{n−1} + R_{n−1}·D_n.
		var rd mat.Dense
		rd.Mul(R[n-1], down(n))
		U = local(n - 1)
		U.Add(U, &rd)
	}
	// Level 0: π_0·U_0 = 0 with π_0 > 0. Level 0 holds one state (the
	// empty server) in every chain built here.
	if size(0) != 1 {
		return errors.New("meanfield: level 0 must hold one state")
	}
	cur := mat.NewVecDense(1, []float64{1})
	pi[ch.level[0][0]] = 1
	total := 1.0
	for n := 1; n <= M; n++ {
		next := mat.NewVecDense(size(n), nil)
		next.MulVec(R[n-1].T(), cur)
		for i, s := range ch.level[n] {
			v := math.Max(next.AtVec(i), 0)
			pi[s] = v
			total += v
		}
		cur = next
	}
	if !(total > 0) || math.IsInf(total, 0) || math.IsNaN(total) {
		return fmt.Errorf("meanfield: stationary distribution not normalisable (total %v)", total)
	}
	for s := range pi {
		pi[s] /= total
	}
	return nil
}
