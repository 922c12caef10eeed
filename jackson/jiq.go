package jackson

import (
	"errors"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// ErrNotProductForm is returned for token exchange (ν > 0): moving tokens
// between dispatchers breaks the closed Jackson network's product form, so
// there is no exact finite-N solution here; use the fluid limit or
// simulation.
var ErrNotProductForm = errors.New("token exchange (ν > 0) breaks the product form: no exact finite-N solution; use the fluid limit (fluid jiq --exchange) or simulation")

// JIQ is the blocking scenario of join-the-idle-queue with R dispatchers
// at finite N, basic (β uniform) or with Enhancement 1 (general β).
type JIQ struct {
	// Servers is N ≥ 1.
	Servers int
	// Load is λ > 0, the arrival rate per server.
	Load float64
	// Alpha are the arrival shares (positive, summing to 1).
	Alpha []float64
	// Beta is the token allotment (non-negative, summing to 1); nil means
	// uniform 1/R.
	Beta []float64
	// Exchange is the token exchange rate ν; it must be 0 (see
	// ErrNotProductForm).
	Exchange float64
}

// JIQResult is the exact stationary behaviour of the blocking JIQ system.
// Per-dispatcher slices are in the order of JIQ.Alpha. Its Status is
// Exact: the product form, without iteration or truncation.
type JIQResult struct {
	outcome.Outcome
	Servers int
	// Blocking is B = Σ_r α_r·P(n_r = 0) (which equals
	// 1 − G(N−1)/(λN·G(N)), computed without that formula's cancellation).
	Blocking float64
	// NoTokens is P(n_r = 0): the probability dispatcher r holds no token.
	NoTokens []float64
	// Busy is E[n₀]/N, the mean fraction of busy servers (= λ(1 − B)).
	Busy float64
	// Tokens is E[n_r]/N, the mean tokens held at dispatcher r per server.
	Tokens []float64
}

// MaxPopulation bounds JIQ.Servers, the tokens circulating in the network.
const MaxPopulation = 10000000

// MaxWork bounds N·R, the cost of one JIQ solve (one level recursion over
// N levels with R pools: about 20 s at the bound).
const MaxWork = 1e10

// Validate checks the parameters (*param.Error names the bad one).
func (m *JIQ) Validate() error {
	if m.Servers < 1 || m.Servers > MaxPopulation {
		return param.Errorf("Servers", "N = %d, want 1..%d", m.Servers, MaxPopulation)
	}
	if !param.Finite(m.Load) || m.Load <= 0 {
		return param.Errorf("Load", "λ = %v, want a finite number > 0", m.Load)
	}
	if err := param.Shares(m.Alpha, m.Beta); err != nil {
		return err
	}
	if w := float64(m.Servers) * float64(len(m.Alpha)); w > MaxWork {
		return param.Errorf("Alpha", "%d dispatchers at N = %d: the solve costs N·R = %.3g steps, more than %.0e (about 20 s)", len(m.Alpha), m.Servers, w, MaxWork)
	}
	if !param.Finite(m.Exchange) || m.Exchange < 0 {
		return param.Errorf("Exchange", "ν = %v, want a finite number ≥ 0", m.Exchange)
	}
	if m.Exchange > 0 {
		return ErrNotProductForm
	}
	return nil
}

func (m *JIQ) beta() []float64 { return farm.Allotment(m.Beta, len(m.Alpha)) }

// Solve computes the exact blocking probability of the model from the
// product form in one pass of O(N·R) operations and O(R) memory, with no
// overflow for any N up to MaxPopulation (see solveJIQ). The product form
// has no numerical knobs, so Solve takes no settings.
func Solve(m *JIQ) (*JIQResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	r := solveJIQ(m)
	r.Elapsed = time.Since(start)
	return r, nil
}
