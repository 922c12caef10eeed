package jackson

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/param"
)

// compositions lists every way of putting n customers in m stations.
func compositions(n, m int) [][]int {
	if m == 1 {
		return [][]int{{n}}
	}
	var out [][]int
	for k := 0; k <= n; k++ {
		for _, rest := range compositions(n-k, m-1) {
			out = append(out, append([]int{k}, rest...))
		}
	}
	return out
}

// stateKey is a map key for a small state (entries below 256).
func stateKey(s []int) string {
	b := make([]byte, len(s))
	for i, v := range s {
		b[i] = byte(v)
	}
	return string(b)
}

// stationary solves πQ = 0, Σπ = 1 for a generator given by its
// transitions, directly (gonum/mat LU), replacing one balance equation by
// the normalisation.
func stationary(t *testing.T, states [][]int, next func(s []int, emit func(to []int, rate float64))) map[string]float64 {
	t.Helper()
	key := stateKey
	index := map[string]int{}
	for i, s := range states {
		index[key(s)] = i
	}
	n := len(states)
	q := mat.NewDense(n, n, nil) // q[j][i] = rate i → j (transposed generator)
	for i, s := range states {
		next(s, func(to []int, rate float64) {
			j, ok := index[key(to)]
			if !ok {
				t.Fatalf("transition to unknown state %v", to)
			}
			q.Set(j, i, q.At(j, i)+rate)
			q.Set(i, i, q.At(i, i)-rate)
		})
	}
	for j := range n {
		q.Set(0, j, 1)
	}
	b := mat.NewVecDense(n, nil)
	b.SetVec(0, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(q, b); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for i, s := range states {
		out[key(s)] = pi.AtVec(i)
	}
	return out
}

// bruteNetwork enumerates the closed network's CTMC and returns the
// marginals P(n_i = k).
func bruteNetwork(t *testing.T, nw *Network, n int) [][]float64 {
	m := len(nw.Stations)
	states := compositions(n, m)
	pi := stationary(t, states, func(s []int, emit func([]int, float64)) {
		for i := range m {
			if s[i] == 0 {
				continue
			}
			mu := nw.Stations[i].rate(s[i])
			for j := range m {
				if j == i || nw.Routing[i][j] == 0 {
					continue
				}
				to := append([]int(nil), s...)
				to[i]--
				to[j]++
				emit(to, mu*nw.Routing[i][j])
			}
		}
	})
	marg := make([][]float64, m)
	for i := range marg {
		marg[i] = make([]float64, n+1)
	}
	for _, s := range states {
		key := stateKey(s)
		for i := range m {
			marg[i][s[i]] += pi[key]
		}
	}
	return marg
}

func TestProductFormAgainstBruteForce(t *testing.T) {
	// A network with all three kinds, non-trivial routing and a self-loop.
	nw := &Network{
		Stations: []Station{
			{Name: "cpu", Kind: Queue, Rate: 2},
			{Name: "think", Kind: Delay, Rate: 0.5},
			{Name: "disk", Kind: LoadDependent, RateAt: RateTable([]float64{1, 1.7, 2.2})},
			{Name: "net", Kind: Queue, Rate: 0.8},
		},
		Routing: [][]float64{
			{0.1, 0.4, 0.3, 0.2},
			{1, 0, 0, 0},
			{0.5, 0, 0, 0.5},
			{0.2, 0.3, 0.5, 0},
		},
	}
	// Both sides are exact up to rounding in a few hundred operations on
	// numbers of order 1: 1e-12 throughout.
	const tol = 1e-12
	for n := 1; n <= 6; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			sol, err := nw.Solve(n)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteNetwork(t, nw, n)
			for i, st := range nw.Stations {
				approx.Slices(t, fmt.Sprintf("station %d: P(n = k)", i), sol.Marginal(i), want[i], tol, 0)
				var wantMean, x float64
				for k := range want[i] {
					wantMean += float64(k) * want[i][k]
					if k > 0 {
						// Throughput = Σ_k P(n_i = k)·μ_i(k).
						x += want[i][k] * st.rate(k)
					}
				}
				approx.Check(t, fmt.Sprintf("station %d: E[n]", i), sol.MeanQueue(i), wantMean, tol, 0)
				approx.Check(t, fmt.Sprintf("station %d: utilization", i), sol.Utilization(i), 1-want[i][0], tol, 0)
				approx.Check(t, fmt.Sprintf("station %d: throughput", i), sol.Throughput[i], x, tol, 0)
			}
		})
	}
}

