package bestofd

import (
	"math"
	"time"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/ode"
	"github.com/fluidlb/fluid/outcome"
)

// FixedPointSettings control FixedPoint. A nil pointer or a zero field
// means the documented default.
type FixedPointSettings struct {
	// Tol is the ‖·‖₁ residual at which Anderson acceleration of the
	// count-distribution map stops. Default 1e-13.
	Tol float64
	// MaxIter bounds each Anderson run. Default 200.
	MaxIter int
	// MaxTime bounds the time the mean-field ODE runs before and between
	// the Anderson runs. Default 1e5.
	MaxTime float64
}

// FixedPointResult is the mean-field fixed point. Its Status is Converged
// for a fixed point within Tol whose truncated mass is at most TailTol;
// otherwise how the solve ended (TruncationLimit: the largest truncation
// still lost more than TailTol; NotSettled: the mean-field ODE did not
// reach the Anderson stage within MaxTime). Evaluations counts the
// evaluations of the count-distribution map and of the ODE's right-hand
// side on the final truncation (Solve.Evaluations).
type FixedPointResult struct {
	outcome.Outcome
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
	// those eigenvalues. Both are computed only for a converged fixed
	// point.
	Abscissa    float64
	Eigenvalues []complex128
	// State is the full stationary distribution over the server states
	// (level by level: counts 0, 1, …; within a level, by phase counts).
	State []float64
}

// FixedPoint computes the mean-field fixed point: Anderson iteration on
// the count distribution q, each step solving the server chain's
// stationary distribution exactly for the arrival rates a(n) that q
// implies (linear level reduction: the chain moves between count levels
// one job at a time). The truncation grows until its mass is below
// TailTol; the stability comes from the Jacobian of the mean-field ODE.
func FixedPoint(m *Model, s *FixedPointSettings) (*FixedPointResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var set FixedPointSettings
	if s != nil {
		set = *s
	}
	set.Tol = param.Or(set.Tol, 1e-13)
	set.MaxIter = param.Or(set.MaxIter, 200)
	set.MaxTime = param.Or(set.MaxTime, 1e5)
	if err := param.Positive("Tol", set.Tol); err != nil {
		return nil, err
	}
	if set.MaxIter < 1 {
		return nil, param.Errorf("MaxIter", "%d, want at least 1", set.MaxIter)
	}
	if err := param.Positive("MaxTime", set.MaxTime); err != nil {
		return nil, err
	}
	start := time.Now()
	M := m.MaxQueue
	auto := M == 0
	if auto {
		M = 16
	}
	var q0 []float64
	for {
		ch := newServerChain(m.Discipline, m.scv(), M)
		res, err := m.solve(ch, q0, &set)
		if err != nil {
			return nil, err
		}
		if !auto || res.Lost <= m.tailTol() || M >= maxQueue {
			res.Evaluations = res.Solve.Evaluations
			defer func() { res.Elapsed = time.Since(start) }()
			if res.Status != outcome.Converged {
				return res, nil
			}
			if res.Lost > m.tailTol() {
				res.Status = outcome.TruncationLimit
				return res, nil
			}
			if err := m.spectrum(ch, res); err != nil {
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
func (m *Model) solve(ch *serverChain, q0 []float64, set *FixedPointSettings) (*FixedPointResult, error) {
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
	var r *fixedpoint.Result
	odeTime, evals := 0.0, 0
	for thr := 1e-2; ; thr /= 100 {
		// The ODE stage: stretches of 10 until the drift's L1 norm is
		// below thr, at most MaxTime in all.
		st, err := it.Settle(x, odeTime, &ode.SettleSettings{Tol: thr, Norm: ode.L1Norm, Chunk: 10, Growth: 1, MaxTime: set.MaxTime - odeTime})
		evals += st.Stats.FuncEvals
		odeTime = st.T
		if err != nil {
			return nil, err
		}
		if st.Status != outcome.Converged {
			return &FixedPointResult{Outcome: outcome.Outcome{Status: st.Status}, MaxQueue: M, States: ch.n, SettleTime: odeTime,
				Solve: &fixedpoint.Result{Outcome: outcome.Outcome{Status: st.Status, Evaluations: evals}, X: q, Residual: st.Drift}}, nil
		}
		ch.levelSums(q, x)
		start := append([]float64(nil), q...)
		r, err = fixedpoint.Solve(phi, start, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: set.Tol, MaxIter: set.MaxIter, Simplex: true})
		if err != nil {
			return nil, err
		}
		if r.Status == outcome.Converged || thr < 1e-10 {
			break
		}
	}
	r.Evaluations += evals
	qs := r.X
	m.arrivalRates(rates, qs)
	if err := ch.stationary(pi, rates); err != nil {
		return nil, err
	}
	res := &FixedPointResult{Dist: make([]float64, M+1), Tail: make([]float64, M+1), MaxQueue: M, States: ch.n, Solve: r, State: append([]float64(nil), pi...), SettleTime: odeTime}
	ch.levelSums(res.Dist, pi)
	var s float64
	for n := M; n >= 0; n-- {
		s += res.Dist[n]
		res.Tail[n] = s
		res.MeanQueue += float64(n) * res.Dist[n]
	}
	res.Sojourn = res.MeanQueue / m.Load
	res.Lost = res.Dist[M]
	res.Status = r.Status
	return res, nil
}

// arrivalRates fills a(n) = λ(S_n^d − S_{n+1}^d)/q_n from the count
// distribution q (the limit λ·d·S_n^{d−1} where q_n = 0); a(M) = 0 (the
// truncation).
func (m *Model) arrivalRates(a, q []float64) {
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
func (m *Model) drift(ch *serverChain, dx, x, q, a []float64) {
	ch.levelSums(q, x)
	m.arrivalRates(a, q)
	ch.flow(dx, x, a)
}

// spectrum computes the spectrum of the drift's Jacobian at the fixed
// point, on perturbations that keep the total mass.
func (m *Model) spectrum(ch *serverChain, res *FixedPointResult) error {
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
