package staleboard_test

import (
	"fmt"

	"github.com/fluidlb/fluid/meanfield/staleboard"
)

// The balanced board of five dispatchers at 90% load with a board
// refreshed every 400 service times (a 1,600-server simulation measures a
// mean board of 5.50).
func ExampleFixedPoint() {
	fp, err := staleboard.FixedPoint(&staleboard.Model{System: staleboard.System{K: 5, Load: 0.9}, Period: 400}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: mean board %.4g, mean time in system %.4g, pass %d in progress at T\n",
		fp.Status, fp.Map.BoardMean, fp.Map.Sojourn, fp.Map.Pass)
	// Output:
	// converged: mean board 5.489, mean time in system 7.9, pass 77 in progress at T
}

// The tipping edge of five dispatchers at 90% load.
func ExampleEdge() {
	r, err := staleboard.Edge(&staleboard.System{K: 5, Load: 0.9}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T* = %.1f, T*(1−λ)² = %.3f; branch %d ends by %v (spectral radius %.2f)\n",
		r.Period, r.Scaled, r.Branch, r.Mechanism, r.Radius)
	// Output:
	// T* = 289.9, T*(1−λ)² = 2.899; branch 59 ends by border collision (spectral radius 0.54)
}

// Above the edge a herd coexists with the balanced state: from a
// half-loaded board the map settles on a two-group swapping cycle with a
// mean time in system of about 0.40·T.
func ExampleAttractor() {
	m := &staleboard.Model{System: staleboard.System{K: 5, Load: 0.9}, Period: 1100}
	half := make([]float64, 111)
	half[0], half[110] = 0.5, 0.5
	att, err := staleboard.Attractor(m, &staleboard.AttractorSettings{Start: half})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v of period %d: mean time in system %.4g = %.3f·T\n", att.Status, att.Period, att.Sojourn, att.Sojourn/m.Period)
	// Output:
	// cycle of period 2: mean time in system 441.4 = 0.401·T
}
