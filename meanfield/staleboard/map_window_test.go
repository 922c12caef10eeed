package staleboard

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// Tolerances of the window evolution against the reference path
// (evolveRef), both exact to their truncations:
//
//   - relTol on the board mean and the mean time in system, and l1Tol on
//     the next board (‖·‖₁). The two paths round differently, and the
//     reference's Poisson terms over a whole period (a class's death law)
//     start from exp(−t + x·log t − log x!), which carries a relative
//     error of about x·log x·2⁻⁵³: 1e-13 at t ≈ 1,000, 4e-12 at 3,000
//     (poissonPMF is exact to rounding). The largest differences seen on
//     the grid below are about 2e-14 relative and 6e-14 in ‖·‖₁ (T ≤
//     1,100), 1e-12 and 2e-12 at T = 3,000; the tolerances leave two
//     orders of magnitude and stay far below the 1e-9 the published
//     numbers need.
//   - lostTol on the mass lost: the reference loses up to PoissonTol
//     (1e-17) of the aggregate in every pass, the window evolution only in
//     the window's passes and once in the cloud's kernel, so the two
//     differ by up to V·1e-17.
const (
	relTol  = 1e-10
	l1Tol   = 1e-10
	lostTol = 1e-13
)

// mapCase is a map and a board for the comparison with the reference.
type mapCase struct {
	k     int
	load  float64
	T     float64
	start farm.Start
	iters int // periods iterated from the start before comparing
}

func (c mapCase) String() string {
	return fmt.Sprintf("k=%d λ=%v T=%v %v+%d", c.k, c.load, c.T, c.start, c.iters)
}

// board returns the case's board: the start iterated c.iters periods by
// the window map.
func (c mapCase) board(t *testing.T, m *Map) []float64 {
	t.Helper()
	p, err := Board(c.start)
	if err != nil {
		t.Fatal(err)
	}
	for range c.iters {
		r, err := m.Apply(p)
		if err != nil {
			t.Fatal(err)
		}
		p = r.Next
	}
	return p
}

// compareWithRef applies the window and the reference map to p and
// returns the relative differences of the board mean and the mean time in
// system, the ‖·‖₁ distance of the next boards and the difference of the
// lost masses, failing t where the branch differs.
func compareWithRef(t *testing.T, name string, m *Map, p []float64) (dMean, dSoj, l1, dLost float64) {
	t.Helper()
	a, err := m.Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	// The reference takes its 26-point Gauss–Legendre rule from gonum,
	// whose table has lost two weights (legendreChecked): give it the
	// right rule, so that the comparison measures the two evolutions.
	fixLegendre26(m)
	b, err := m.applyRef(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pass != b.Pass || a.PassStart != b.PassStart || a.PassEnd != b.PassEnd {
		t.Errorf("%s: pass %d [%v, %v), reference %d [%v, %v)", name, a.Pass, a.PassStart, a.PassEnd, b.Pass, b.PassStart, b.PassEnd)
	}
	for i := range max(len(a.Next), len(b.Next)) {
		l1 += math.Abs(entry(a.Next, i) - entry(b.Next, i))
	}
	for _, x := range a.Next {
		if !(x >= 0) {
			t.Fatalf("%s: next board has %v", name, x)
		}
	}
	rel := func(x, y float64) float64 { return math.Abs(x-y) / math.Abs(y) }
	return rel(a.BoardMean, b.BoardMean), rel(a.Sojourn, b.Sojourn), l1, math.Abs(a.Lost - b.Lost)
}

// fixLegendre26 puts the 26-point Gauss–Legendre rule, by Newton's
// method on P₂₆, in m's cache of rules.
func fixLegendre26(m *Map) {
	if m.gl == nil {
		m.gl = map[int][2][]float64{}
	}
	m.gl[26] = [2][]float64(gaussLegendre(26))
}

// gaussLegendre returns the n-point Gauss–Legendre rule on [−1, 1] by
// Newton's method on the Legendre polynomial P_n.
func gaussLegendre(n int) [2][]float64 {
	xs, ws := make([]float64, n), make([]float64, n)
	for i := range n {
		x := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, x
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (x*p1 - p0) / (x*x - 1)
			dx := p1 / dp
			x -= dx
			if math.Abs(dx) < 1e-16 {
				break
			}
		}
		xs[n-1-i], ws[n-1-i] = x, 2/((1-x*x)*dp*dp)
	}
	return [2][]float64{xs, ws}
}

