package queues_test

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/queues"
)

// A farm of 100 servers at load 0.9: round robin (each server E_100/M/1),
// the least-work oracle with H2 sizes of SCV 30 (the M/H2/100 queue) and
// least loaded with exponential sizes (the exact occupancy chain).
func Example() {
	h2 := farm.Sizes{Kind: farm.H2, SCV: 30}
	rr, err := queues.SolveRoundRobin(&queues.RoundRobin{Servers: 100, Load: 0.9}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("round robin:      E[T] = %.4g, P(wait) = %.4g (%v)\n", rr.Sojourn, rr.WaitProb, rr.Status)
	lw, err := queues.SolveLeastWork(&queues.LeastWork{Servers: 100, Load: 0.9, Sizes: h2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("least work, FCFS: E[T] = %.4g, P(wait) = %.4g (%v)\n", lw.Sojourn, lw.WaitProb, lw.Status)
	jsq, err := queues.SolveJSQ(&queues.JSQ{Servers: 100, Load: 0.9}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("least loaded:     E[T] = %.4g, P(wait) = %.4g (%v)\n", jsq.Sojourn, jsq.WaitProb, jsq.Status)
	// Output:
	// round robin:      E[T] = 5.227, P(wait) = 0.8087 (exact)
	// least work, FCFS: E[T] = 1.16, P(wait) = 0.2503 (converged)
	// least loaded:     E[T] = 1.067, P(wait) = 0.06665 (exact)
}

// How long a board of counts stays true under random dispatch: the
// correlation of a PS server's count with its count τ earlier.
func ExampleSolveCorrelation() {
	for _, z := range []farm.Sizes{{}, {Kind: farm.H2, SCV: 30}} {
		r, err := queues.SolveCorrelation(&queues.Correlation{Load: 0.9, Discipline: farm.PS, Sizes: z, Lags: []float64{100, 500}}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: ρ(100) = %.3f, ρ(500) = %.3f; giants are %.2g of the jobs present\n", z, r.Correlations[0], r.Correlations[1], r.GiantShare)
	}
	// Output:
	// exp: ρ(100) = 0.525, ρ(500) = 0.089; giants are 0 of the jobs present
	// h2:30: ρ(100) = 0.868, ρ(500) = 0.724; giants are 0.5 of the jobs present
}

// Where a curve first rises above another: here x² above 2.
func ExampleCrossing() {
	r, err := queues.Crossing(func(x float64) (float64, error) { return x * x, nil }, queues.Constant(2), 0.1, 10, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at %.5f\n", r.Status, r.X)
	// Output: edge found at 1.41421
}

// A staleness budget: the refresh period from which least loaded on a
// board (the N → ∞ periodic-update attractor) does worse than round
// robin at N = 100, exponential sizes.
func ExampleNewPolicyCurve() {
	f := queues.Farm{Servers: 100, Load: 0.9}
	ll, err := queues.NewPolicyCurve(farm.Policy{Kind: farm.BoardJSQ}, f, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rr, err := queues.NewPolicyCurve(farm.Policy{Kind: farm.RoundRobin}, f, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := queues.Crossing(ll.Curve(), rr.Curve(), 0.25, 50, &queues.CrossingSettings{Grid: 10, XTol: 1e-3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at T = %.3g, where both take %.4g\n", r.Status, r.X, r.G)
	// Output: edge found at T = 1.76, where both take 5.227
}
