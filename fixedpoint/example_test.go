package fixedpoint_test

import (
	"fmt"

	"github.com/fluidlb/fluid/fixedpoint"
)

// The stationary law of a two-state Markov chain is the fixed point of
// x ↦ xP; the chain's second eigenvalue 1 − 0.3 − 0.1 = 0.6 is the
// Jacobian's only eigenvalue on zero-sum perturbations.
func ExampleSolve() {
	p := [2][2]float64{{0.7, 0.3}, {0.1, 0.9}}
	phi := func(dst, x []float64) error {
		dst[0] = x[0]*p[0][0] + x[1]*p[1][0]
		dst[1] = x[0]*p[0][1] + x[1]*p[1][1]
		return nil
	}
	res, err := fixedpoint.Solve(phi, []float64{1, 0}, &fixedpoint.Settings{Method: fixedpoint.Anderson})
	if err != nil {
		fmt.Println(err)
		return
	}
	sp, err := fixedpoint.ComputeSpectrum(phi, res.X, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: x = (%.4g, %.4g), spectral radius %.4g\n", res.Status, res.X[0], res.X[1], sp.Radius)
	// Output:
	// converged: x = (0.25, 0.75), spectral radius 0.6
}

// A piecewise-linear family whose stable fixed point hits the border of
// its piece at θ = 0.7 while its slope is still 0.5: a border collision.
func ExampleFollowEnd() {
	g := func(theta, x float64) float64 {
		if x <= 0.6 {
			return 0.5*x + 1 - theta
		}
		return 2*(x-0.6) + 0.3 + 1 - theta
	}
	fam := &fixedpoint.Family{
		Map: func(theta float64) (fixedpoint.Func, error) {
			return func(dst, x []float64) error {
				y := g(theta, x[0])
				dst[0], dst[1] = y, 1-y
				return nil
			}, nil
		},
		Start: func(float64) []float64 { return []float64{0.5, 0.5} },
		Border: func(_ float64, x []float64) (int, float64) {
			if x[0] <= 0.6 {
				return 0, 0.6 - x[0]
			}
			return 1, x[0] - 0.6
		},
	}
	end, err := fixedpoint.FollowEnd(fam, &fixedpoint.EndSettings{Hi: 0.99, Lo: 0.3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at θ = %.4f, spectral radius %.2g\n", end.Mechanism, end.Collision, end.Spectrum.Radius)
	// Output:
	// border collision at θ = 0.7000, spectral radius 0.5
}
