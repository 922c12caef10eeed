// Package approx is the one tolerance test of fluid's tests: two numbers
// agree when |got − want| ≤ abs + rel·|want|, and a NaN or an infinity
// agrees with nothing (a solver that returns NaN fails every check, however
// loose). Tests state why each tolerance is what it is, beside the call.
package approx

import (
	"math"
	"testing"
)

// Equal reports whether got agrees with want within abs + rel·|want|.
// Both must be finite.
func Equal(got, want, abs, rel float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}

// Check fails t (without stopping it) when got does not agree with want
// within abs + rel·|want|, naming what was compared.
func Check(t testing.TB, what string, got, want, abs, rel float64) bool {
	t.Helper()
	if Equal(got, want, abs, rel) {
		return true
	}
	t.Errorf("%s = %.10g, want %.10g (± %.3g + %.3g relative)", what, got, want, abs, rel)
	return false
}

// Slices checks got against want element by element, and their lengths.
func Slices(t testing.TB, what string, got, want []float64, abs, rel float64) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return false
	}
	ok := true
	for i := range got {
		if !Equal(got[i], want[i], abs, rel) {
			t.Errorf("%s[%d] = %.10g, want %.10g (± %.3g + %.3g relative)", what, i, got[i], want[i], abs, rel)
			ok = false
		}
	}
	return ok
}

// Within checks that got lies in [lo, hi] (and is finite).
func Within(t testing.TB, what string, got, lo, hi float64) bool {
	t.Helper()
	if got >= lo && got <= hi && !math.IsInf(got, 0) {
		return true
	}
	t.Errorf("%s = %.10g, want it in [%.10g, %.10g]", what, got, lo, hi)
	return false
}
