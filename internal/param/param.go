// Package param validates model parameters that come from users, with
// errors that name the parameter the way the command line spells it.
package param

import (
	"fmt"
	"math"
)

// Error reports an invalid parameter. Param is the parameter's name as the
// command line spells it (load, alpha, beta, servers, …).
type Error struct {
	Param string
	Msg   string
}

func (e *Error) Error() string { return e.Param + ": " + e.Msg }

// Errorf returns an *Error for param.
func Errorf(param, format string, a ...any) error {
	return &Error{Param: param, Msg: fmt.Sprintf(format, a...)}
}

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// SumTol is how far a probability vector's sum may be from 1.
const SumTol = 1e-9

// Distribution checks that v is a probability vector: finite entries, each
// non-negative (positive if positive is set), summing to 1 within SumTol.
func Distribution(name string, v []float64, positive bool) error {
	if len(v) == 0 {
		return Errorf(name, "no entries")
	}
	var sum float64
	for i, x := range v {
		if !Finite(x) {
			return Errorf(name, "entry %d is %v, want a finite number", i+1, x)
		}
		if x < 0 || (positive && x == 0) {
			want := "non-negative"
			if positive {
				want = "positive"
			}
			return Errorf(name, "entry %d is %v, want %s", i+1, x, want)
		}
		sum += x
	}
	if math.Abs(sum-1) > SumTol {
		return Errorf(name, "entries sum to %.12g, want 1 (within %g)", sum, SumTol)
	}
	return nil
}

// Shares checks arrival shares alpha (positive, summing to 1) and token
// allotment beta (nil, or non-negative with the same length, summing to 1).
func Shares(alpha, beta []float64) error {
	if len(alpha) == 0 {
		return Errorf("alpha", "no dispatchers: give at least one arrival share")
	}
	if err := Distribution("alpha", alpha, true); err != nil {
		return err
	}
	if beta == nil {
		return nil
	}
	if len(beta) != len(alpha) {
		return Errorf("beta", "%d entries for %d dispatchers (alpha has %d)", len(beta), len(alpha), len(alpha))
	}
	return Distribution("beta", beta, false)
}
