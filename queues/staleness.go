package queues

import (
	"fmt"
	"sync"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/outcome"
)

// Farm is what every policy curve shares: the servers, their load,
// discipline and job sizes.
type Farm struct {
	// Servers N for the finite-N policies (random, round robin, least
	// work, least loaded on live counts); 0 where none is used. The
	// policies on a board and best of d on live counts are N → ∞ mean
	// fields.
	Servers int
	// Load is λ per server.
	Load float64
	// Discipline of the servers; Sizes the job-size law (exponential or
	// H2).
	Discipline farm.Discipline
	Sizes      farm.Sizes
}

// CurvePoint is one value of a policy's curve.
type CurvePoint struct {
	// T is the refresh period, Sojourn the mean time in system there.
	T, Sojourn float64
	// Status is how it was computed: FixedPoint or Cycle for a board's
	// attractor, NotSettled for a board whose orbit did not settle
	// (Sojourn is then the average of its last periods, Spread their
	// standard deviation), Exact or Converged for a policy that does not
	// read a board.
	Status outcome.Status
	Spread float64
}

// PolicyCurve is a policy's mean time in system as a function of the
// refresh period T of its board, with how each value was computed.
type PolicyCurve struct {
	// Policy is the policy; Method how its values are computed;
	// Approximate reports an approximation (see the solver).
	Policy      farm.Policy
	Method      string
	Approximate bool
	// Constant is true for a policy that reads no board (its value does
	// not depend on T).
	Constant bool

	farm   Farm
	set    bestofd.AttractorSettings
	value  float64 // a constant policy's
	mu     sync.Mutex
	points []CurvePoint
}

// NewPolicyCurve prepares the curve of policy p on farm f: board-jsqd:D
// and board-jsq by bestofd.Attractor with the settings set (nil: its
// defaults); random, rr, least-work and jsq (at f.Servers) and jsqd:D
// (the live mean field) solved once, here, as the constant they are.
// A policy or farm the solvers refuse is an error (a *param.Error).
func NewPolicyCurve(p farm.Policy, f Farm, set *bestofd.AttractorSettings) (*PolicyCurve, error) {
	c := &PolicyCurve{Policy: p, farm: f, Constant: true}
	if set != nil {
		c.set = *set
	}
	var r *Result
	var err error
	switch p.Kind {
	case farm.BoardJSQd, farm.BoardJSQ:
		c.Constant = false
		c.Method = "periodic-update mean field (N → ∞)"
		m := &bestofd.PeriodicUpdate{D: p.D, Load: f.Load, Period: 1, Discipline: f.Discipline, Sizes: f.Sizes}
		if err := m.Validate(); err != nil {
			return nil, err
		}
		return c, nil
	case farm.JSQd:
		fp, err := bestofd.FixedPoint(&bestofd.Model{D: p.D, Load: f.Load, Discipline: f.Discipline, Sizes: f.Sizes}, nil)
		if err != nil {
			return nil, err
		}
		if err := fp.Status.Err(); err != nil {
			return nil, fmt.Errorf("%v: %w", p, err)
		}
		c.value, c.Method = fp.Sojourn, "mean field (N → ∞)"
		return c, nil
	case farm.Random:
		r, err = SolveRandom(&Random{Servers: max(f.Servers, 1), Load: f.Load, Discipline: f.Discipline, Sizes: f.Sizes}, nil)
	case farm.RoundRobin:
		var rr *RoundRobinResult
		if rr, err = SolveRoundRobin(&RoundRobin{Servers: f.Servers, Load: f.Load, Discipline: f.Discipline, Sizes: f.Sizes}, nil); rr != nil {
			r = &rr.Result
		}
	case farm.LeastWork:
		var lw *LeastWorkResult
		if lw, err = SolveLeastWork(&LeastWork{Servers: f.Servers, Load: f.Load, Discipline: f.Discipline, Sizes: f.Sizes}, nil); lw != nil {
			r = &lw.Result
		}
	case farm.JSQ:
		var j *JSQResult
		if j, err = SolveJSQ(&JSQ{Servers: f.Servers, Load: f.Load, Discipline: f.Discipline, Sizes: f.Sizes}, nil); j != nil {
			r = &j.Result
		}
	default:
		return nil, param.Errorf("Policy", "%v: no theory curve (random, rr, least-work, jsq, jsqd:D, board-jsqd:D and board-jsq have one)", p)
	}
	if err != nil {
		return nil, err
	}
	if err := r.Status.Err(); err != nil {
		return nil, fmt.Errorf("%v: %w", p, err)
	}
	c.value, c.Method, c.Approximate = r.Sojourn, r.Method, r.Approximate
	return c, nil
}

// Curve is the curve as Crossing takes it. A board's attractor that
// stopped at a limit (its work budget, its truncation) or failed is an
// error, an *outcome.StatusError (Interrupted when the settings' Context
// ended it).
func (c *PolicyCurve) Curve() Curve {
	return func(T float64) (float64, error) {
		if c.Constant {
			c.record(CurvePoint{T: T, Sojourn: c.value, Status: outcome.Exact})
			return c.value, nil
		}
		d := c.Policy.D
		if c.Policy.Kind == farm.BoardJSQ {
			d = 0
		}
		m := &bestofd.PeriodicUpdate{D: d, Load: c.farm.Load, Period: T, Discipline: c.farm.Discipline, Sizes: c.farm.Sizes}
		set := c.set
		res, err := bestofd.Attractor(m, &set)
		if err != nil {
			return 0, err
		}
		switch res.Status {
		case outcome.FixedPoint, outcome.Cycle, outcome.NotSettled:
		default:
			return 0, fmt.Errorf("%v at T = %v: %w", c.Policy, T, res.Status.Err())
		}
		c.record(CurvePoint{T: T, Sojourn: res.Sojourn, Status: res.Status, Spread: res.Spread})
		return res.Sojourn, nil
	}
}

