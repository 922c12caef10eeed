package param

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestShares(t *testing.T) {
	cases := []struct {
		alpha, beta []float64
		param       string // "" = valid
	}{
		{[]float64{0.5, 0.5}, nil, ""},
		{[]float64{0.5, 0.5 + 5e-10}, nil, ""},
		{[]float64{0.5, 0.5}, []float64{1, 0}, ""},
		{nil, nil, "Alpha"},
		{[]float64{0.5, 0.6}, nil, "Alpha"},
		{[]float64{1, 0}, nil, "Alpha"},
		{[]float64{math.NaN(), 1}, nil, "Alpha"},
		{[]float64{0.5, 0.5}, []float64{1}, "Beta"},
		{[]float64{0.5, 0.5}, []float64{-1, 2}, "Beta"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v %v", c.alpha, c.beta), func(t *testing.T) {
			err := Shares(c.alpha, c.beta)
			var pe *Error
			switch {
			case c.param == "" && err != nil:
				t.Errorf("%v %v: unexpected %v", c.alpha, c.beta, err)
			case c.param != "" && (!errors.As(err, &pe) || pe.Param != c.param):
				t.Errorf("%v %v: %v, want an error naming %s", c.alpha, c.beta, err, c.param)
			}
		})
	}
}

func TestOrAndPositive(t *testing.T) {
	if Or(0.0, 3.0) != 3 || Or(2.0, 3.0) != 2 || Or(0, 7) != 7 || Or("", "x") != "x" {
		t.Error("Or")
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			var pe *Error
			if err := Positive("Tol", v); !errors.As(err, &pe) || pe.Param != "Tol" {
				t.Errorf("Positive(%v): %v", v, err)
			}
		})
	}
	if Positive("Tol", 1e-300) != nil {
		t.Error("1e-300 is positive")
	}
}

func TestAllFinite(t *testing.T) {
	if !AllFinite(nil) || !AllFinite([]float64{0, -1e308, 5e-324}) {
		t.Error("finite vectors reported non-finite")
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		t.Run(fmt.Sprint(x), func(t *testing.T) {
			if AllFinite([]float64{1, x, 2}) {
				t.Errorf("%v reported finite", x)
			}
		})
	}
}
