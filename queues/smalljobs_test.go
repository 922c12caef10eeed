package queues

import (
	"fmt"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
)

// The sparse solve of the two-job occupancy chain against the general
// one (solveOccupancy with K = 0: dense level reduction by package qbd),
// state by state. Tolerance 1e-12 absolute and relative: both are exact
// eliminations of the same chain, in different orders, and agree to
// rounding; a wrong rate or a block misplaced moves probabilities in the
// first digits.
func TestSmallJobsAgainstOccupancy(t *testing.T) {
	var ws smallJobsWork
	for _, c := range []struct {
		n                int
		aIdle, aBusy, mu float64
	}{
		{1, 0.9, 0.9, 1}, {2, 1.7, 1.8, 1}, {5, 3.5, 4.5, 1}, {30, 40, 45, 1.967}, {55, 88.5, 90, 1.967}, {12, 0.3, 9, 0.8},
	} {
		t.Run(fmt.Sprintf("n=%d", c.n), func(t *testing.T) {
			got, err := solveSmallJobs(c.n, c.aIdle, c.aBusy, c.mu, &ws)
			if err != nil {
				t.Fatal(err)
			}
			want, err := solveOccupancy(c.n, c.aIdle, c.aBusy, c.mu, 0)
			if err != nil {
				t.Fatal(err)
			}
			for x1, pi := range want.dist.Pi {
				for i, p := range pi {
					x2 := want.phases[x1][i][0]
					approx.Check(t, fmt.Sprintf("π(%d, %d)", x1, x2), got.pi[x2][x1-x2], p, 1e-12, 1e-12)
				}
			}
			approx.Check(t, "lost", got.lost, want.lost, 1e-14, 1e-12)
		})
	}
}
