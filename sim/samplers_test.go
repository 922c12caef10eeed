package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// The samplers against theory. Every statistical check allows 5 standard
// errors of its estimate (a false alarm about once in 1.7 million checks;
// the seeds are fixed, so a pass is reproducible).
const tol = 5

// draws returns n sizes from z.
func draws(z farm.Sizes, n int, seed uint64) []float64 {
	l, r := newSizeLaw(z), newRNG(seed, 0)
	x := make([]float64, n)
	for i := range x {
		x[i] = l.draw(r)
	}
	return x
}

// The uniform that picks the H2 branch resolves the giant probability
// p ≈ 1/(2c) of farm.H2Params to 2⁻⁵³/p: below 10⁻⁵ relative up to the
// largest SCV that a run within MaxArrivals can resolve (MaxSizeError:
// about 100·SCV jobs per replication, so SCV ≤ 10¹⁰).
func TestH2BranchResolution(t *testing.T) {
	for _, c := range []float64{1 + 1e-9, 1.5, 30, 1e3, 1e4, 1e6, 1e8, 1e10} {
		p, _, _ := farm.H2Params(c)
		if res := math.Ceil(p*(1<<53))/(1<<53)/p - 1; res > 1e-5 {
			t.Errorf("SCV %g: the 53-bit uniform resolves p = %g only to %.2g", c, p, res)
		}
	}
}

// H2 sizes, drawn: mean 1 within 5 standard errors √(SCV/n), and the giant
// branch (stratified: the sizes above x = 30, where the small branch of
// mean ≈ ½ contributes e⁻⁶⁰) occurs with probability p·e^(−x/g) and has
// mean x + g (memoryless), both within 5 standard errors. SCV 10³ with 4
// million draws (about 2,000 giants); SCV 10⁵ with 16 million in a long
// run.
func TestH2Sampler(t *testing.T) {
	cases := []struct {
		scv float64
		n   int
	}{{4, 1 << 20}, {1e3, 1 << 22}}
	if !testing.Short() {
		cases = append(cases, struct {
			scv float64
			n   int
		}{1e5, 1 << 24})
	}
	for _, c := range cases {
		z := farm.Sizes{Kind: farm.H2, SCV: c.scv}
		x := draws(z, c.n, 3)
		p, g, _ := farm.H2Params(c.scv)
		var sum, giants, giantSum float64
		const cut = 30.0
		for _, v := range x {
			sum += v
			if v > cut {
				giants++
				giantSum += v
			}
		}
		n := float64(c.n)
		if mean, se := sum/n, math.Sqrt(c.scv/n); math.Abs(mean-1) > tol*se {
			t.Errorf("h2:%g: mean %.4f of %d draws, want 1 ± %.4f", c.scv, mean, c.n, tol*se)
		}
		if c.scv < 100 {
			continue // no separate giant branch beyond the cut
		}
		q := p * math.Exp(-cut/g)
		if se := math.Sqrt(n * q * (1 - q)); math.Abs(giants-n*q) > tol*se {
			t.Errorf("h2:%g: %v sizes above %v, want %.1f ± %.1f", c.scv, giants, cut, n*q, tol*se)
		}
		if m, se := giantSum/giants, g/math.Sqrt(giants); math.Abs(m-(cut+g)) > tol*se {
			t.Errorf("h2:%g: mean giant %.1f, want %.1f ± %.1f", c.scv, m, cut+g, tol*se)
		}
	}
}

// Exponential and deterministic sizes: mean and variance 1 and 0, every
// size positive (the ziggurat's exact 0 is redrawn).
func TestExpDetSamplers(t *testing.T) {
	const n = 1 << 21
	x := draws(farm.Sizes{}, n, 5)
	var s1, s2 float64
	for _, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("exp size %v", v)
		}
		s1 += v
		s2 += v * v
	}
	mean, m2 := s1/n, s2/n
	// Var(S) = 1, Var(S²) = E[S⁴] − E[S²]² = 24 − 4.
	if math.Abs(mean-1) > tol/math.Sqrt(n) || math.Abs(m2-2) > tol*math.Sqrt(20.0/n) {
		t.Errorf("exp: mean %.5f, E[S²] %.5f; want 1 and 2", mean, m2)
	}
	for _, v := range draws(farm.Sizes{Kind: farm.Deterministic}, 1000, 5) {
		if v != 1 {
			t.Fatalf("det size %v", v)
		}
	}
}

