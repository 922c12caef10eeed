package ode_test

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/ode"
)

// Exponential decay y' = −y, stopped where y crosses 1/2 (at t = ln 2).
func ExampleSolve() {
	p := ode.Problem{
		Func: func(dy []float64, _ float64, y []float64) { dy[0] = -y[0] },
		Events: []ode.Event{{
			G:         func(_ float64, y []float64) float64 { return y[0] - 0.5 },
			Direction: ode.Falling,
		}},
	}
	res, err := ode.Solve(p, []float64{1}, 0, 10, &ode.Settings{RTol: 1e-10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at t = %.10f (ln 2 = %.10f), y = %.4g\n", res.Status, res.T, math.Ln2, res.Y[0])
	// Output:
	// stopped by an event at t = 0.6931471806 (ln 2 = 0.6931471806), y = 0.5
}

// An Integrator reuses its work space: here a harmonic oscillator is
// integrated over one period from two starting points without allocating
// per step, with output at a requested time.
func ExampleIntegrator() {
	p := ode.Problem{Func: func(dy []float64, _ float64, y []float64) {
		dy[0], dy[1] = y[1], -y[0]
	}}
	// r rounds to 4 decimals and turns −0 into 0 for printing.
	r := func(x float64) float64 { return math.Round(x*1e4)/1e4 + 0 }
	it, err := ode.NewIntegrator(p, 2, &ode.Settings{
		RTol:        1e-10,
		OutputTimes: []float64{math.Pi / 2},
		Output: func(t float64, y []float64) error {
			fmt.Printf("y(π/2) = (%.4f, %.4f)\n", r(y[0]), r(y[1]))
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, y0 := range [][]float64{{1, 0}, {0, 1}} {
		y := append([]float64(nil), y0...)
		res, err := it.Solve(y, 0, 2*math.Pi)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("from %v: y(2π) = (%.4f, %.4f), %v\n", y0, r(y[0]), r(y[1]), res.Status)
	}
	// Output:
	// y(π/2) = (0.0000, -1.0000)
	// from [1 0]: y(2π) = (1.0000, 0.0000), converged
	// y(π/2) = (1.0000, 0.0000)
	// from [0 1]: y(2π) = (0.0000, 1.0000), converged
}
