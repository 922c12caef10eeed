package queues

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Curve is a theory curve: a policy's mean time in system (or any other
// value) as a function of one parameter — a refresh period T, a load, an
// SCV. An error means the curve could not be computed there.
type Curve func(x float64) (float64, error)

// Constant is the curve that is v everywhere (a policy that does not
// depend on the parameter, such as random or round robin against T).
func Constant(v float64) Curve { return func(float64) (float64, error) { return v, nil } }

// CrossingSettings control Crossing. A nil pointer or a zero field means
// the documented default.
type CrossingSettings struct {
	// Run: cancellation, checked between evaluations.
	outcome.Run
	// Grid is the number of points at which f − g is first evaluated to
	// find where it changes sign, spaced geometrically when 0 < lo
	// (evenly otherwise), ends included. Default 8.
	Grid int
	// XTol is the relative width at which the bracket stops shrinking.
	// Default 1e-6.
	XTol float64
	// MaxEval bounds the evaluations of f − g in the root search after
	// the grid. Default 100.
	MaxEval int
}

// CrossingResult is where f first crosses g from below.
type CrossingResult struct {
	// Outcome: EdgeFound when f − g changes sign in [lo, hi] and the
	// crossing is bracketed to XTol; AboveRange when f stays below g at
	// every grid point (the crossing, if any, is above hi); NoEdge when f
	// is above g already at lo (no crossing from below in the range);
	// NonFinite when a curve gave NaN or ±Inf; IterationLimit when
	// MaxEval evaluations did not reach XTol; Interrupted when the Context
	// ended or a curve returned an *outcome.StatusError with Status
	// Interrupted (Grid and Diff then hold the points finished).
	// Evaluations counts the points at which both curves were evaluated.
	outcome.Outcome
	// X is the crossing (the midpoint of Bracket), F and G the curves'
	// values there.
	X, F, G float64
	// Bracket holds the crossing: f − g ≤ 0 at Bracket[0] and > 0 at
	// Bracket[1]. Without a crossing it is the grid cell nearest to one
	// (the range's end).
	Bracket [2]float64
	// Grid is the first scan, Diff f − g at each of its points.
	Grid, Diff []float64
}