// The rules the window evolution integrates with are Gauss–Legendre rules:
// exact for x^j, j < 2n (gonum's n = 26 is not: legendreChecked skips it).
func TestLegendreRules(t *testing.T) {
	m := newMap(1, 0.9, 1)
	for n := 2; n <= 160; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			xs, ws := m.legendreChecked(n)
			for _, j := range []int{0, 2, 4, min(2*len(xs)-2, 30)} {
				if j >= 2*len(xs) {
					continue
				}
				var s float64
				for i, x := range xs {
					s += ws[i] * math.Pow(x, float64(j))
				}
				// Exact but for rounding over at most 160 terms: 1e-13.
				approx.Check(t, fmt.Sprintf("∫x^%d", j), s, 2/float64(j+1), 1e-13, 0)
			}
		})
	}
	if _, ws := m.legendre(26); math.Abs(ws[0]) > 0 {
		t.Log("gonum's 26-point rule is whole again: legendreChecked's detour can go")
	}
}

// The window evolution against the reference on a grid of dispatchers,
// loads, periods (short ones that cut the first passes, balanced ones,
// herds) and boards (starts, and boards a few periods on).
func TestWindowMatchesReference(t *testing.T) {
	var cases []mapCase
	starts := func(T float64) []farm.Start {
		return []farm.Start{{}, {Kind: farm.Balanced, Jobs: 7}, {Kind: farm.Half, Jobs: max(1, int(0.1*T))}, {Kind: farm.Spread, Jobs: max(1, int(0.8*T))}}
	}
	for _, k := range []int{1, 2, 3, 5, 8} {
		for _, load := range []float64{0.5, 0.9, 0.95} {
			for _, T := range []float64{0.7, 13.3, 120} {
				for _, st := range starts(T) {
					cases = append(cases, mapCase{k, load, T, st, 0}, mapCase{k, load, T, st, 3})
				}
			}
		}
	}
	// Long periods: the balanced fixed point and the herds of the
	// published rows.
	cases = append(cases,
		mapCase{5, 0.9, 400, farm.Start{}, 60},
		mapCase{1, 0.9, 600, farm.Start{}, 30},
		mapCase{5, 0.9, 20, farm.Start{}, 40},
		mapCase{5, 0.9, 400, farm.Start{Kind: farm.Half, Jobs: 40}, 10},
		mapCase{5, 0.9, 1100, farm.Start{Kind: farm.Half, Jobs: 110}, 20},
		mapCase{5, 0.9, 1100, farm.Start{Kind: farm.Spread, Jobs: 880}, 20},
		mapCase{3, 0.8, 700, farm.Start{Kind: farm.Spread, Jobs: 560}, 5},
		mapCase{10, 0.95, 900, farm.Start{Kind: farm.Half, Jobs: 90}, 5},
		mapCase{20, 0.9, 30, farm.Start{Kind: farm.Half, Jobs: 3}, 3},
		mapCase{50, 0.8, 10, farm.Start{Kind: farm.Spread, Jobs: 8}, 2},
		mapCase{5, 0.9, 0.01, farm.Start{}, 3},
		mapCase{1, 0.99, 2000, farm.Start{Kind: farm.Half, Jobs: 200}, 3},
	)
	if !testing.Short() {
		cases = append(cases, mapCase{5, 0.9, 3000, farm.Start{Kind: farm.Half, Jobs: 300}, 20},
			mapCase{5, 0.9, 3000, farm.Start{Kind: farm.Spread, Jobs: 2400}, 20})
	}
	var worst [4]float64
	var worstCase [4]mapCase
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			m := newMap(c.k, c.load, c.T)
			p := c.board(t, m)
			dMean, dSoj, l1, dLost := compareWithRef(t, c.String(), m, p)
			approx.Within(t, "board mean, relative difference", dMean, 0, relTol)
			approx.Within(t, "sojourn, relative difference", dSoj, 0, relTol)
			approx.Within(t, "‖Δ‖₁ of the next boards", l1, 0, l1Tol)
			approx.Within(t, "lost, difference", dLost, 0, lostTol)
			for i, d := range []float64{dMean, dSoj, l1, dLost} {
				if d > worst[i] {
					worst[i], worstCase[i] = d, c
				}
			}
		})
	}
	t.Logf("%d cases; largest differences: board mean %.2g (%v), sojourn %.2g (%v), ‖Δ‖₁ %.2g (%v), lost %.2g (%v)",
		len(cases), worst[0], worstCase[0], worst[1], worstCase[1], worst[2], worstCase[2], worst[3], worstCase[3])
}

