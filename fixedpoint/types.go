package fixedpoint

import (
	"errors"
	"fmt"

	"github.com/fluidlb/fluid/outcome"
)

// Func evaluates a map: it writes Φ(x) into dst (len(dst) == len(x)). An
// error stops the solver and is returned.
type Func func(dst, x []float64) error

// Method selects the fixed-point iteration.
type Method int

const (
	// Picard iterates x ← (1−θ)·x + θ·Φ(x) (θ = Settings.Damping).
	Picard Method = iota
	// Anderson is Anderson acceleration (type II, Walker & Ni, SIAM J.
	// Numer. Anal. 49, 2011) with Settings.Memory past residuals.
	Anderson
	// Newton solves (I − J)δ = Φ(x) − x on the zero-sum subspace with a
	// forward-difference Jacobian, with backtracking.
	Newton
)

func (m Method) String() string {
	switch m {
	case Picard:
		return "Picard"
	case Anderson:
		return "Anderson"
	case Newton:
		return "Newton"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Settings control Solve. A nil *Settings or a zero field means the
// documented default.
type Settings struct {
	Method Method
	// Tol: stop when ‖Φ(x) − x‖₁ ≤ Tol. Default 1e-10.
	Tol float64
	// MaxIter bounds the iterations. Default 10,000 (Picard), 1,000
	// (Anderson), 50 (Newton).
	MaxIter int
	// Damping is Picard's θ ∈ (0, 1]. Default 1 (plain iteration).
	Damping float64
	// Memory is Anderson's history length. Default 8.
	Memory int
	// Simplex keeps iterates non-negative with the starting total: an
	// extrapolated point (Anderson, Newton) has its negative entries set
	// to zero and is rescaled to the starting total. Picard never needs
	// it if Φ maps the simplex to itself.
	Simplex bool
	// FDStep is the forward-difference step of Newton's Jacobian. Default
	// 1e-7.
	FDStep float64
	// DivergeFactor: the run is declared Diverged when the residual
	// exceeds DivergeFactor times the smallest residual seen. Default 1e6.
	DivergeFactor float64
	// Stagnation, if positive, stops the run with Status Stalled when the
	// best residual has not halved over that many iterations (a solve
	// that wanders near a vanished fixed point, instead of converging).
	// Default 0: off.
	Stagnation int
	// Recorder, if not nil, is called after every iteration.
	Recorder func(iter int, x []float64, residual float64)
}

func (s *Settings) withDefaults() (Settings, error) {
	var r Settings
	if s != nil {
		r = *s
	}
	if r.Tol < 0 || r.Damping < 0 || r.Damping > 1 || r.Memory < 0 || r.MaxIter < 0 || r.FDStep < 0 || r.DivergeFactor < 0 || r.Stagnation < 0 {
		return r, errors.New("fixedpoint: negative setting, or damping above 1")
	}
	if r.Tol == 0 {
		r.Tol = 1e-10
	}
	if r.MaxIter == 0 {
		switch r.Method {
		case Anderson:
			r.MaxIter = 1000
		case Newton:
			r.MaxIter = 50
		default:
			r.MaxIter = 10000
		}
	}
	if r.Damping == 0 {
		r.Damping = 1
	}
	if r.Memory == 0 {
		r.Memory = 8
	}
	if r.FDStep == 0 {
		r.FDStep = 1e-7
	}
	if r.DivergeFactor == 0 {
		r.DivergeFactor = 1e6
	}
	return r, nil
}

// ErrDomain, wrapped in an error returned by a Func, says the point is
// outside the map's domain: the solve ends with Status outcome.OutOfDomain
// rather than with an error.
var ErrDomain = errors.New("fixedpoint: point outside the map's domain")

// Result is the outcome of Solve. Its Status is Converged when
// ‖Φ(x) − x‖₁ ≤ Tol; IterationLimit after MaxIter iterations without it;
// Diverged when the residual grew by DivergeFactor over the best seen;
// NonFinite when the map or the iterate produced NaN or ±Inf; Stalled when
// Newton's backtracking could not reduce the residual or the residual
// stagnated (Settings.Stagnation); OutOfDomain when the map reported
// (with ErrDomain) that an iterate left its domain. Evaluations counts the
// evaluations of Φ.
type Result struct {
	outcome.Outcome
	X          []float64 // the last iterate (the fixed point if Converged)
	Residual   float64   // ‖Φ(X) − X‖₁
	Iterations int
	History    []float64 // residual after each iteration
}