// Crossing finds the smallest x in [lo, hi] where f(x) − g(x) changes
// sign from ≤ 0 to > 0: the parameter at which policy f becomes worse
// than policy g (a staleness budget when x is a refresh period). It scans
// a grid for the first sign change, then shrinks that cell with Brent's
// zeroin (Brent, Algorithms for Minimization without Derivatives, ch. 4),
// which needs only that f − g be continuous on the cell. A curve that is
// only piecewise smooth (a stale board's mean time changes branch) is
// fine; one that jumps has its jump reported as the crossing. Crossings
// between two grid points that cancel out (f rises above g and falls back)
// are not seen: Grid sets the resolution.
func Crossing(f, g Curve, lo, hi float64, s *CrossingSettings) (*CrossingResult, error) {
	start := time.Now()
	if !param.Finite(lo) || !param.Finite(hi) || !(lo < hi) {
		return nil, param.Errorf("Range", "[%v, %v], want finite lo < hi", lo, hi)
	}
	if f == nil || g == nil {
		return nil, param.Errorf("Curve", "missing curve")
	}
	grid, xtol, maxEval := 8, 1e-6, 100
	var run outcome.Run
	if s != nil {
		grid, xtol, maxEval = param.Or(s.Grid, 8), param.Or(s.XTol, 1e-6), param.Or(s.MaxEval, 100)
		run = s.Run
	}
	if grid < 2 || grid > 10_000 {
		return nil, param.Errorf("Grid", "%d points, want 2..10,000", grid)
	}
	if !param.Finite(xtol) || xtol <= 0 || xtol >= 1 {
		return nil, param.Errorf("XTol", "%v, want in (0, 1)", xtol)
	}
	if maxEval < 1 || maxEval > 100_000 {
		return nil, param.Errorf("MaxEval", "%d, want 1..100,000", maxEval)
	}
	res := &CrossingResult{}
	var evalErr error
	diff := func(x float64) float64 {
		res.Evaluations++
		a, err := f(x)
		if err != nil {
			evalErr = fmt.Errorf("first curve at %v: %w", x, err)
			return math.NaN()
		}
		b, err := g(x)
		if err != nil {
			evalErr = fmt.Errorf("second curve at %v: %w", x, err)
			return math.NaN()
		}
		return a - b
	}
	done := func(st outcome.Status) (*CrossingResult, error) {
		res.Status = st
		res.Elapsed = time.Since(start)
		var se *outcome.StatusError
		if errors.As(evalErr, &se) && se.Status == outcome.Interrupted {
			// A curve stopped by the run's context: what was finished is
			// the answer so far.
			res.Status, evalErr = outcome.Interrupted, nil
			if n := len(res.Diff); n > 0 && !param.Finite(res.Diff[n-1]) {
				res.Grid, res.Diff = res.Grid[:n-1], res.Diff[:n-1]
			}
		}
		if evalErr != nil {
			return nil, evalErr
		}
		return res, nil
	}
	for i := range grid {
		var x float64
		t := float64(i) / float64(grid-1)
		if lo > 0 {
			x = lo * math.Pow(hi/lo, t)
		} else {
			x = lo + (hi-lo)*t
		}
		if i == grid-1 {
			x = hi
		}
		if run.Stopped() {
			return done(outcome.Interrupted)
		}
		d := diff(x)
		res.Grid, res.Diff = append(res.Grid, x), append(res.Diff, d)
		if evalErr != nil || !param.Finite(d) {
			return done(outcome.NonFinite)
		}
		if d > 0 {
			if i == 0 {
				res.Bracket = [2]float64{x, x}
				res.X = x
				return done(outcome.NoEdge)
			}
			a, b := res.Grid[i-1], x
			fa, fb := res.Diff[i-1], d
			res.Bracket = [2]float64{a, b}
			return res.shrink(diff, a, b, fa, fb, xtol, maxEval, f, g, done, &evalErr)
		}
	}
	res.Bracket = [2]float64{res.Grid[grid-2], hi}
	res.X = hi
	return done(outcome.AboveRange)
}

// shrink narrows [a, b] (f − g ≤ 0 at a, > 0 at b) with Brent's method,
// then bisects once more so that the returned bracket keeps the signs.
func (res *CrossingResult) shrink(diff func(float64) float64, a, b, fa, fb, xtol float64, maxEval int, f, g Curve, done func(outcome.Status) (*CrossingResult, error), evalErr *error) (*CrossingResult, error) {
	tol := xtol * math.Max(math.Abs(a), math.Abs(b))
	x, _, ok := brent(diff, a, b, fa, fb, tol, maxEval)
	if *evalErr != nil {
		return done(outcome.NonFinite)
	}
	// A bracket of width tol around x with the signs of [a, b].
	lo, hi := math.Max(a, x-tol), math.Min(b, x+tol)
	dl, dh := diff(lo), diff(hi)
	switch {
	case *evalErr != nil || !param.Finite(dl) || !param.Finite(dh):
		return done(outcome.NonFinite)
	case dl <= 0 && dh > 0:
		res.Bracket = [2]float64{lo, hi}
	case dl > 0:
		res.Bracket = [2]float64{a, lo}
	default:
		res.Bracket = [2]float64{hi, b}
	}
	res.X = (res.Bracket[0] + res.Bracket[1]) / 2
	fx, err1 := f(res.X)
	gx, err2 := g(res.X)
	if err1 != nil || err2 != nil || !param.Finite(fx) || !param.Finite(gx) {
		if err1 != nil {
			*evalErr = err1
		} else if err2 != nil {
			*evalErr = err2
		}
		return done(outcome.NonFinite)
	}
	res.F, res.G = fx, gx
	if !ok || res.Bracket[1]-res.Bracket[0] > 2*tol+8*2.220446049250313e-16*math.Abs(x) {
		return done(outcome.IterationLimit)
	}
	return done(outcome.EdgeFound)
}