// The boundary rows and the free convolution are the interleaving
// recursion: the same end distribution and integral on a short
// distribution with mass at 0, for whole and cut passes.
func TestWindowPassMatchesRecursion(t *testing.T) {
	x := []float64{0.3, 0.1, 0.05, 0.2, 0, 0.15, 0.1, 0.1}
	for _, c := range []struct {
		k      int
		L, tau float64
	}{
		{1, 1.1, 1.1}, {3, 4, 4}, {3, 4, 2.5}, {5, 5.6, 5.6}, {5, 5.6, 0.3}, {8, 9, 8.999}, {5, 0.35, 0.35}, {2, 30, 30}, {5, 3, 1e-4},
		{1, 5e-6, 5e-6}, {2, 1e-3, 1e-3},
	} {
		t.Run(fmt.Sprintf("k=%d/L=%v/τ=%v", c.k, c.L, c.tau), func(t *testing.T) {
			m := newMap(c.k, 0.9, 100)
			fixLegendre26(m)
			want, wantInteg, wantLost := m.passRecursion(x, c.L, c.tau)
			w := m.boundary(c.L, c.tau)
			got := make([]float64, len(x)+c.k)
			integ, lost := m.windowPass(got, x, w, c.L, c.tau)
			// The same sums in another order: rounding, 1e-15 per entry.
			n := max(len(got), len(want))
			approx.Slices(t, "P(q), window against recursion", padded(got, n), padded(want, n), 1e-15, 0)
			// The recursion integrates with W(a, s) over all (a, s), the
			// window pass with the closed form of the free part: rounding.
			approx.Check(t, "∫E[q]", integ, wantInteg, 0, 1e-13)
			approx.Check(t, "lost", lost, wantLost, 1e-30, 0)
		})
	}
}

// flushLevels bounds the probability that mass at or above h_v at t_v
// serves at an empty queue before T: the exact Poisson tails of the
// union bound stay below flushTol.
func TestFlushLevelsBound(t *testing.T) {
	for _, c := range []mapCase{
		{5, 0.9, 400, farm.Start{}, 60},
		{5, 0.9, 1100, farm.Start{Kind: farm.Spread, Jobs: 880}, 20},
		{3, 0.5, 120, farm.Start{Kind: farm.Half, Jobs: 12}, 3},
		{1, 0.95, 600, farm.Start{}, 30},
	} {
		t.Run(c.String(), func(t *testing.T) {
			m := newMap(c.k, c.load, c.T)
			p := c.board(t, m)
			s := m.schedule(p, len(p)-1, 1)
			h := append([]int(nil), m.flushLevels(&s)...)
			for v := 0; v <= s.V; v += max(1, s.V/25) {
				var sum float64
				for u := v; u <= s.V; u++ {
					end := c.T
					if u < s.V {
						end = s.t[u] + s.L[u]
					}
					// A service at 0 in pass u needs more than h + k(u − v)
					// services in [t_v, t_{u+1}).
					sum += poissonTail(h[v]+c.k*(u-v)+1, end-s.t[v])
				}
				if sum > flushTol {
					t.Errorf("pass %d, flush level %d: reflection bound %.3g > %g", v, h[v], sum, flushTol)
				}
			}
		})
	}
}

// poissonTail is P(Pois(μ) ≥ n), summed from n up by the ratio of
// successive terms.
func poissonTail(n int, mu float64) float64 {
	if n <= 0 {
		return 1
	}
	p := poissonPMF(n, mu)
	var s float64
	for i := n; p > 0; i++ {
		s += p
		if float64(i) > mu && p < 1e-40*s {
			break
		}
		p *= mu / float64(i+1)
	}
	return s
}