// bruteJIQ enumerates the blocking JIQ system itself — state (busy
// servers, tokens at each dispatcher) — and returns B = Σ α_r P(n_r = 0)
// and P(n_r = 0).
func bruteJIQ(t *testing.T, n int, lambda float64, alpha, beta []float64) (float64, []float64) {
	R := len(alpha)
	states := compositions(n, R+1)
	pi := stationary(t, states, func(s []int, emit func([]int, float64)) {
		for r := range R {
			if s[1+r] > 0 { // a job at dispatcher r uses a token
				to := append([]int(nil), s...)
				to[0]++
				to[1+r]--
				emit(to, alpha[r]*lambda*float64(n))
			}
			if s[0] > 0 && beta[r] > 0 { // a completion sends its token to r
				to := append([]int(nil), s...)
				to[0]--
				to[1+r]++
				emit(to, float64(s[0])*beta[r])
			}
		}
	})
	empty := make([]float64, R)
	for _, s := range states {
		key := stateKey(s)
		for r := range R {
			if s[1+r] == 0 {
				empty[r] += pi[key]
			}
		}
	}
	var b float64
	for r := range R {
		b += alpha[r] * empty[r]
	}
	return b, empty
}

func TestJIQAgainstBruteForce(t *testing.T) {
	cases := []struct {
		lambda      float64
		alpha, beta []float64
	}{
		{0.5, []float64{0.7, 0.3}, nil},
		{1.4, []float64{0.7, 0.3}, nil},
		{0.9, []float64{0.5, 0.3, 0.2}, nil},
		{0.9, []float64{0.5, 0.3, 0.2}, []float64{0.5, 0.3, 0.2}},
		{2.0, []float64{0.2, 0.5, 0.3}, []float64{0.6, 0, 0.4}},
		{0.3, []float64{1}, nil},
	}
	// Exact on both sides up to rounding on numbers of order 1: 1e-12.
	const tol = 1e-12
	for _, c := range cases {
		for n := 1; n <= 6; n++ {
			t.Run(fmt.Sprintf("λ=%v α=%v β=%v N=%d", c.lambda, c.alpha, c.beta, n), func(t *testing.T) {
				res, err := Solve(&JIQ{Servers: n, Load: c.lambda, Alpha: c.alpha, Beta: c.beta})
				if err != nil {
					t.Fatal(err)
				}
				beta := c.beta
				if beta == nil {
					beta = make([]float64, len(c.alpha))
					for i := range beta {
						beta[i] = 1 / float64(len(beta))
					}
				}
				b, empty := bruteJIQ(t, n, c.lambda, c.alpha, beta)
				approx.Check(t, "B", res.Blocking, b, tol, 0)
				approx.Slices(t, "P(no tokens)", res.NoTokens, empty, tol, 0)
				// Flow balance: accepted rate λ(1 − B) equals the completion
				// rate E[n₀]. The product form must satisfy it exactly.
				approx.Check(t, "busy", res.Busy, c.lambda*(1-res.Blocking), tol, 0)
			})
		}
	}
}

// erlangB is the stable recursion B(0) = 1, B(k) = A·B(k−1)/(k + A·B(k−1)).
func erlangB(servers int, offered float64) float64 {
	b := 1.0
	for k := 1; k <= servers; k++ {
		b = offered * b / (float64(k) + offered*b)
	}
	return b
}

func TestErlangB(t *testing.T) {
	// R = 1: the JIQ blocking system is M/M/N/N with offered load λN.
	for _, n := range []int{1, 2, 10, 100, 1000, 10000} {
		for _, lam := range []float64{0.1, 0.8, 1, 1.5, 4} {
			t.Run(fmt.Sprintf("N=%d λ=%v", n, lam), func(t *testing.T) {
				res, err := Solve(&JIQ{Servers: n, Load: lam, Alpha: []float64{1}, Beta: nil})
				if err != nil {
					t.Fatal(err)
				}
				// B is a sum of same-scale ratios, not 1 minus something: it
				// keeps its relative accuracy when tiny (1e-103 at N = 10⁴,
				// λ = 0.8). 1e-9 relative allows the recursions' rounding
				// over 10⁴ levels (both accumulate about N·eps); 1e-300
				// absolute spares results that underflow.
				approx.Check(t, "B", res.Blocking, erlangB(n, lam*float64(n)), 1e-300, 1e-9)
			})
		}
	}
}

