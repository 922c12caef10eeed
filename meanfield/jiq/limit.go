package jiq

import (
	"math"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// LimitResult is the stationary limit (the fixed point of the fluid ODE)
// of a model. Per-dispatcher slices are in the order of Model.Alpha. Its
// Status is Converged: the limit is computed from closed forms and roots of
// monotone equations, to the resolution of float64.
type LimitResult struct {
	outcome.Outcome
	Scenario farm.Scenario
	// Busy is the fraction of busy servers: x₀* (Blocking) or 1 − y₀* = λ
	// (Queueing).
	Busy float64
	// Blocking is the blocking probability 1 − x₀*/λ (zero for Queueing).
	Blocking float64
	// RandomRate is λ₂*, the rate per server of jobs forwarded to random
	// servers (Queueing).
	RandomRate float64
	// MeanWait is E[W] = λ₂*/(1 − λ₂*), ProbWait is P(W > 0) = λ₂*, and
	// FractionRandom is λ₂*/λ, the fraction of jobs sent at random
	// (Queueing; zero for Blocking).
	MeanWait, ProbWait, FractionRandom float64
	// Sojourn is the mean time in system 1 + E[W] (Queueing).
	Sojourn float64
	// Tokens are the tokens held per server, x_r*; they sum to the idle
	// fraction 1 − Busy.
	Tokens []float64
	// Empty marks dispatchers whose token pool is empty at the limit: their
	// jobs use tokens as fast as tokens arrive.
	Empty []bool
	// TokensDetermined is false when the split of tokens among non-empty
	// dispatchers is not fixed by the limit equations (ν = 0 with tied
	// ratios α_r/β_r, or a relaxation time 1/(ν + λ₂*) above 1e9); Tokens
	// then holds the split the fluid ODE reaches from the default start
	// (proportional to β among those dispatchers).
	TokensDetermined bool
	// Occupancy is y_i*, i = 0..IMax, the fraction of servers with i jobs
	// (Queueing).
	Occupancy []float64
	// IMax is the queue-length truncation used (Queueing).
	IMax int
	// TruncatedMass is the stationary mass above IMax, λ·λ₂*^IMax
	// (Queueing).
	TruncatedMass float64
	// NuStar is ν* (see Model.NuStar); +Inf if no exchange rate suffices.
	NuStar float64
	// ZeroDelay reports whether the limit has zero blocking (Blocking) or
	// zero wait (Queueing): α_r·λ ≤ β_r·λ + ν(1 − λ)/R for every r, λ < 1.
	ZeroDelay bool
	// Stability of the fixed point.
	Stability Stability
}

// Limit computes the stationary limit from the closed forms and root
// equations (see the package documentation), each root found by bisection
// on its documented unique root and then polished by solving the linear
// equation of the active set exactly; it also classifies the fixed point's
// stability. The limit has no numerical knobs (the queueing truncation is
// the model's IMax and TailTol), so Limit takes no settings.
func Limit(m *Model) (*LimitResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	var lim *LimitResult
	var err error
	if m.Scenario == Blocking {
		lim = m.blockingLimit()
	} else {
		lim, err = m.queueingLimit()
		if err != nil {
			return nil, err
		}
	}
	lim.Scenario = m.Scenario
	lim.NuStar = m.NuStar()
	lim.ZeroDelay = m.zeroDelay()
	lim.Stability = m.stability(lim)
	lim.Status, lim.Elapsed = outcome.Converged, time.Since(start)
	return lim, nil
}

// zeroDelay tests α_r·λ ≤ β_r·λ + ν(1 − λ)/R for all r, with λ < 1. The
// comparison allows rounding relative to the terms compared (an absolute
// allowance would call every tiny load zero-blocking).
func (m *Model) zeroDelay() bool {
	if m.Load >= 1 {
		return false
	}
	beta := m.beta()
	R := float64(len(m.Alpha))
	for r, a := range m.Alpha {
		if in, out := a*m.Load, beta[r]*m.Load+m.Exchange*(1-m.Load)/R; in > out*(1+1e-12) {
			return false
		}
	}
	return true
}

// bisect returns the root of the strictly decreasing function h on [lo, hi]
// with h(lo) ≥ 0 ≥ h(hi), to the resolution of float64.
func bisect(h func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid <= lo || mid >= hi {
			break
		}
		if h(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// blockingLimit: for ν = 0, x₀* = min{1, λ·min_r α_r/β_r};
// for ν > 0, x₀* is the unique root in (0, 1] of
// x = Σ_r min{α_r·λ, β_r·x + ν(1 − x)/R}.
func (m *Model) blockingLimit() *LimitResult {
	R := len(m.Alpha)
	beta := m.beta()
	lam, nu := m.Load, m.Exchange
	lim := &LimitResult{Tokens: make([]float64, R), Empty: make([]bool, R), TokensDetermined: true}
	inflow := func(r int, x float64) float64 { return beta[r]*x + nu*(1-x)/float64(R) }
	var x0 float64
	if nu == 0 {
		minRatio := math.Inf(1)
		for r, a := range m.Alpha {
			if beta[r] > 0 {
				minRatio = math.Min(minRatio, a/beta[r])
			}
		}
		x0 = math.Min(1, lam*minRatio)
		// Tokens sit at the dispatchers attaining the minimum ratio, unless
		// every server is busy.
		var tied []int
		for r, a := range m.Alpha {
			if beta[r] > 0 && a/beta[r] <= minRatio*(1+1e-12) && x0 < 1 {
				tied = append(tied, r)
			}
		}
		for r := range lim.Empty {
			lim.Empty[r] = true
		}
		if len(tied) > 0 {
			var bsum float64
			for _, r := range tied {
				bsum += beta[r]
			}
			for _, r := range tied {
				lim.Tokens[r] = (1 - x0) * beta[r] / bsum
				lim.Empty[r] = false
			}
			lim.TokensDetermined = len(tied) == 1
		}
	} else {
		// h(x) = Σ_r min{α_r·λ, inflow_r(x)} − x, written as ν(1 − x) minus
		// the surpluses [inflow_r(x) − α_r·λ]⁺ (Σβ_r = 1): the same function
		// without the cancellation of x against Σ_r β_r·x, which at small ν
		// (below the rounding of x, about 1e-16) leaves only noise and a
		// root at x = 0 (blocking 1 where the limit is the ν = 0 value).
		h := func(x float64) float64 {
			s := nu * (1 - x)
			for r, a := range m.Alpha {
				s -= math.Max(0, inflow(r, x)-a*lam)
			}
			return s
		}
		x0 = bisect(h, 0, 1)
		// Polish: with the set A of dispatchers whose demand binds
		// (α_r·λ < inflow), x = Σ_A α_r·λ + Σ_{not A} (β_r·x + ν(1 − x)/R)
		// is linear in x.
		// 1 − slope is summed as Σ_A β_r + ν·|not A|/R, without the
		// cancellation of 1 − Σ_{not A} β_r.
		var c, denom float64
		for r, a := range m.Alpha {
			if a*lam < inflow(r, x0) {
				c += a * lam
				denom += beta[r]
			} else {
				c += nu / float64(R)
				denom += nu / float64(R)
			}
		}
		if xs := c / denom; xs > 0 && xs <= 1 && math.Abs(xs-x0) < 1e-9 {
			x0 = xs
		}
		m.splitTokens(lim, 1-x0, func(r int) float64 { return inflow(r, x0) - m.Alpha[r]*lam })
	}
	lim.Busy = x0
	lim.Blocking = math.Max(0, 1-x0/lam)
	return lim
}

// splitTokens distributes the idle mass among dispatchers in proportion to
// their token surplus s_r = inflow_r − α_r·λ (> 0 for non-empty pools): at
// the fixed point x_r* = s_r/(ν + λ₂*) and Σ_r s_r⁺ = (ν + λ₂*)·idle, so
// x_r* = idle·s_r⁺/Σ s⁺ conserves mass exactly. If Σ s⁺ is below 1e-9 the
// relaxation time exceeds 1e9 and the split is reported as undetermined,
// proportional to β among the dispatchers without deficit.
func (m *Model) splitTokens(lim *LimitResult, idle float64, surplus func(r int) float64) {
	beta := m.beta()
	var ssum float64
	s := make([]float64, len(m.Alpha))
	for r := range s {
		s[r] = surplus(r)
		if s[r] > 0 {
			ssum += s[r]
		}
	}
	if ssum >= 1e-9 {
		for r := range s {
			if s[r] > 0 {
				lim.Tokens[r] = idle * s[r] / ssum
			} else {
				lim.Empty[r] = true
			}
		}
		return
	}
	lim.TokensDetermined = false
	var bsum float64
	for r := range s {
		if s[r] >= -1e-9 && beta[r] > 0 {
			bsum += beta[r]
		}
	}
	for r := range s {
		if s[r] >= -1e-9 && beta[r] > 0 {
			lim.Tokens[r] = idle * beta[r] / bsum
		} else {
			lim.Empty[r] = true
		}
	}
}

// queueingLimit: λ₂* is the unique root in [0, 1) of
// λ₂ = Σ_r [α_r·λ − β_r·λ(1 − λ₂) − ν(1 − λ)/R]⁺; y₀* = 1 − λ,
// y_i* = λ(1 − λ₂*)·λ₂*^(i−1).
func (m *Model) queueingLimit() (*LimitResult, error) {
	R := len(m.Alpha)
	beta := m.beta()
	lam, nu := m.Load, m.Exchange
	deficit := func(r int, l2 float64) float64 {
		return m.Alpha[r]*lam - beta[r]*lam*(1-l2) - nu*(1-lam)/float64(R)
	}
	q := func(l2 float64) float64 {
		s := -l2
		for r := range m.Alpha {
			s += math.Max(0, deficit(r, l2))
		}
		return s
	}
	var l2 float64
	if q(0) > 0 {
		l2 = bisect(q, 0, 1)
		// Polish on the active set A (positive deficits):
		// λ₂ = Σ_A (α_r·λ − β_r·λ − ν(1−λ)/R) + λ₂·λ·Σ_A β_r.
		var c, slope float64
		for r := range m.Alpha {
			if deficit(r, l2) > 0 {
				c += deficit(r, 0)
				slope += beta[r] * lam
			}
		}
		if ls := c / (1 - slope); ls >= 0 && ls < 1 && math.Abs(ls-l2) < 1e-9 {
			l2 = ls
		}
	}
	lim := &LimitResult{
		Busy:             lam,
		RandomRate:       l2,
		ProbWait:         l2,
		MeanWait:         l2 / (1 - l2),
		FractionRandom:   l2 / lam,
		Tokens:           make([]float64, R),
		Empty:            make([]bool, R),
		TokensDetermined: true,
	}
	lim.Sojourn = 1 + lim.MeanWait
	tol := m.tailTol()
	imax := m.IMax
	if imax == 0 {
		imax = tailIMax(lam, l2, tol)
		if imax > maxIMax {
			return nil, param.Errorf("IMax", "the stationary queue tail (λ₂* = %.6g) needs a truncation above %d to keep the lost mass below %g", l2, maxIMax, tol)
		}
	} else if tail := lam * math.Pow(l2, float64(imax)); tail > tol {
		return nil, param.Errorf("IMax", "%d is too small: the stationary mass above it is %.3g, above the tail tolerance %g; use imax ≥ %d", imax, tail, tol, tailIMax(lam, l2, tol))
	}
	lim.IMax = imax
	lim.TruncatedMass = lam * math.Pow(l2, float64(imax))
	lim.Occupancy = make([]float64, imax+1)
	lim.Occupancy[0] = 1 - lam
	p := lam * (1 - l2)
	for i := 1; i <= imax; i++ {
		lim.Occupancy[i] = p
		p *= l2
	}
	y0, y1 := 1-lam, lam*(1-l2)
	m.splitTokens(lim, y0, func(r int) float64 {
		return beta[r]*y1 + nu*y0/float64(R) - m.Alpha[r]*lam
	})
	return lim, nil
}
