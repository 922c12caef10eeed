package staleboard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
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

// monteCarloShares samples the definition of one period of unequal
// shares directly, server by server: a server whose board reads b (drawn
// from p; with exponential sizes its state is its count b) receives from
// dispatcher r one job at a uniform time in each of r's passes v ≥ b
// (pass v of r lasts F(v)/(α_r·λ), F the board's distribution function),
// those before T arriving; it serves at rate 1. It returns the law of the
// count at T and the per-server means and variances of ∫₀^T count dt /
// (λT) (the map's mean time in system).
func monteCarloShares(p, alpha []float64, load, T float64, servers int, seed uint64) (law []float64, soj, sojVar float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	F := make([]float64, len(p))
	acc := 0.0
	for b, w := range p {
		acc += w
		F[b] = acc
	}
	// Each dispatcher's pass starts up to T.
	type pass struct{ start, end float64 }
	passes := make([][]pass, len(alpha))
	for r, a := range alpha {
		t := 0.0
		for v := 0; t < T; v++ {
			f := 1.0
			if v < len(F) {
				f = F[v]
			}
			L := f / (a * load)
			passes[r] = append(passes[r], pass{t, t + L})
			t += L
		}
	}
	var sum, sum2 float64
	var arrivals []float64
	for range servers {
		u, b := rng.Float64(), 0
		for b < len(F)-1 && u >= F[b] {
			b++
		}
		arrivals = arrivals[:0]
		for r := range alpha {
			for v := b; v < len(passes[r]); v++ {
				ps := passes[r][v]
				if at := ps.start + rng.Float64()*(ps.end-ps.start); at < T {
					arrivals = append(arrivals, at)
				}
			}
		}
		sort.Float64s(arrivals)
		q, t, integ := b, 0.0, 0.0
		for i := 0; ; {
			next := T
			if i < len(arrivals) {
				next = arrivals[i]
			}
			// Services until next.
			for q > 0 {
				d := t + rng.ExpFloat64()
				if d >= next {
					break
				}
				integ += float64(q) * (d - t)
				t, q = d, q-1
			}
			integ += float64(q) * (next - t)
			t = next
			if i == len(arrivals) {
				break
			}
			q++
			i++
		}
		for len(law) <= q {
			law = append(law, 0)
		}
		law[q]++
		s := integ / (load * T)
		sum += s
		sum2 += s * s
	}
	n := float64(servers)
	for i := range law {
		law[i] /= n
	}
	soj = sum / n
	return law, soj, (sum2/n - soj*soj)
}

// TestSharesMonteCarlo checks the share evolution (pending sets,
// Poisson-binomial interleaving) against a direct sampling of its
// definition (monteCarloShares) with unequal shares. Tolerance 5 standard
// errors of the sample (2·10⁵ servers): a correct map fails with
// probability below 10⁻⁵ per entry; a wrong pass length or a lost
// pending set moves the counts by far more (1/α_r of a pass).
func TestSharesMonteCarlo(t *testing.T) {
	const load, servers = 0.9, 200_000
	p := []float64{0.3, 0.2, 0.2, 0.1, 0.1, 0.1}
	for i, c := range []struct {
		name  string
		alpha []float64
		T     float64
	}{
		{"0.5,0.3,0.2-T9", []float64{0.5, 0.3, 0.2}, 9},
		{"0.7,0.3-T20", []float64{0.7, 0.3}, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sharesMap(c.alpha, load, c.T, farm.Sizes{}, farm.FCFS).Apply(p)
			if err != nil {
				t.Fatal(err)
			}
			law, soj, v := monteCarloShares(p, c.alpha, load, c.T, servers, uint64(i+1))
			approx.Check(t, "sojourn", got.Sojourn, soj, 5*math.Sqrt(v/servers), 0)
			for q := range max(len(law), len(got.Counts)) {
				// The standard error under the map's law (the hypothesis
				// tested): a sample that saw no server at a rare count
				// is then no failure.
				g := entry(got.Counts, q)
				approx.Check(t, fmt.Sprintf("P(count %d)", q), g, entry(law, q), 5*math.Sqrt(g*(1-g)/servers)+1e-9, 0)
			}
		})
	}
}

// TestSharesEqualIsEqualShareMap checks that equal shares given
// explicitly are the equal-share map bit for bit: the attractor of
// α = (1/k, …) equals the one with Alpha zero.
func TestSharesEqualIsEqualShareMap(t *testing.T) {
	for _, k := range []int{2, 3} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			plain := System{K: k, Load: 0.9}
			eq := plain
			for r := range k {
				eq.Alpha[r] = 1 / float64(k)
			}
			a, err := Attractor(&Model{System: plain, Period: 100}, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Attractor(&Model{System: eq, Period: 100}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.BoardMean != b.BoardMean || a.Sojourn != b.Sojourn || a.Iterations != b.Iterations {
				t.Errorf("equal shares: board %v sojourn %v after %d, want %v %v after %d", b.BoardMean, b.Sojourn, b.Iterations, a.BoardMean, a.Sojourn, a.Iterations)
			}
		})
	}
}
