package qbd_test

import (
	"fmt"

	"github.com/fluidlb/fluid/qbd"
	"gonum.org/v1/gonum/mat"
)

// The M/M/2 queue at arrival rate 1.6 (load 0.8): levels 0, 1, 2 given
// one by one, then a one-phase tail moving up at rate 1.6 and down at 2.
// Erlang's C formula gives P(wait) = 0.7111 and E[n] = 4.444.
func Example() {
	s := func(v float64) *mat.Dense { return mat.NewDense(1, 1, []float64{v}) }
	l := &qbd.Levels{
		Local: []*mat.Dense{s(-1.6), s(-2.6), s(-3.6)},
		Up:    []*mat.Dense{s(1.6), s(1.6), s(1.6)},
		Down:  []*mat.Dense{nil, s(1), s(2)},
		Tail:  &qbd.Homogeneous{A0: s(1.6), A1: s(-3.6), A2: s(2)},
	}
	d, err := qbd.Stationary(l, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: P(wait) = %.4g, E[n] = %.4g, decay %.4g\n", d.Status, d.Pi[2][0]+d.TailMass, d.MeanLevel, d.Tail.Decay)
	// Output: converged: P(wait) = 0.7111, E[n] = 4.444, decay 0.8
}