func (c *PolicyCurve) record(p CurvePoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.points = append(c.points, p)
}

// Points returns the values computed so far, in the order computed.
func (c *PolicyCurve) Points() []CurvePoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]CurvePoint(nil), c.points...)
}

// StalenessCell is one cell of the staleness-budget tables of the
// simulation study "Sharing Servers Don't Mind the Giant" (PS servers,
// λ = 0.9, N = 100, H2 sizes): the refresh period T from which Policy,
// reading a board refreshed every T, does worse than Versus, which the
// study reports as the grid cell [Lo, Hi] where its simulated curves
// crossed.
type StalenessCell struct {
	SCV            float64
	Policy, Versus farm.Policy
	Lo, Hi         float64
}

// StalenessStudy is the study's four tables (sizes exponential, SCV 4,
// 10, 30), three crossings each: best of two on a board against random
// and against round robin, least loaded on a board against round robin.
var StalenessStudy = func() []StalenessCell {
	b2, ll := farm.Policy{Kind: farm.BoardJSQd, D: 2}, farm.Policy{Kind: farm.BoardJSQ}
	random, rr := farm.Policy{Kind: farm.Random}, farm.Policy{Kind: farm.RoundRobin}
	var cells []StalenessCell
	for _, r := range []struct{ scv, bRandLo, bRandHi, bRRLo, bRRHi, llLo, llHi float64 }{
		{1, 20, 50, 10, 20, 1, 2},
		{4, 50, 100, 20, 50, 2, 5},
		{10, 100, 200, 100, 200, 5, 10},
		{30, 200, 500, 200, 500, 5, 10},
	} {
		cells = append(cells,
			StalenessCell{r.scv, b2, random, r.bRandLo, r.bRandHi},
			StalenessCell{r.scv, b2, rr, r.bRRLo, r.bRRHi},
			StalenessCell{r.scv, ll, rr, r.llLo, r.llHi})
	}
	return cells
}()

// Sizes is the cell's job-size law.
func (c StalenessCell) Sizes() farm.Sizes {
	if c.SCV == 1 {
		return farm.Sizes{}
	}
	return farm.Sizes{Kind: farm.H2, SCV: c.SCV}
}

// Range is the refresh periods the cell's crossing is searched in,
// chosen from the policy alone, not from the study's answer: best of d
// on a board [1, 2000], least loaded on a board [0.25, 50] (its herd
// costs it more than round robin's whole delay within a few service
// times).
func (c StalenessCell) Range() (lo, hi float64) {
	if c.Policy.Kind == farm.BoardJSQ {
		return 0.25, 50
	}
	return 1, 2000
}

// StalenessResult is a cell computed from theory.
type StalenessResult struct {
	StalenessCell
	// Crossing is where the board policy's curve rises above the other's.
	Crossing *CrossingResult
	// Curve and VersusCurve hold how their values were computed.
	Curve, VersusCurve *PolicyCurve
}

// Inside reports whether the computed crossing lies in the study's cell.
func (r *StalenessResult) Inside() bool {
	return r.Crossing.Status == outcome.EdgeFound && r.Crossing.X >= r.Lo && r.Crossing.X <= r.Hi
}

// SolveStaleness computes a cell's crossing from theory: the board
// policy's N → ∞ periodic-update attractor against the other policy at
// N = 100 (random and round robin exactly), by Crossing over the cell's
// Range with the settings cs (nil: a grid of 10 points, XTol 10⁻³); the
// attractors take set (nil: their defaults). The run's Context, in cs,
// is passed to the attractors too.
func SolveStaleness(c StalenessCell, cs *CrossingSettings, set *bestofd.AttractorSettings) (*StalenessResult, error) {
	f := Farm{Servers: 100, Load: 0.9, Discipline: farm.PS, Sizes: c.Sizes()}
	var cset CrossingSettings
	if cs != nil {
		cset = *cs
	}
	cset.Grid, cset.XTol = param.Or(cset.Grid, 10), param.Or(cset.XTol, 1e-3)
	var aset bestofd.AttractorSettings
	if set != nil {
		aset = *set
	}
	if aset.Context == nil {
		aset.Context = cset.Context
	}
	curve, err := NewPolicyCurve(c.Policy, f, &aset)
	if err != nil {
		return nil, err
	}
	versus, err := NewPolicyCurve(c.Versus, f, &aset)
	if err != nil {
		return nil, err
	}
	lo, hi := c.Range()
	cr, err := Crossing(curve.Curve(), versus.Curve(), lo, hi, &cset)
	if err != nil {
		return nil, err
	}
	return &StalenessResult{StalenessCell: c, Crossing: cr, Curve: curve, VersusCurve: versus}, nil
}
