package param

import (
	"errors"
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
		{nil, nil, "alpha"},
		{[]float64{0.5, 0.6}, nil, "alpha"},
		{[]float64{1, 0}, nil, "alpha"},
		{[]float64{math.NaN(), 1}, nil, "alpha"},
		{[]float64{0.5, 0.5}, []float64{1}, "beta"},
		{[]float64{0.5, 0.5}, []float64{-1, 2}, "beta"},
	}
	for _, c := range cases {
		err := Shares(c.alpha, c.beta)
		var pe *Error
		switch {
		case c.param == "" && err != nil:
			t.Errorf("%v %v: unexpected %v", c.alpha, c.beta, err)
		case c.param != "" && (!errors.As(err, &pe) || pe.Param != c.param):
			t.Errorf("%v %v: %v, want an error naming %s", c.alpha, c.beta, err, c.param)
		}
	}
}
