package staleboard

import (
	"fmt"

	"github.com/fluidlb/fluid/internal/param"
)

// Tally says what the k dispatchers add to the board between refreshes.
type Tally int

const (
	// Own: each dispatcher adds its own sends to the board (the model with
	// k dispatchers; the default).
	Own Tally = iota
	// Shared: all dispatchers add every send to one shared tally; they act
	// as one dispatcher (the model with k = 1).
	Shared
	// Partitioned: each dispatcher owns N/k servers with its own board and
	// tally; each part is the model with k = 1.
	Partitioned
)

func (t Tally) String() string {
	switch t {
	case Own:
		return "own"
	case Shared:
		return "shared"
	case Partitioned:
		return "partitioned"
	}
	return fmt.Sprintf("tally(%d)", int(t))
}

// MaxK bounds the number of dispatchers.
const MaxK = 1000

// Model is the stale load board with K dispatchers at N → ∞: jobs arrive
// at rate λ per server, the board of queue lengths is refreshed every
// Period, and each dispatcher sends to the server of least board value
// plus what it (Own), or everyone (Shared), sent since the refresh.
type Model struct {
	// K is the number of dispatchers, 1..MaxK.
	K int
	// Load is λ, 0 < λ < 1.
	Load float64
	// Period is the refresh period T > 0 of the map, its fixed points and
	// attractors. Edge searches over T: there Period must be 0.
	Period float64
	// Tally is what the dispatchers add to the board (default Own).
	Tally Tally
	// Servers is N, the number of servers of a finite system, or 0 for
	// N → ∞ (the default). The map, its fixed points and its attractors
	// are N → ∞ objects and take 0; Edge and TipProbability with N > 0
	// compute the finite-N edge and tipping probabilities.
	Servers int
}

// Bounds of the finite-N inputs.
const (
	// MaxServers bounds Model.Servers.
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

// Validate checks the parameters; the *param.Error names the field. It
// allows Period = 0 (Edge's model); the entry points that iterate the map
// require Period > 0.
func (m *Model) Validate() error {
	if m.K < 1 || m.K > MaxK {
		return param.Errorf("K", "%d dispatchers, want 1..%d", m.K, MaxK)
	}
	if !param.Finite(m.Load) || m.Load <= 0 || m.Load >= 1 {
		return param.Errorf("Load", "λ = %v, want 0 < λ < 1 (the board model needs a stable system)", m.Load)
	}
	if !param.Finite(m.Period) || m.Period < 0 {
		return param.Errorf("Period", "T = %v, want a finite refresh period > 0", m.Period)
	}
	if m.Tally < Own || m.Tally > Partitioned {
		return param.Errorf("Tally", "unknown tally %d", int(m.Tally))
	}
	if m.Servers < 0 || m.Servers > MaxServers {
		return param.Errorf("Servers", "N = %d, want 0 (N → ∞) or 1..%d", m.Servers, MaxServers)
	}
	return nil
}

// MinPeriod and MaxPeriod bound the refresh period of the map. Below
// MinPeriod a period holds so few arrivals per server that the map's
// quadrature loses the mean time in system (it falls below the mean size
// 1 at T = 0.001); the cost of one evaluation grows with T (about T^1.1
// between 1,100 and 3,000, see doc.go), so MaxPeriod bounds it, and
// Attractor, which iterates thousands of periods, has the lower bound
// MaxAttractorPeriod (conservative since the window evolution; it could
// be raised).
const (
	MinPeriod          = 0.01
	MaxPeriod          = 1e6
	MaxAttractorPeriod = 5000
)

// validatePeriod is Validate plus Period > 0.
func (m *Model) validatePeriod() error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.Period == 0 {
		return param.Errorf("Period", "T = 0, want a finite refresh period > 0")
	}
	return nil
}

// validateMap is validatePeriod plus Servers = 0: the map is an N → ∞
// object.
func (m *Model) validateMap() error {
	if err := m.validatePeriod(); err != nil {
		return err
	}
	if m.Period < MinPeriod || m.Period > MaxPeriod {
		return param.Errorf("Period", "T = %v, want %v ≤ T ≤ %v mean service times (below, a period holds too few arrivals for the map's quadrature; above, one evaluation costs minutes)", m.Period, MinPeriod, MaxPeriod)
	}
	if m.Servers != 0 {
		return param.Errorf("Servers", "N = %d: the refresh-period map is the N → ∞ limit; leave Servers 0", m.Servers)
	}
	return nil
}

// MapK is the k of the refresh-period map that describes the model: K
// with own tallies, 1 with a shared tally or partitioned dispatchers.
func (m *Model) MapK() int {
	if m.Tally == Own {
		return m.K
	}
	return 1
}

// Scale is (1 − λ)², the factor that makes refresh periods comparable
// across loads: the edge is reported as T*·(1 − λ)².
func (m *Model) Scale() float64 { return (1 - m.Load) * (1 - m.Load) }

// Mean is Σ b·p_b, the mean queue length of a board distribution p.
func Mean(p []float64) float64 {
	var s float64
	for b, x := range p {
		s += float64(b) * x
	}
	return s
}
