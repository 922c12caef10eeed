package staleboard

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
)

// sharesMap returns the share evolution of k dispatchers with shares
// alpha (forced, even when equal).
func sharesMap(alpha []float64, load, T float64, sz farm.Sizes, disc farm.Discipline) *Map {
	m := newMap(len(alpha), load, T)
	m.server = newPhaseServer(sz, disc)
	m.shares = alpha
	return m
}

// TestSharesEqual checks the share evolution with equal shares (pending
// sets, passes cut at every dispatcher's borders, which here coincide)
// against the window evolution (exponential) and the phase evolution
// (H2): the same map by other bookkeeping. Tolerance 1e-11: sums of
// ~10⁵ positive terms, Poisson tails cut at 1e-17.
func TestSharesEqual(t *testing.T) {
	p := []float64{0.3, 0.2, 0.2, 0.1, 0.1, 0.1}
	for _, c := range []struct {
		name string
		k    int
		T    float64
		sz   farm.Sizes
		disc farm.Discipline
	}{
		{"exp-k3", 3, 9, farm.Sizes{}, farm.FCFS},
		{"exp-k2", 2, 13.3, farm.Sizes{}, farm.FCFS},
		{"ps-h2:4-k2", 2, 7, farm.Sizes{Kind: farm.H2, SCV: 4}, farm.PS},
	} {
		t.Run(c.name, func(t *testing.T) {
			alpha := make([]float64, c.k)
			for r := range alpha {
				alpha[r] = 1 / float64(c.k)
			}
			ref := newMap(c.k, 0.9, c.T)
			if c.sz.Kind != farm.Exponential {
				ref = phaseMap(c.k, 0.9, c.T, c.sz, c.disc)
			}
			x := ref.State(p)
			want, err := ref.Apply(x)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sharesMap(alpha, 0.9, c.T, c.sz, c.disc).Apply(x)
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "sojourn", got.Sojourn, want.Sojourn, 1e-11, 1e-11)
			for i := range max(len(got.Next), len(want.Next)) {
				approx.Check(t, "next", entry(got.Next, i), entry(want.Next, i), 1e-12, 0)
			}
		})
	}
}

// TestSharesOneDispatcher checks the limit of one share going to 0: with
// α = (1 − ε, ε) the second dispatcher sends ε of the jobs, and the map
// tends to the one-dispatcher map (k = 1) at rate ε. Tolerance 5·ε: the
// small dispatcher's ε·λ·T jobs per server go to the servers of board 0
// (its pass 0 outlasts T); measured 0.9·ε in the mean time in system.
func TestSharesOneDispatcher(t *testing.T) {
	const eps, T = 1e-4, 20.0
	p := []float64{0.3, 0.2, 0.2, 0.1, 0.1, 0.1}
	want, err := newMap(1, 0.9, T).Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sharesMap([]float64{1 - eps, eps}, 0.9, T, farm.Sizes{}, farm.FCFS).Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	approx.Check(t, "sojourn", got.Sojourn, want.Sojourn, 5*eps, 0)
	for i := range max(len(got.Next), len(want.Next)) {
		approx.Check(t, "next", entry(got.Next, i), entry(want.Next, i), 5*eps, 0)
	}
	// And not identical: the small dispatcher is there.
	if d := got.Sojourn - want.Sojourn; d == 0 {
		t.Errorf("sojourn unchanged by the second dispatcher")
	}
}
