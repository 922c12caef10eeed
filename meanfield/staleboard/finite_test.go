package staleboard

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// The timing part of the board noise sums the dispatchers' clock
// increments, (1/λ)·Σ_j Δ_j·H_j H_jᵀ with H_j = Σ_{v≥j} G_v; it must equal
// the direct double sum over the boundaries' Brownian covariances,
// (1/λ)·Σ_{u,v} min(t_u, t_v)·G_u G_vᵀ (an independent evaluation of the
// same algebra). The noise is symmetric, positive semi-definite, and
// mass-preserving: every row sums to zero (the board stays a
// distribution).
func TestBoardNoise(t *testing.T) {
	m := &Model{System: System{K: 5, Load: 0.9}, Period: 300}
	fp, err := FixedPoint(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := fp.Board[:support(fp.Board, noiseSupportTol)]
	mp, _ := NewMap(m)
	fast := mp.boardOnly()
	nz, err := fast.noise(x)
	if err != nil {
		t.Fatal(err)
	}
	top := len(x) - 1
	s := fast.schedule(x, top, 1)
	resp, _, err := fast.boundaryResponse(x, top, &s)
	if err != nil {
		t.Fatal(err)
	}
	bt := s.boundaryTimes()
	direct := mat.NewSymDense(nz.Dim, nil)
	for u := range bt {
		for v := range bt {
			c := math.Min(bt[u], bt[v]) / m.Load
			for i, gi := range resp[u] {
				for j, gj := range resp[v] {
					if j >= i {
						direct.SetSym(i, j, direct.At(i, j)+c*gi*gj)
					}
				}
			}
		}
	}
	cov := nz.Covariance()
	for i := range nz.Dim {
		var row float64
		for j := range nz.Dim {
			row += cov.At(i, j)
			// The same algebra summed in two orders: 1e-10 absolute and relative.
			if !approx.Check(t, fmt.Sprintf("timing[%d][%d] against the direct sum", i, j), nz.Timing.At(i, j), direct.At(i, j), 1e-10, 1e-10) {
				t.FailNow()
			}
		}
		// Mass-preserving to rounding of a few hundred terms of order 1: 1e-9.
		approx.Check(t, fmt.Sprintf("row %d of Σ", i), row, 0, 1e-9, 0)
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, false) {
		t.Fatal("eigen")
	}
	if v := eig.Values(nil); v[0] < -1e-10 {
		t.Errorf("Σ has a negative eigenvalue %v", v[0])
	}
	// The board mean's variance two ways: the matrix and the direct sum.
	v, _, err := fast.meanVariance(x)
	if err != nil {
		t.Fatal(err)
	}
	var w float64
	for i := range nz.Dim {
		for j := range nz.Dim {
			w += float64(i*j) * cov.At(i, j)
		}
	}
	approx.Check(t, "board mean variance, direct against the matrix", v, w, 0, 1e-8)
}

// The escape analysis brackets what it must: just above the N = ∞ edge a
// system of 100 servers tips within 100 periods with near certainty; at
// 1.3·T* it does not; the probability falls as N grows and rises with the
// horizon; below the edge (no balanced state) every system tips.
func TestTipProbability(t *testing.T) {
	edge, err := Edge(&System{K: 5, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	near, err := TipProbability(&TipModel{FiniteModel: FiniteModel{System: System{K: 5, Load: 0.9}, Servers: 100}, Period: 1.01 * edge.Period}, nil)
	if err != nil || near.Status != outcome.Converged {
		t.Fatal(near, err)
	}
	far, err := TipProbability(&TipModel{FiniteModel: FiniteModel{System: System{K: 5, Load: 0.9}, Servers: 100}, Period: 1.3 * edge.Period}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if near.Probability < 0.9 || far.Probability > 0.01 {
		t.Errorf("N = 100: P(tip within 100) = %v at 1.01·T*, %v at 1.3·T*", near.Probability, far.Probability)
	}
	e := near.Escape
	if !(e.SaddleMean > e.BalancedMean) || e.StationaryVar < e.OnePeriodVar || len(e.Path) < 3 {
		t.Errorf("escape at 1.01·T*: balanced %v saddle %v, variances %v/%v, path %d", e.BalancedMean, e.SaddleMean, e.OnePeriodVar, e.StationaryVar, len(e.Path))
	}
	prev := 1.0
	for _, n := range []int{25, 100, 400, 1600} {
		p := e.TipProbability(n, 100)
		if p > prev+1e-12 {
			t.Errorf("P(tip) rises with N: %v at N = %d after %v", p, n, prev)
		}
		prev = p
	}
	if e.TipProbability(400, 10) > e.TipProbability(400, 100) || e.TipProbability(400, 100) > e.TipProbability(400, 1000) {
		t.Error("P(tip) does not grow with the horizon")
	}
	below, err := NewEscape(&Model{System: System{K: 5, Load: 0.9}, Period: 0.8 * edge.Period}, nil)
	if err != nil || below.TipProbability(10000, 1) != 1 {
		t.Errorf("below the edge: %v", err)
	}
	sys := System{K: 5, Load: 0.9}
	for _, bad := range []*TipModel{
		{FiniteModel: FiniteModel{System: sys}, Period: 300},
		{FiniteModel: FiniteModel{System: sys, Servers: 100}},
		{FiniteModel: FiniteModel{System: sys, Servers: -1}, Period: 300},
		{FiniteModel: FiniteModel{System: sys, Servers: 4}, Period: 300},
		{FiniteModel: FiniteModel{System: sys, Servers: 100, Horizon: MaxHorizon + 1}, Period: 300},
	} {
		t.Run(fmt.Sprintf("%+v", *bad), func(t *testing.T) {
			if _, err := TipProbability(bad, nil); err == nil {
				t.Errorf("%+v accepted", *bad)
			}
		})
	}
}

// The finite-N edges of k = 5, λ = 0.9 within 100 refresh periods against
// the published simulations (about 3.5 at N = 25, 3.2 at 100, 2.9–3.0 at
// 800 and 1,600), within 5%; and they fall toward the N = ∞ edge as N
// grows.
func TestFiniteEdgePublished(t *testing.T) {
	if testing.Short() {
		t.Skip("the finite-N edge search takes about a minute")
	}
	var models []FiniteModel
	ns := []int{25, 100, 800, 1600, 10000}
	for _, n := range ns {
		models = append(models, FiniteModel{System: System{K: 5, Load: 0.9}, Servers: n})
	}
	res, err := FiniteEdgeTable(models, nil)
	if err != nil {
		t.Fatal(err)
	}
	inf := res[0].Infinite.Scaled
	want := map[int]float64{25: 3.5, 100: 3.2, 800: 2.95}
	prev := math.Inf(1)
	for i, r := range res {
		n := ns[i]
		if r.Status != outcome.EdgeFound || r.Servers != n || r.Horizon != DefaultHorizon {
			t.Fatalf("N = %d: %+v", n, r)
		}
		t.Logf("N = %d: T*(N)(1−λ)² = %.4f [%.4f, %.4f], %d escape analyses", n, r.Scaled, r.Lo*m1(0.9), r.Hi*m1(0.9), r.Escapes)
		if w, ok := want[n]; ok {
			// The published simulations give one or two digits: 5%.
			approx.Check(t, fmt.Sprintf("N = %d: T*(N)(1−λ)²", n), r.Scaled, w, 0, 0.05)
		}
		if !(r.Scaled < prev && r.Scaled > inf) {
			t.Errorf("N = %d: %.4f does not lie between the N = ∞ edge %.4f and the smaller N's %.4f", n, r.Scaled, inf, prev)
		}
		prev = r.Scaled
	}
}

func m1(load float64) float64 { return (1 - load) * (1 - load) }

// BenchmarkFiniteEdge is the finite-N theory edge for one N: k = 5,
// λ = 0.9, N = 100, H = 100 (the N = ∞ edge included).
func BenchmarkFiniteEdge(b *testing.B) {
	for b.Loop() {
		if _, err := FiniteEdge(&FiniteModel{System: System{K: 5, Load: 0.9}, Servers: 100}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEscape is one escape analysis, k = 5, λ = 0.9, T(1−λ)² = 3.1.
func BenchmarkEscape(b *testing.B) {
	for b.Loop() {
		if _, err := NewEscape(&Model{System: System{K: 5, Load: 0.9}, Period: 310}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// With no N = ∞ edge (k = 2: the balanced state is stable down to the
// floor and no herd waits below it), a finite system has none either: its
// tipping probability at the floor is below ½, and the search must not
// report the floor as an edge (an earlier search assumed P = 1 at its
// start and reported 0.0501).
func TestFiniteNoEdge(t *testing.T) {
	r, err := FiniteEdge(&FiniteModel{System: System{K: 2, Load: 0.9}, Servers: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != outcome.NoEdge || r.Infinite.Status != outcome.NoEdge {
		t.Errorf("k = 2, N = 100: %v (N = ∞: %v), scaled %v; want no edge", r.Status, r.Infinite.Status, r.Scaled)
	}
	approx.Check(t, "no edge: scaled period (the floor)", r.Scaled, 0.05, 1e-12, 0)
}