// Pareto sizes at shapes down to the smallest a run can resolve
// (1.15 needs over 10⁸ jobs per replication) and up: P(S > x_m·2^(k/a)) =
// 2⁻ᵏ for k = 4, 12 (inside the range that tailUniform refines) and 18
// in 2 million draws,
// binomial within 5 standard errors; the mean truncated there, E[min(S, M)]
// = 1 − 2^(−k(a−1)/a)/a, within 5 standard errors of its (finite)
// variance. The mass beyond the truncation is the tail just checked, so
// the mean is right: the sampler itself loses only the mass beyond
// u = 2⁻¹⁰⁰⁰, 2^(−1000(a−1)/a) (10⁻³⁹ at a = 1.15).
func TestParetoSampler(t *testing.T) {
	const n = 1 << 21
	for i, a := range []float64{1.15, 1.2, 1.5, 2, 2.5, 10} {
		z := farm.Sizes{Kind: farm.Pareto, Shape: a}
		x := draws(z, n, uint64(10+i))
		xm := (a - 1) / a
		for _, v := range x {
			if !(v >= xm) || math.IsInf(v, 0) {
				t.Fatalf("pareto:%g: size %v below x_m = %v", a, v, xm)
			}
		}
		for _, k := range []float64{4, 12, 18} {
			m := xm * math.Exp2(k/a)
			var above, trunc, trunc2 float64
			for _, v := range x {
				w := math.Min(v, m)
				trunc += w
				trunc2 += w * w
				if v > m {
					above++
				}
			}
			q := math.Exp2(-k)
			if se := math.Sqrt(n * q * (1 - q)); math.Abs(above-n*q) > tol*se+0.5 {
				t.Errorf("pareto:%g: %v sizes above x_m·2^(%g/a), want %.1f ± %.1f", a, above, k, n*q, tol*se)
			}
			// E[min(S, M)] and E[min(S, M)²] with P(S > M) = 1/r, r = 2ᵏ.
			r, g := math.Exp2(k), (2-a)/a
			want := 1 - math.Pow(r, -(a-1)/a)/a
			m2 := xm * xm * math.Log(r)
			if g != 0 {
				m2 = xm * xm * math.Expm1(g*math.Log(r)) / g
			}
			m2 += m * m / r
			se := math.Sqrt((m2 - want*want) / n)
			if got := trunc / n; math.Abs(got-want) > tol*se {
				t.Errorf("pareto:%g: E[min(S, x_m·2^(%g/a))] = %.5f, want %.5f ± %.5f", a, k, got, want, tol*se)
			}
		}
	}
}

// tailUniform is 1 − float64() (the same number from the same draw) above
// 2⁻¹¹, and below refines it: u lies in ((j−1)·2⁻⁵³, j·2⁻⁵³] where j·2⁻⁵³
// is what 1 − float64() gave, with one more draw. Checked draw by draw
// against a twin stream, and P(u ≤ 2⁻ᵏ) = 2⁻ᵏ within 5 standard errors for
// k = 12, 16, 20 (the refined range).
func TestTailUniform(t *testing.T) {
	a, b := newRNG(1, 0), newRNG(1, 0)
	refined := 0
	for range 1 << 21 {
		u := a.tailUniform()
		v := 1 - b.float64()
		if v > 1.0/(1<<11) {
			if u != v {
				t.Fatalf("tailUniform %v, 1 − float64() %v", u, v)
			}
			continue
		}
		refined++
		b.float64() // the refining draw
		if !(u > v-1.0/(1<<53) && u <= v) {
			t.Fatalf("refined %v outside (%v, %v]", u, v-1.0/(1<<53), v)
		}
	}
	if refined == 0 {
		t.Error("no draw was refined")
	}
	const n = 1 << 23
	r := newRNG(2, 0)
	var below [3]float64
	for range n {
		if u := r.tailUniform(); u <= 0x1p-12 {
			below[0]++
			if u <= 0x1p-16 {
				below[1]++
				if u <= 0x1p-20 {
					below[2]++
				}
			}
		}
	}
	for i, k := range []float64{12, 16, 20} {
		q := math.Exp2(-k)
		if se := math.Sqrt(n * q * (1 - q)); math.Abs(below[i]-n*q) > tol*se {
			t.Errorf("%v draws ≤ 2^-%g, want %.1f ± %.1f", below[i], k, n*q, tol*se)
		}
	}
}

