package jiq_test

import (
	"fmt"

	"github.com/fluidlb/fluid/meanfield/jiq"
)

// Theorem 1: with loads (0.7, 0.3) at λ = 0.5, the lighter dispatcher
// hoards the tokens and 40% of the jobs are blocked.
func ExampleLimit() {
	m := &jiq.Model{Scenario: jiq.Blocking, Load: 0.5, Alpha: []float64{0.7, 0.3}}
	lim, err := jiq.Limit(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("blocking %.4g, busy %.4g, tokens %.4g, %v\n", lim.Blocking, lim.Busy, lim.Tokens, lim.Stability.Class)
	fmt.Printf("token exchange removes blocking from ν* = %.4g\n", lim.NuStar)
	// Output:
	// blocking 0.4, busy 0.3, tokens [0 0.7], stable
	// token exchange removes blocking from ν* = 0.4
}

// The queueing scenario with three dispatchers: at λ = 0.5 the mean wait
// depends on more than λ and the smallest share.
func ExampleLimit_queueing() {
	for _, alpha := range [][]float64{{0.6, 0.2, 0.2}, {0.4, 0.4, 0.2}} {
		lim, err := jiq.Limit(&jiq.Model{Scenario: jiq.Queueing, Load: 0.5, Alpha: alpha})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("α = %v: E[W] = %.4g, sent at random %.4g\n", alpha, lim.MeanWait, lim.FractionRandom)
	}
	// Output:
	// α = [0.6 0.2 0.2]: E[W] = 0.1905, sent at random 0.32
	// α = [0.4 0.4 0.2]: E[W] = 0.1111, sent at random 0.2
}

// The fluid trajectory of the blocking scenario from x = (0, ½, ½): the
// heavier dispatcher's pool empties at t₁ = 2.672669 (closed form).
func ExampleTrajectory() {
	m := &jiq.Model{Scenario: jiq.Blocking, Load: 0.5, Alpha: []float64{0.7, 0.3}}
	res, err := jiq.Trajectory(m, &jiq.TrajectorySettings{
		Start: &jiq.State{Tokens: []float64{0.5, 0.5}},
		Until: 20,
		Times: []float64{1, 5, 20},
		Output: func(p *jiq.Point) error {
			fmt.Printf("t = %g: busy %.4g, blocking %.4g\n", p.T, p.Busy, p.Blocking)
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Switches {
		fmt.Printf("dispatcher %d's pool empties at t = %.6f\n", s.Dispatcher+1, s.T)
	}
	fmt.Println(res.Status)
	// Output:
	// t = 1: busy 0.3161, blocking 0
	// t = 5: busy 0.3517, blocking 0.3483
	// t = 20: busy 0.3, blocking 0.4
	// dispatcher 1's pool empties at t = 2.672669
	// converged
}

// The fluid ODE's long-time limit agrees with the closed-form limit: token
// exchange at ν = 1 on the default start, λ = 0.9.
func ExampleSettle() {
	m := &jiq.Model{Scenario: jiq.Blocking, Load: 0.9, Alpha: []float64{0.7, 0.3}, Exchange: 1}
	s, err := jiq.Settle(m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	lim, err := jiq.Limit(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ODE (%v): blocking %.6f; closed form: %.6f\n", s.Status, s.Blocking, lim.Blocking)
	// Output:
	// ODE (converged): blocking 0.144444; closed form: 0.144444
}
