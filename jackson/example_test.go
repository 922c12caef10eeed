package jackson_test

import (
	"fmt"

	"github.com/fluidlb/fluid/jackson"
)

// Exact blocking of basic JIQ with two dispatchers (loads 0.7 / 0.3) at
// λ = 0.5, approaching Theorem 1's limit 1 − 2·0.3 = 0.4 as N grows; the
// lighter dispatcher almost never runs out of tokens.
func ExampleSolve() {
	for _, n := range []int{10, 1000, 100000} {
		res, err := jackson.Solve(&jackson.JIQ{Servers: n, Load: 0.5, Alpha: []float64{0.7, 0.3}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("N = %6d: B = %.4g, P(no tokens) = %.4g\n", n, res.Blocking, res.NoTokens)
	}
	// Output:
	// N =     10: B = 0.4035, P(no tokens) = [0.574 0.005907]
	// N =   1000: B = 0.4, P(no tokens) = [0.5714 3.148e-195]
	// N = 100000: B = 0.4, P(no tokens) = [0.5714 0]
}