// SizeError, on which the refusal of unresolvable sizes rests, describes
// how far the mean of n sizes typically falls from 1: the median of
// |mean − 1| over 300 samples lies within a factor 3 of it, from
// exponential to Pareto shapes where the mean of n is mostly a shortfall.
func TestSizeErrorDescribesSpread(t *testing.T) {
	for i, c := range []struct {
		z farm.Sizes
		n int
	}{
		{farm.Sizes{}, 1000},
		{farm.Sizes{Kind: farm.H2, SCV: 100}, 1000},
		{farm.Sizes{Kind: farm.H2, SCV: 1e4}, 10_000},
		{farm.Sizes{Kind: farm.Pareto, Shape: 2.5}, 1000},
		{farm.Sizes{Kind: farm.Pareto, Shape: 1.5}, 1000},
		{farm.Sizes{Kind: farm.Pareto, Shape: 1.2}, 10_000},
	} {
		x := draws(c.z, 300*c.n, uint64(20+i))
		dev := make([]float64, 300)
		for s := range dev {
			var sum float64
			for _, v := range x[s*c.n : (s+1)*c.n] {
				sum += v
			}
			dev[s] = math.Abs(sum/float64(c.n) - 1)
		}
		slices.Sort(dev)
		med, e := dev[150], SizeError(c.z, float64(c.n))
		t.Logf("%v, n = %d: median |mean − 1| %.4f, SizeError %.4f", c.z, c.n, med, e)
		if med > 3*e || med < e/3 {
			t.Errorf("%v, n = %d: median |mean − 1| = %.4f, SizeError %.4f: not within a factor 3", c.z, c.n, med, e)
		}
	}
}

// Our inlined PCG is math/rand/v2's: the same numbers from the same seeds
// (the streams of every run depend on it).
func TestPCGMatchesStdlib(t *testing.T) {
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {0x9e3779b97f4a7c15, 1<<64 - 1}} {
		ours, std := pcg{seed[0], seed[1]}, rand.NewPCG(seed[0], seed[1])
		for k := range 1_000_000 {
			if a, b := ours.Uint64(), std.Uint64(); a != b {
				t.Fatalf("seed %v, draw %d: %#x, math/rand/v2 %#x", seed, k, a, b)
			}
		}
	}
}

// Our ziggurat is math/rand/v2's Rand.ExpFloat64: the same values from
// the same generator, over enough draws (10⁷ per seed) to pass through
// every layer, the tail and the rejection step many times — so its
// tables equal the standard library's in every entry that matters.
func TestZigguratMatchesStdlib(t *testing.T) {
	draws := 10_000_000
	if testing.Short() {
		draws = 1_000_000
	}
	for _, seed := range [][2]uint64{{1, 2}, {3, 4}} {
		ours := &rng{src: pcg{seed[0], seed[1]}}
		std := rand.New(rand.NewPCG(seed[0], seed[1]))
		var tail int
		for k := range draws {
			a, b := ours.ziggurat(), std.ExpFloat64()
			if a != b {
				t.Fatalf("seed %v, draw %d: %v, math/rand/v2 %v", seed, k, a, b)
			}
			if a > zigTail {
				tail++
			}
		}
		if tail == 0 {
			t.Fatalf("seed %v: no draw in the tail", seed)
		}
	}
}