// poissonPMF and binomPMF against 300-bit arithmetic; binomCDF against
// the sum of the terms.
func TestPMFs(t *testing.T) {
	exactPois := func(x int, mu float64) float64 {
		// μ^x e^{−μ} / x!, μ an integer or a half.
		const prec = 400
		f := new(big.Float).SetPrec(prec).SetFloat64(1)
		m := new(big.Float).SetPrec(prec).SetFloat64(mu)
		for i := 1; i <= x; i++ {
			f.Mul(f, m)
			f.Quo(f, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
		}
		// e^{−μ} by halving: (e^{−μ/2^j})^{2^j}, the small power by its series.
		const j = 20
		a := new(big.Float).SetPrec(prec).SetFloat64(-mu / (1 << j))
		e, term := new(big.Float).SetPrec(prec).SetFloat64(1), new(big.Float).SetPrec(prec).SetFloat64(1)
		for n := 1; n < 40; n++ {
			term.Mul(term, a)
			term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(n)))
			e.Add(e, term)
		}
		for range j {
			e.Mul(e, e)
		}
		f.Mul(f, e)
		v, _ := f.Float64()
		return v
	}
	for _, c := range []struct {
		x  int
		mu float64
	}{{0, 2.5}, {3, 2.5}, {30, 25}, {400, 380}, {1100, 1100}, {2900, 3000}, {3000, 3000}, {3200, 3000}} {
		// A few roundings of a product of up to 3,200 terms: 1e-14 relative.
		approx.Check(t, fmt.Sprintf("Pois(%d; %v)", c.x, c.mu), poissonPMF(c.x, c.mu), exactPois(c.x, c.mu), 0, 1e-14)
	}
	for _, c := range []struct {
		n, x int
		rho  float64
	}{{10, 3, 0.3}, {200, 50, 0.25}, {3000, 1400, 0.47}, {800, 790, 0.99}} {
		// The binomial term by its recursion from P(0) in 300-bit floats.
		const prec = 400
		r := new(big.Float).SetPrec(prec).SetFloat64(c.rho)
		q := new(big.Float).SetPrec(prec).SetFloat64(1 - c.rho)
		f := new(big.Float).SetPrec(prec).SetFloat64(1)
		for range c.n - c.x {
			f.Mul(f, q)
		}
		for i := 1; i <= c.x; i++ {
			f.Mul(f, r)
			f.Mul(f, new(big.Float).SetPrec(prec).SetInt64(int64(c.n-c.x+i)))
			f.Quo(f, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
		}
		want, _ := f.Float64()
		approx.Check(t, fmt.Sprintf("Binom(%d; %d, %v)", c.x, c.n, c.rho), binomPMF(c.n, c.x, c.rho), want, 0, 1e-13)
		var cdf float64
		for j := 0; j <= c.x; j++ {
			cdf += binomPMF(c.n, j, c.rho)
		}
		m := newMap(1, 0.5, 1)
		approx.Check(t, fmt.Sprintf("P(Binom(%d, %v) ≤ %d)", c.n, c.rho, c.x), binomCDF(m.recips(c.n+1), c.n, c.x, c.rho), cdf, 1e-300, 1e-13)
	}
}

