package meanfield_test

import (
	"fmt"

	"github.com/fluidlb/fluid/meanfield"
)

// Theorem 1 of seed 004: with loads (0.7, 0.3) at λ = 0.5, the lighter
// dispatcher hoards the tokens and 40% of the jobs are blocked.
func ExampleJIQ_Limit() {
	m := &meanfield.JIQ{Scenario: meanfield.Blocking, Load: 0.5, Alpha: []float64{0.7, 0.3}}
	lim, err := m.Limit()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("blocking %.4g, busy %.4g, tokens %.4g, %v\n", lim.Blocking, lim.Busy, lim.Tokens, lim.Stability.Verdict)
	fmt.Printf("token exchange removes blocking from ν* = %.4g\n", lim.NuStar)
	// Output:
	// blocking 0.4, busy 0.3, tokens [0 0.7], stable
	// token exchange removes blocking from ν* = 0.4
}

// The queueing scenario's counterexample of SPEC §3.4: at λ = 0.5 the mean
// wait depends on more than λ and the smallest share.
func ExampleJIQ_Limit_queueing() {
	for _, alpha := range [][]float64{{0.6, 0.2, 0.2}, {0.4, 0.4, 0.2}} {
		m := &meanfield.JIQ{Scenario: meanfield.Queueing, Load: 0.5, Alpha: alpha}
		lim, err := m.Limit()
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
// heavier dispatcher's pool empties at t₁ = 2.672669 (SPEC §3.4).
func ExampleJIQ_Trajectory() {
	m := &meanfield.JIQ{Scenario: meanfield.Blocking, Load: 0.5, Alpha: []float64{0.7, 0.3}}
	res, err := m.Trajectory(&meanfield.JIQState{Tokens: []float64{0.5, 0.5}}, 20, &meanfield.TrajectorySettings{
		Times: []float64{1, 5, 20},
		Output: func(p *meanfield.JIQPoint) error {
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
	// Output:
	// t = 1: busy 0.3161, blocking 0
	// t = 5: busy 0.3517, blocking 0.3483
	// t = 20: busy 0.3, blocking 0.4
	// dispatcher 1's pool empties at t = 2.672669
}

// The fluid ODE's long-time limit agrees with the closed-form limit: token
// exchange at ν = 1 on the default start, λ = 0.9.
func ExampleJIQ_Settle() {
	m := &meanfield.JIQ{Scenario: meanfield.Blocking, Load: 0.9, Alpha: []float64{0.7, 0.3}, Exchange: 1}
	s, err := m.Settle(nil, 0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	lim, err := m.Limit()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ODE: blocking %.6f; closed form: %.6f\n", s.Blocking, lim.Blocking)
	// Output:
	// ODE: blocking 0.144444; closed form: 0.144444
}

// The balanced board of five dispatchers at 90% load with a board
// refreshed every 400 service times (SPEC §1.3: mean board 5.49).
func ExampleRefreshMap_FixedPoint() {
	m, err := meanfield.NewRefreshMap(5, 0.9, 400)
	if err != nil {
		fmt.Println(err)
		return
	}
	fp, err := m.FixedPoint([]float64{1}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: mean board %.4g, mean time in system %.4g, pass %d in progress at T\n",
		fp.Solve.Status, fp.Map.BoardMean, fp.Map.Sojourn, fp.Map.Pass)
	// Output:
	// Converged: mean board 5.489, mean time in system 7.9, pass 77 in progress at T
}

// The tipping edge of five dispatchers at 90% load (SPEC §1.3: 2.90).
func ExampleEdge() {
	r, err := meanfield.Edge(5, 0.9, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T* = %.1f, T*(1−λ)² = %.3f; branch %d ends by %v (spectral radius %.2f)\n",
		r.Period, r.Scaled, r.Branch, r.Mechanism, r.Radius)
	// Output:
	// T* = 289.9, T*(1−λ)² = 2.899; branch 59 ends by border collision (spectral radius 0.54)
}

// Best of two at λ = 0.9 with processor sharing and H2 sizes of SCV 30,
// solved on the (small, giant) server state: the mean time in system is
// the exponential one (PS is insensitive), and under FCFS it grows.
func ExampleJSQd() {
	for _, m := range []*meanfield.JSQd{
		{D: 2, Load: 0.9},
		{D: 2, Load: 0.9, Discipline: meanfield.PS, SCV: 30},
		{D: 2, Load: 0.9, Discipline: meanfield.FCFS, SCV: 30},
	} {
		res, err := m.FixedPoint()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v SCV %g: mean time in system %.4f, stable %v\n", m.Discipline, max(m.SCV, 1), res.Sojourn, res.Abscissa < 0)
	}
	// Output:
	// fcfs SCV 1: mean time in system 2.6141, stable true
	// ps SCV 30: mean time in system 2.6141, stable true
	// fcfs SCV 30: mean time in system 14.7937, stable true
}
