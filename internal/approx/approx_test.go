package approx_test

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
)

func TestEqual(t *testing.T) {
	for _, c := range []struct {
		name                string
		got, want, abs, rel float64
		agree               bool
	}{
		{"exact", 1, 1, 0, 0, true},
		{"within abs", 1e-13, 0, 1e-12, 0, true},
		{"beyond abs", 2e-12, 0, 1e-12, 0, false},
		{"within rel", 100.5, 100, 0, 0.01, true},
		{"beyond rel", 102, 100, 0, 0.01, false},
		{"abs and rel add", 101.5, 100, 1, 0.01, true},
		{"NaN got", math.NaN(), 1, 1e300, 1e300, false},
		{"NaN want", 1, math.NaN(), 1e300, 1e300, false},
		{"Inf got", math.Inf(1), math.Inf(1), 0, 0, false},
		{"Inf want", 1, math.Inf(-1), 1e300, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := approx.Equal(c.got, c.want, c.abs, c.rel); got != c.agree {
				t.Errorf("Equal(%v, %v, %v, %v) = %v", c.got, c.want, c.abs, c.rel, got)
			}
		})
	}
}

// recorder counts failures instead of failing.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestCheckFails(t *testing.T) {
	r := &recorder{TB: t}
	if approx.Check(r, "x", math.NaN(), 0, 1, 1) || r.errors != 1 {
		t.Error("a NaN passed Check")
	}
	if approx.Slices(r, "v", []float64{1, 2}, []float64{1}, 1, 1) || r.errors != 2 {
		t.Error("slices of different lengths passed")
	}
	if approx.Slices(r, "v", []float64{1, 3}, []float64{1, 2}, 0, 0.1) || r.errors != 3 {
		t.Error("a differing element passed")
	}
	if approx.Within(r, "p", 1.5, 0, 1) || r.errors != 4 {
		t.Error("a value outside its range passed")
	}
	if !approx.Check(r, "x", 1, 1, 0, 0) || !approx.Slices(r, "v", []float64{1}, []float64{1}, 0, 0) || !approx.Within(r, "p", 0.5, 0, 1) || r.errors != 4 {
		t.Error("agreeing values failed")
	}
}
