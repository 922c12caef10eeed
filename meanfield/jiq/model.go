package jiq

import (
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// The scenarios: what a dispatcher without a token does with a job.
const (
	// Blocking discards the job.
	Blocking = farm.Blocking
	// Queueing sends the job to a uniformly random server, revoking that
	// server's token if it was idle.
	Queueing = farm.Queueing
)

// Model is the fluid (N → ∞) model of join-the-idle-queue with R
// dispatchers. Time is in mean service times; all rates are per server.
type Model struct {
	// Scenario is Blocking (the default) or Queueing.
	Scenario farm.Scenario
	// Load is λ, the job arrival rate per server. Any λ > 0 for Blocking;
	// λ < 1 for Queueing.
	Load float64
	// Alpha are the dispatchers' arrival shares α_r > 0, summing to 1, in
	// any order; results are reported in this order.
	Alpha []float64
	// Beta are the token allotment probabilities β_r ≥ 0 (Enhancement 1),
	// summing to 1, same length as Alpha. Nil means basic JIQ: β_r = 1/R.
	Beta []float64
	// Exchange is the token exchange rate ν ≥ 0 (Enhancement 2).
	Exchange float64
	// IMax truncates the queue lengths of the Queueing model at IMax
	// (arrivals to a server holding IMax jobs are not counted there). Zero
	// means automatic: the smallest IMax ≥ 10 whose stationary tail mass
	// λ·λ₂^IMax is at most TailTol.
	IMax int
	// TailTol bounds the stationary mass above IMax. Default 1e-12.
	TailTol float64
}

const (
	// sumTol is how far a probability vector's sum may be from 1.
	sumTol = param.SumTol
	// defaultTailTol is the default bound on the truncated stationary mass.
	defaultTailTol = 1e-12
	// maxIMax bounds the queueing truncation.
	maxIMax = 100000
	// MaxLoad bounds λ in the blocking scenario (at λ = 10³⁰⁰ the ODE
	// check ended in a step-size underflow).
	MaxLoad = 1e6
)

// Validate checks the parameters and returns a *param.Error naming the
// first invalid field.
func (m *Model) Validate() error {
	if !m.Scenario.Valid() {
		return param.Errorf("Scenario", "unknown scenario %d", int(m.Scenario))
	}
	if !param.Finite(m.Load) || m.Load <= 0 {
		return param.Errorf("Load", "λ = %v, want a finite number > 0", m.Load)
	}
	if m.Load > MaxLoad {
		return param.Errorf("Load", "λ = %v, want λ ≤ %v: beyond it blocking is 1 − 1/λ to rounding, and the fluid ODE's rates outrun its steps", m.Load, float64(MaxLoad))
	}
	if m.Scenario == Queueing && m.Load >= 1 {
		return param.Errorf("Load", "λ = %v: the queueing scenario needs λ < 1 to be stable", m.Load)
	}
	if m.Scenario == Queueing && 1-m.Load < 1e-9 {
		// The idle fraction 1 − λ is the tokens' mass: below 1e-9 it is
		// rounding, and every pool looks empty.
		return param.Errorf("Load", "λ = %v: the queueing scenario needs 1 − λ ≥ 1e-9 (the idle fraction that holds the tokens)", m.Load)
	}
	if err := param.Shares(m.Alpha, m.Beta); err != nil {
		return err
	}
	if !param.Finite(m.Exchange) || m.Exchange < 0 {
		return param.Errorf("Exchange", "ν = %v, want a finite number ≥ 0", m.Exchange)
	}
	if m.IMax < 0 || m.IMax > maxIMax {
		return param.Errorf("IMax", "%d, want 0 (automatic) or 1..%d", m.IMax, maxIMax)
	}
	if m.TailTol != 0 && (!param.Finite(m.TailTol) || m.TailTol <= 0 || m.TailTol >= 1) {
		return param.Errorf("TailTol", "%v, want a number in (0, 1)", m.TailTol)
	}
	return nil
}

// R returns the number of dispatchers.
func (m *Model) R() int { return len(m.Alpha) }

// beta returns β, defaulting to 1/R.
func (m *Model) beta() []float64 { return farm.Allotment(m.Beta, len(m.Alpha)) }

func (m *Model) tailTol() float64 {
	if m.TailTol == 0 {
		return defaultTailTol
	}
	return m.TailTol
}

// NuStar returns ν*, the smallest token exchange rate at which the limit
// has zero blocking (Blocking) or zero wait (Queueing) for the given α, β
// and λ: ν* = max(0, max_r R·(α_r − β_r)·λ/(1 − λ)) (for basic JIQ
// (R·α_max − 1)·λ/(1 − λ)). It is +Inf for λ ≥ 1, where no exchange
// rate removes blocking.
func (m *Model) NuStar() float64 {
	if m.Load >= 1 {
		return math.Inf(1)
	}
	beta := m.beta()
	R := float64(len(m.Alpha))
	var nu float64
	for r, a := range m.Alpha {
		nu = math.Max(nu, R*(a-beta[r])*m.Load/(1-m.Load))
	}
	return nu
}

// tailIMax returns the smallest truncation level M ≥ 10 whose stationary
// mass above M, λ·λ₂^M, is at most tol.
func tailIMax(lambda, lambda2, tol float64) int {
	if lambda2 <= 0 || lambda*math.Pow(lambda2, 10) <= tol {
		return 10
	}
	m := int(math.Ceil(math.Log(tol/lambda) / math.Log(lambda2)))
	for m > 10 && lambda*math.Pow(lambda2, float64(m-1)) <= tol {
		m--
	}
	for lambda*math.Pow(lambda2, float64(m)) > tol {
		m++
	}
	return max(m, 10)
}
