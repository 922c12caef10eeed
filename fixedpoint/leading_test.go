package fixedpoint

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
)

// LeadingSpectrum agrees with ComputeSpectrum's Arnoldi estimate on the same
// Krylov space, one evaluation per vector: exactly on a Krylov space of
// the whole zero-sum subspace, and on a map whose Jacobian has few
// eigenvalues away from 0 with a handful of vectors.
func TestLeadingSpectrum(t *testing.T) {
	const n, a, b = 40, 0.3, 0.45
	f := chain(birthDeath(n, a, b))
	pi, lead := birthDeathStationary(n, a, b)
	sp, err := LeadingSpectrum(f, pi, nil, &SpectrumSettings{SupportTol: 1e-30, Krylov: n - 1})
	if err != nil {
		t.Fatal(err)
	}
	if !sp.Arnoldi || sp.Evaluations != n {
		t.Errorf("full Krylov space: Arnoldi %v, %d evaluations (want %d)", sp.Arnoldi, sp.Evaluations, n)
	}
	// Exact on the whole subspace but for the forward differences'
	// rounding over their step (1e-16/1e-7), as in TestSpectrum.
	approx.Check(t, "full Krylov space: radius", sp.Radius, lead, 1e-6, 0)
	// A chain that mixes in one step except for a slow rotation among
	// three states: the Jacobian has rank 2 on zero-sum vectors (the
	// complex pair 0.5·e^{±2πi/3}), found with 4 vectors for 4
	// evaluations when Φ(x) is given.
	m := 12
	p := make([][]float64, m)
	for i := range p {
		p[i] = make([]float64, m)
		for j := range p[i] {
			p[i][j] = 0.5 / float64(m)
		}
		if i < 3 {
			p[i][(i+1)%3] += 0.5
		} else {
			for j := range 3 {
				p[i][j] += 0.5 / 3
			}
		}
	}
	g := chain(p)
	x := make([]float64, m)
	for i := range x {
		x[i] = 1 / float64(m)
	}
	for range 200 {
		y := make([]float64, m)
		if err := g(y, x); err != nil {
			t.Fatal(err)
		}
		x = y
	}
	fx := make([]float64, m)
	if err := g(fx, x); err != nil {
		t.Fatal(err)
	}
	sp, err = LeadingSpectrum(g, x, fx, &SpectrumSettings{Krylov: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := 0.5 * cmplx.Exp(complex(0, 2*math.Pi/3))
	if sp.Evaluations != 4 {
		t.Errorf("rank 2: %d evaluations, want 4", sp.Evaluations)
	}
	// As above: exact but for the differences' rounding.
	approx.Check(t, "rank 2: radius", sp.Radius, 0.5, 1e-6, 0)
	approx.Check(t, "rank 2: |imaginary part|", math.Abs(imag(sp.Leading)), imag(want), 1e-6, 0)
}
