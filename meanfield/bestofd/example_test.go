package bestofd_test

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/meanfield/bestofd"
)

// Best of two at λ = 0.9 with processor sharing and H2 sizes of SCV 30,
// solved on the (small, giant) server state: the mean time in system is
// the exponential one (PS is insensitive), and under FCFS it grows.
func ExampleFixedPoint() {
	h2 := farm.Sizes{Kind: farm.H2, SCV: 30}
	for _, m := range []*bestofd.Model{
		{D: 2, Load: 0.9},
		{D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2},
		{D: 2, Load: 0.9, Discipline: farm.FCFS, Sizes: h2},
	} {
		res, err := bestofd.FixedPoint(m, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v %v: mean time in system %.4f, %v, stable %v\n", m.Discipline, m.Sizes, res.Sojourn, res.Status, res.Abscissa < 0)
	}
	// Output:
	// fcfs exp: mean time in system 2.6141, converged, stable true
	// ps h2:30: mean time in system 2.6141, converged, stable true
	// fcfs h2:30: mean time in system 14.7937, converged, stable true
}

// The refined mean field: best of two at λ = 0.9 with N servers.
func ExampleRefined() {
	r, err := bestofd.Refined(&bestofd.Model{D: 2, Load: 0.9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("N = ∞: %.4f; N = 100: %.4f; N = 10: %.4f\n", r.Sojourn(0), r.Sojourn(100), r.Sojourn(10))
	// Output:
	// N = ∞: 2.6141; N = 100: 2.6584; N = 10: 3.0570
}

// Best of two and least loaded on a board refreshed every T (λ = 0.9,
// exponential sizes): best of two settles on a fixed point; least loaded
// at T = 6 wanders without settling, and the result is the average of
// its last 100 periods with their range.
func ExampleAttractor() {
	for _, m := range []*bestofd.PeriodicUpdate{
		{D: 2, Load: 0.9, Period: 100},
		{D: 0, Load: 0.9, Period: 6},
	} {
		r, err := bestofd.Attractor(m, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("d = %d, T = %g: %v, mean time in system %.4g over %d periods (%.4g to %.4g)\n", m.D, m.Period, r.Status, r.Sojourn, r.Averaged, r.Min, r.Max)
	}
	// Output:
	// d = 2, T = 100: fixed point, mean time in system 20.95 over 1 periods (20.95 to 20.95)
	// d = 0, T = 6: not settled, mean time in system 13.28 over 100 periods (13.18 to 13.38)
}
