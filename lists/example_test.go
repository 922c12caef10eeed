package lists_test

import (
	"fmt"

	"github.com/fluidlb/fluid/lists"
)

func ExampleParse() {
	for _, s := range []string{"0.80..0.95:0.05", "2..10:4", "10..100000*10", "0.8..0.95:0.04"} {
		vals, err := lists.Parse("load", lists.Float, s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(vals)
	}
	// Output:
	// [0.8 0.85 0.9 0.95]
	// [2 6 10]
	// [10 100 1000 10000 100000]
	// invalid --load "0.8..0.95:0.04": range "0.8..0.95:0.04": step 0.04 does not land on 0.95 (3.75 steps from 0.8)
}
