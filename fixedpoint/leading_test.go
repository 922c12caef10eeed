package fixedpoint

import (
	"math"
	"math/cmplx"
	"testing"
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
	if math.Abs(sp.Radius-lead) > 1e-6 || !sp.Arnoldi || sp.Evaluations != n {
		t.Errorf("full Krylov space: radius %.10f (want %.10f), %d evaluations (want %d)", sp.Radius, lead, sp.Evaluations, n)
	}
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
	if math.Abs(sp.Radius-0.5) > 1e-6 || math.Abs(math.Abs(imag(sp.Leading))-imag(want)) > 1e-6 || sp.Evaluations != 4 {
		t.Errorf("rank 2: leading %v (want %v), %d evaluations", sp.Leading, want, sp.Evaluations)
	}
}