func TestTheorem1Convergence(t *testing.T) {
	// Away from the crossover R·α_R = 1/λ the N = 10⁵ blocking is within
	// 1e-4 of Theorem 1's max{1 − R·α_R, 1 − 1/λ} (the INFOCOM 2017 paper).
	const n = 100000
	for _, c := range []struct {
		lambda float64
		alpha  []float64
	}{
		{0.5, []float64{0.7, 0.3}},
		{0.9, []float64{0.7, 0.3}},
		{2.5, []float64{0.7, 0.3}},
		{1.2, []float64{0.6, 0.2, 0.2}},
		{0.7, []float64{0.3, 0.25, 0.2, 0.15, 0.1}},
		{3.0, []float64{0.3, 0.25, 0.2, 0.15, 0.1}},
	} {
		t.Run(fmt.Sprintf("λ=%v α=%v", c.lambda, c.alpha), func(t *testing.T) {
			R := float64(len(c.alpha))
			amin := math.Inf(1)
			for _, a := range c.alpha {
				amin = math.Min(amin, a)
			}
			if !(math.Abs(R*amin-1/c.lambda) >= 0.1) {
				t.Fatalf("too close to the crossover for this check")
			}
			res, err := Solve(&JIQ{Servers: n, Load: c.lambda, Alpha: c.alpha, Beta: nil})
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "B(10⁵)", res.Blocking, math.Max(1-R*amin, 1-1/c.lambda), 1e-4, 0)
		})
	}
	// Equal loads: B·N → (R − 1)/(1 − λ), within 2% at 10⁵.
	for _, R := range []int{2, 3, 5} {
		t.Run(fmt.Sprintf("equal loads R=%d", R), func(t *testing.T) {
			alpha := make([]float64, R)
			for i := range alpha {
				alpha[i] = 1 / float64(R)
			}
			res, err := Solve(&JIQ{Servers: n, Load: 0.9, Alpha: alpha, Beta: nil})
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "B·N", res.Blocking*n, float64(R-1)/0.1, 0, 0.02)
		})
	}
}

func TestRepairmanAgainstMVA(t *testing.T) {
	// The machine-repairman model: N machines think (delay, rate 1/Z) and
	// queue for one repairman (rate μ). Exact MVA and the convolution must
	// agree to 1e-10 (relative) on throughput and mean queue lengths, at
	// small and very large N (where MVA's recursion is long and the
	// convolution's constants would overflow without rescaling).
	for _, c := range []struct {
		n        int
		z, mu    float64
		extraQue bool
	}{
		{1, 5, 1, false}, {10, 5, 1, false}, {100, 20, 3, false}, {100000, 50, 1, false}, {2000, 3, 1, true},
	} {
		t.Run(fmt.Sprintf("N=%d Z=%v μ=%v inspect=%v", c.n, c.z, c.mu, c.extraQue), func(t *testing.T) {
			nw := &Network{
				Stations: []Station{{Name: "think", Kind: Delay, Rate: 1 / c.z}, {Name: "repair", Kind: Queue, Rate: c.mu}},
				Routing:  [][]float64{{0, 1}, {1, 0}},
			}
			if c.extraQue {
				nw.Stations = append(nw.Stations, Station{Name: "inspect", Kind: Queue, Rate: 1.5})
				nw.Routing = [][]float64{{0, 0.6, 0.4}, {1, 0, 0}, {1, 0, 0}}
			}
			sol, mva := solveBoth(t, nw, c.n)
			approx.Slices(t, "throughput (convolution against MVA)", sol.Throughput, mva.Throughput, 0, 1e-10)
			for i := range nw.Stations {
				approx.Check(t, fmt.Sprintf("station %d: E[n] (convolution against MVA)", i), sol.MeanQueue(i), mva.MeanQueue[i], 0, 1e-10)
			}
		})
	}
}

