// Package param validates model parameters that come from users, with
// errors that name the Go struct field holding the parameter (Load, Alpha,
// Servers, …). Only the command line knows its flags: it maps field names
// to flag names.
package param

import (
	"fmt"
	"math"
)

// Error reports an invalid parameter. Param is the name of the struct
// field that holds it (Load, Alpha, Beta, Servers, …).
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

// AllFinite reports whether every entry of v is Finite (true for none).
func AllFinite(v []float64) bool {
	for _, x := range v {
		if !Finite(x) {
			return false
		}
	}
	return true
}

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
		return Errorf("Alpha", "no dispatchers: give at least one arrival share")
	}
	if err := Distribution("Alpha", alpha, true); err != nil {
		return err
	}
	if beta == nil {
		return nil
	}
	if len(beta) != len(alpha) {
		return Errorf("Beta", "%d entries for %d dispatchers (alpha has %d)", len(beta), len(alpha), len(alpha))
	}
	return Distribution("Beta", beta, false)
}

// Or returns v, or def where v is the zero value: the settings convention
// that a zero field means the documented default.
func Or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Positive returns an *Error naming name unless v is finite and > 0.
func Positive(name string, v float64) error {
	if !Finite(v) || v <= 0 {
		return Errorf(name, "%v, want a finite number > 0", v)
	}
	return nil
}
