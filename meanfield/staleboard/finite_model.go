package staleboard

import "github.com/fluidlb/fluid/internal/param"

// FiniteModel is a System of Servers servers watched for Horizon refresh
// periods: the problem of the finite-N edge (FiniteEdge, FiniteEdgeTable),
// where a system started balanced tips into the herd within the horizon
// with probability ½.
type FiniteModel struct {
	System
	// Servers is N, MinServers(K)..MaxServers.
	Servers int
	// Horizon is H, the refresh periods within which the system must tip,
	// 1..MaxHorizon. Default DefaultHorizon.
	Horizon int
}

// Bounds of the finite-N inputs.
const (
	// MaxServers bounds FiniteModel.Servers.
	MaxServers = 1 << 30
	// MaxHorizon bounds the horizon in refresh periods.
	MaxHorizon = 1_000_000
	// DefaultHorizon is the horizon of the finite-N edge when none is
	// given: 100 refresh periods. The edge depends on it only through
	// the logarithm of the horizon (the escape probability per period
	// falls exponentially in N), and 100 periods is the order of the
	// simulations the published finite-N edges come from (about 2 million
	// jobs at N = 100 and T ≈ 300). Halving or doubling it moves the edge
	// of k = 5, λ = 0.9 by −0.4%/+2% at N = 100, ±0.4% at N = 800, and
	// −5%/+6% at N = 25, where a period's noise is largest.
	DefaultHorizon = 100
)

// MinServers is the fewest servers the finite-N theory takes for k
// dispatchers: k, and at least 2. With fewer servers than dispatchers a
// dispatcher's pass holds less than one job per server, and the escape
// analysis — Gaussian noise, first order in 1/√N — has nothing to say;
// its board noise then never lets the tipping probability fall below ½,
// and the search scans its whole range of periods (minutes at k = 5)
// only to report that.
func MinServers(k int) int { return max(k, 2) }

// Validate checks the model; the *param.Error names the field.
func (m *FiniteModel) Validate() error {
	if err := m.System.Validate(); err != nil {
		return err
	}
	if err := m.System.checkExponential(); err != nil {
		return err
	}
	if lo := MinServers(m.K); m.Servers < lo || m.Servers > MaxServers {
		return param.Errorf("Servers", "N = %d, want %d ≤ N ≤ %d (at least as many servers as the %d dispatchers, and 2: the escape analysis is an expansion in 1/√N)", m.Servers, lo, MaxServers, m.K)
	}
	if h := m.horizon(); h < 1 || h > MaxHorizon {
		return param.Errorf("Horizon", "%d refresh periods, want 1..%d", h, MaxHorizon)
	}
	return nil
}

// horizon is Horizon or its default.
func (m *FiniteModel) horizon() int { return param.Or(m.Horizon, DefaultHorizon) }

// TipModel is a FiniteModel at one refresh period: the problem of
// TipProbability.
type TipModel struct {
	FiniteModel
	// Period is the refresh period T, bounded as Model.Period.
	Period float64
}

// Validate checks the model; the *param.Error names the field.
func (m *TipModel) Validate() error {
	if err := m.FiniteModel.Validate(); err != nil {
		return err
	}
	return checkPeriod("Period", m.Period, m.Load)
}

// mapModel is the N → ∞ map of the model at its period.
func (m *TipModel) mapModel() *Model { return &Model{System: m.System, Period: m.Period} }