func TestNoOverflow(t *testing.T) {
	// Extreme constants: log G must stay finite and marginals sum to 1.
	nw := &Network{
		Stations: []Station{{Kind: Delay, Rate: 1e-3}, {Kind: Queue, Rate: 1e-6}, {Kind: Queue, Rate: 1e6}},
		Routing:  [][]float64{{0, 0.5, 0.5}, {1, 0, 0}, {1, 0, 0}},
	}
	sol, err := nw.Solve(200000)
	if err != nil {
		t.Fatal(err)
	}
	for n, l := range sol.LogG {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("log G(%d) = %v", n, l)
		}
	}
	for i := range nw.Stations {
		var s float64
		for _, p := range sol.Marginal(i) {
			s += p
		}
		// 2·10⁵ terms summed: rounding of about N·eps ≈ 4e-11.
		approx.Check(t, fmt.Sprintf("station %d: sum of the marginal", i), s, 1, 1e-9, 0)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		m     JIQ
		param string
	}{
		{JIQ{Servers: 0, Load: 0.5, Alpha: []float64{1}}, "Servers"},
		{JIQ{Servers: -3, Load: 0.5, Alpha: []float64{1}}, "Servers"},
		{JIQ{Servers: 10, Load: 0, Alpha: []float64{1}}, "Load"},
		{JIQ{Servers: 10, Load: math.NaN(), Alpha: []float64{1}}, "Load"},
		{JIQ{Servers: 10, Load: math.Inf(1), Alpha: []float64{1}}, "Load"},
		{JIQ{Servers: 10, Load: 0.5, Alpha: []float64{0.5, 0.6}}, "Alpha"},
		{JIQ{Servers: 10, Load: 0.5, Alpha: []float64{0.5, 0.5}, Beta: []float64{1}}, "Beta"},
		{JIQ{Servers: 10, Load: 0.5, Alpha: []float64{0.5, 0.5}, Beta: []float64{0.5, math.NaN()}}, "Beta"},
		{JIQ{Servers: 10, Load: 0.5, Alpha: []float64{1}, Exchange: -1}, "Exchange"},
	} {
		t.Run(fmt.Sprintf("%+v", c.m), func(t *testing.T) {
			_, err := Solve(&c.m)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Errorf("%v, want an error naming %s", err, c.param)
			}
		})
	}
	if _, err := Solve(&JIQ{Servers: 10, Load: 0.5, Alpha: []float64{1}, Exchange: 1}); !errors.Is(err, ErrNotProductForm) {
		t.Errorf("token exchange: %v", err)
	}
	// Networks that are not closed and irreducible.
	bad := []*Network{
		{Stations: []Station{{Kind: Queue, Rate: 1}, {Kind: Queue, Rate: 1}}, Routing: [][]float64{{0, 0.5}, {1, 0}}},
		{Stations: []Station{{Kind: Queue, Rate: 1}, {Kind: Queue, Rate: 1}}, Routing: [][]float64{{1, 0}, {1, 0}}},
		{Stations: []Station{{Kind: Queue, Rate: 1}, {Kind: Queue, Rate: 1}, {Kind: Queue, Rate: 1}}, Routing: [][]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}},
		{Stations: []Station{{Kind: Queue, Rate: -1}}, Routing: [][]float64{{1}}},
		{Stations: []Station{{Kind: LoadDependent}}, Routing: [][]float64{{1}}},
		{Stations: []Station{{Kind: Queue, Rate: 1}}, Routing: [][]float64{{1, 0}}},
	}
	for i, nw := range bad {
		t.Run(fmt.Sprintf("network %d", i), func(t *testing.T) {
			if _, err := nw.Solve(3); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := (&Network{Stations: []Station{{Kind: LoadDependent, RateAt: RateTable([]float64{1})}}, Routing: [][]float64{{1}}}).MVA(3); err == nil {
		t.Error("MVA accepted a load-dependent station")
	}
}

// The machine-repairman model: 20 machines that run 10 time units between
// failures and one repairman who takes 1; convolution and MVA agree (the
// numbers are those of the closed form, computed once and checked here to
// four digits).
func TestMachineRepairman(t *testing.T) {
	nw := &Network{
		Stations: []Station{
			{Name: "running", Kind: Delay, Rate: 0.1},
			{Name: "repair", Kind: Queue, Rate: 1},
		},
		Routing: [][]float64{{0, 1}, {1, 0}},
	}
	sol, mva := solveBoth(t, nw, 20)
	got := fmt.Sprintf("%.4g %.4g %.4g %.4g %.4g", sol.Throughput[1], mva.Throughput[1], sol.MeanQueue(1), mva.MeanQueue[1], sol.Utilization(1))
	if want := "0.9981 0.9981 10.02 10.02 0.9981"; got != want {
		t.Errorf("repairs, waiting, busy: %s, want %s", got, want)
	}
}

// solveBoth solves nw at population n by convolution and by MVA.
func solveBoth(t *testing.T, nw *Network, n int) (*Solution, *MVAResult) {
	t.Helper()
	sol, err := nw.Solve(n)
	if err != nil {
		t.Fatal(err)
	}
	mva, err := nw.MVA(n)
	if err != nil {
		t.Fatal(err)
	}
	return sol, mva
}
