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
	// EventStop at t = 0.6931471806 (ln 2 = 0.6931471806), y = 0.5
}
