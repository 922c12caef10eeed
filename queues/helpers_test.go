package queues

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/qbd"
)

// near fails unless got is finite and within abs + rel·|want| of want.
func near(t *testing.T, what string, got, want, abs, rel float64) {
	t.Helper()
	if !param.Finite(got) || math.Abs(got-want) > abs+rel*math.Abs(want) {
		t.Errorf("%s = %.12g, want %.12g (±%g abs + %g rel)", what, got, want, abs, rel)
	}
}

func h2(c2 float64) farm.Sizes {
	if c2 == 1 {
		return farm.Sizes{}
	}
	return farm.Sizes{Kind: farm.H2, SCV: c2}
}

// ctmc is a generator under construction: states are numbered by index.
type ctmc struct {
	n   int
	idx map[[3]int]int
	q   map[[2]int]float64
}

func newCTMC() *ctmc { return &ctmc{idx: map[[3]int]int{}, q: map[[2]int]float64{}} }

func (c *ctmc) state(k [3]int) int {
	if i, ok := c.idx[k]; ok {
		return i
	}
	c.idx[k] = c.n
	c.n++
	return c.n - 1
}

func (c *ctmc) rate(from, to [3]int, r float64) {
	if r == 0 || from == to {
		return
	}
	c.q[[2]int{c.state(from), c.state(to)}] += r
}

// solve returns the stationary law by GTH on the dense generator.
func (c *ctmc) solve() map[[3]int]float64 {
	q := mat.NewDense(c.n, c.n, nil)
	for k, r := range c.q {
		q.Set(k[0], k[1], r)
	}
	pi := qbd.GTH(q)
	out := map[[3]int]float64{}
	for k, i := range c.idx {
		out[k] = pi[i]
	}
	return out
}