// A period reuses the map's work space: once its buffers have grown, the
// window evolution allocates nothing (Apply allocates its result).
func TestWindowNoAllocation(t *testing.T) {
	for _, c := range []mapCase{
		{5, 0.9, 400, farm.Start{}, 60},
		{5, 0.9, 1100, farm.Start{Kind: farm.Half, Jobs: 110}, 20},
	} {
		t.Run(c.String(), func(t *testing.T) {
			m := newMap(c.k, c.load, c.T)
			p := c.board(t, m)
			var res MapResult
			if err := m.applyInto(p, &res); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(5, func() {
				if err := m.applyInto(p, &res); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%v allocations per period", n)
			}
		})
	}
}

// Where the map settles is the same by both paths: fixed point or cycle,
// its period, the mean time in system and the board mean (the published
// rows: balanced fixed points at k = 1, T = 600 and k = 5, T = 400, the
// herded fixed point at T = 20, the 0.40·T herd from half:110 at T =
// 1,100 and the k = 1 map's return to balance from it).
func TestAttractorsMatchReference(t *testing.T) {
	type attCase struct {
		model Model
		start farm.Start
		iter  int
	}
	cases := []attCase{
		{Model{System: System{K: 5, Load: 0.9}, Period: 20}, farm.Start{}, 0},
		{Model{System: System{K: 5, Load: 0.9}, Period: 400}, farm.Start{}, 300},
		{Model{System: System{K: 1, Load: 0.9}, Period: 1100}, farm.Start{Kind: farm.Half, Jobs: 110}, 300},
	}
	if !testing.Short() {
		cases = append(cases, attCase{Model{System: System{K: 5, Load: 0.9}, Period: 1100}, farm.Start{Kind: farm.Half, Jobs: 110}, 300})
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("k=%d/T=%v/%v", c.model.K, c.model.Period, c.start), func(t *testing.T) {
			t.Parallel()
			start, err := Board(c.start)
			if err != nil {
				t.Fatal(err)
			}
			set := &AttractorSettings{Start: start, Tol: 1e-9, MaxIter: c.iter}
			got, err := attractor(&c.model, set, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := attractor(&c.model, set, true)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("k=%d T=%v %v", c.model.K, c.model.Period, c.start)
			t.Logf("%s: %v of period %d after %d periods (reference %v/%d/%d), mean time %.10g, board mean %.10g, relative differences %.1e, %.1e",
				name, got.Status, got.Period, got.Iterations, want.Status, want.Period, want.Iterations, got.Sojourn, got.BoardMean,
				math.Abs(got.Sojourn/want.Sojourn-1), math.Abs(got.BoardMean/want.BoardMean-1))
			if got.Status != want.Status || got.Period != want.Period {
				t.Errorf("%s: %v of period %d, reference %v of period %d", name, got.Status, got.Period, want.Status, want.Period)
			}
			if math.Abs(float64(got.Iterations-want.Iterations)) > 2 {
				t.Errorf("%s: settled after %d periods, reference %d", name, got.Iterations, want.Iterations)
			}
			// Both paths iterate to Tol 1e-9 on the same orbit.
			approx.Check(t, name+": mean time", got.Sojourn, want.Sojourn, 0, 1e-9)
			approx.Check(t, name+": board mean", got.BoardMean, want.BoardMean, 0, 1e-9)
			if got.Lost > 1e-12 {
				t.Errorf("%s: lost %g", name, got.Lost)
			}
		})
	}
	for _, model := range []Model{{System: System{K: 1, Load: 0.9}, Period: 600}, {System: System{K: 5, Load: 0.9}, Period: 400}} {
		t.Run(fmt.Sprintf("fixed point k=%d/T=%v", model.K, model.Period), func(t *testing.T) {
			got, err := fixedPoint(&model, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fixedPoint(&model, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("k=%d T=%v: fixed point, board mean %.10g, mean time %.10g, relative differences %.1e, %.1e", model.K, model.Period,
				got.Map.BoardMean, got.Map.Sojourn, math.Abs(got.Map.BoardMean/want.Map.BoardMean-1), math.Abs(got.Map.Sojourn/want.Map.Sojourn-1))
			if got.Status != outcome.Converged || want.Status != outcome.Converged {
				t.Errorf("fixed point %v; reference %v", got.Status, want.Status)
			}
			// Both converge to the fixed point's tolerance, 1e-9.
			approx.Check(t, "board mean", got.Map.BoardMean, want.Map.BoardMean, 0, 1e-9)
			approx.Check(t, "mean time", got.Map.Sojourn, want.Map.Sojourn, 0, 1e-9)
		})
	}
}

// The published herd: from half:110 at T = 1,100 the map settles on the
// two-group cycle with mean time 441.35 = 0.4012·T (and 1,201.3 at T =
// 3,000, not in short mode); the balanced fixed points have board means
// 4.728 (k = 1, T = 600) and 5.489 (k = 5, T = 400), the herded fixed
// point at T = 20 15.908.
func TestPublishedNumbers(t *testing.T) {
	herd := []struct {
		T    float64
		want float64
	}{{1100, 441.35}}
	if !testing.Short() {
		herd = append(herd, struct {
			T    float64
			want float64
		}{3000, 1201.3})
	}
	for _, c := range herd {
		t.Run(fmt.Sprintf("herd T=%v", c.T), func(t *testing.T) {
			t.Parallel()
			start, _ := Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * c.T)})
			att, err := Attractor(&Model{System: System{K: 5, Load: 0.9}, Period: c.T}, &AttractorSettings{Start: start, Tol: 1e-9, MaxIter: 300})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("T=%v: %v of period %d, mean time %.4f = %.4f·T", c.T, att.Status, att.Period, att.Sojourn, att.Sojourn/c.T)
			if att.Status != outcome.Cycle || att.Period != 2 {
				t.Errorf("%v of period %d, want the two-cycle", att.Status, att.Period)
			}
			approx.Check(t, "mean time", att.Sojourn, c.want, 0.05, 0) // published to 0.05
		})
	}
	for _, c := range []struct {
		k    int
		T    float64
		want float64
	}{{1, 600, 4.728}, {5, 400, 5.489}} {
		t.Run(fmt.Sprintf("k=%d/T=%v", c.k, c.T), func(t *testing.T) {
			fp, err := FixedPoint(&Model{System: System{K: c.k, Load: 0.9}, Period: c.T}, nil)
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "board mean", fp.Map.BoardMean, c.want, 5e-4, 0) // published to three decimals
		})
	}
	att, err := Attractor(&Model{System: System{K: 5, Load: 0.9}, Period: 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if att.Status != outcome.FixedPoint {
		t.Errorf("k=5 T=20: %v, want a fixed point", att.Status)
	}
	approx.Check(t, "k=5 T=20: board mean", att.BoardMean, 15.908, 5e-4, 0) // published to three decimals
}
