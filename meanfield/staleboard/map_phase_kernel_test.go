package staleboard

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/cputime"
)

// The lattice kernels of the phase evolution are fused (one pass over the
// states computes D(a, s), adds its weighted part to the pass's output
// and its mean); these tests hold them to the operators written out one
// at a time, and bound the probe maps' truncation.

// refUp adds c times Up x to dst (x over counts 0..n−1, dst over 0..n at
// least): an arrival.
func (s *phaseServer) refUp(dst, x []float64, c float64, n int) {
	if c == 0 {
		return
	}
	switch {
	case !s.h2:
		d := dst[1 : n+1]
		for i, v := range x[:n] {
			d[i] += c * v
		}
	case s.disc == farm.FCFS:
		// (0) → (1, φ) with φ fresh; (q, φ) → (q + 1, φ).
		dst[1] += c * x[0] * (1 - s.p)
		dst[2] += c * x[0] * s.p
		if n > 1 {
			d := dst[3 : 2*n+1]
			for i, v := range x[1 : 2*n-1] {
				d[i] += c * v
			}
		}
	default:
		// (q, j) → (q + 1, j) with 1 − p, (q + 1, j + 1) with p.
		cs, cg := c*(1-s.p), c*s.p
		for q := range n {
			xo, do := s.offset(q), s.offset(q+1)
			xs := x[xo : xo+q+1]
			d := dst[do : do+q+2]
			for j, v := range xs {
				d[j] += cs * v
				d[j+1] += cg * v
			}
		}
	}
}

// refPoint is the lattice point of the pass recursion by the operators
// one at a time (refUp, addDown, meanCount and the sum into acc): the
// composition the fused latticePoint computes in one pass.
func refPoint(sv *phaseServer, d, x []float64, prev, cur [][]float64, a, s, nl int, acc []float64, c float64) float64 {
	clear(d)
	switch {
	case s == 0 && a == 0:
		copy(d, x)
	case s == 0:
		sv.refUp(d, cur[a-1], 1, nl+a-1)
	default:
		cs := float64(s) / float64(a+s)
		sv.addDown(d, prev[a], cs, nl+a)
		if a > 0 {
			sv.refUp(d, cur[a-1], 1-cs, nl+a-1)
		}
	}
	m := sv.offset(nl + a)
	for i, v := range d[:m] {
		acc[i] += c * v
	}
	return sv.meanCount(d[:m])
}

// latticeServers are the three server chains of the phase evolution.
var latticeServers = []struct {
	name string
	sz   farm.Sizes
	disc farm.Discipline
}{
	{"exp", farm.Sizes{}, farm.FCFS},
	{"fcfs-h2:4", farm.Sizes{Kind: farm.H2, SCV: 4}, farm.FCFS},
	{"ps-h2:4", farm.Sizes{Kind: farm.H2, SCV: 4}, farm.PS},
}

// latticeRun runs the recursion of one pass (k = 3, S = 12) from a random
// state over nl counts, by point (the fused kernel or refPoint), and
// returns the output and the sum of the means weighted by a + s + 1.
func latticeRun(sv *phaseServer, nl int, point func(sv *phaseServer, d, x []float64, prev, cur [][]float64, a, s, nl int, acc []float64, c float64) float64) ([]float64, float64) {
	const k, S = 3, 12
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, sv.offset(nl))
	for i := range x {
		x[i] = rng.Float64()
	}
	n := sv.offset(nl + k)
	prev, cur := make([][]float64, k+1), make([][]float64, k+1)
	for a := range prev {
		// Stale values past each point's counts must not be read.
		prev[a], cur[a] = make([]float64, n), make([]float64, n)
		for i := range prev[a] {
			prev[a][i], cur[a][i] = math.NaN(), math.NaN()
		}
	}
	out := make([]float64, n)
	var means float64
	for s := 0; s <= S; s++ {
		for a := 0; a <= k; a++ {
			c := 0.0
			if (a+s)%3 != 0 {
				c = 1 / float64(1+a+s)
			}
			means += float64(a+s+1) * point(sv, cur[a], x, prev, cur, a, s, nl, out, c)
		}
		prev, cur = cur, prev
	}
	return out, means
}

// TestLatticeFused checks the fused kernels against the operators one at
// a time, for each server and for a start of 1 and of 30 counts.
// Tolerance 1e-13 relative: the same positive terms summed in another
// order (the rounding of up to a few hundred additions, each within one
// ulp, 1.1e-16).
func TestLatticeFused(t *testing.T) {
	for _, c := range latticeServers {
		for _, nl := range []int{1, 30} {
			sv := newPhaseServer(c.sz, c.disc)
			fused := func(sv *phaseServer, d, x []float64, prev, cur [][]float64, a, s, nl int, acc []float64, c float64) float64 {
				return sv.latticePoint(d, x, prev, cur, a, s, nl, acc, c)
			}
			got, gm := latticeRun(sv, nl, fused)
			want, wm := latticeRun(newPhaseServer(c.sz, c.disc), nl, refPoint)
			approx.Check(t, c.name+" means", gm, wm, 0, 1e-13)
			for i := range want {
				approx.Check(t, c.name+" out", got[i], want[i], 0, 1e-13)
			}
		}
	}
}

// TestDeathStepFused checks the fused PS death step against addDown and
// the sums it replaces, on a random state of 40 counts (tolerance as for
// TestLatticeFused).
func TestDeathStepFused(t *testing.T) {
	sv := newPhaseServer(farm.Sizes{Kind: farm.H2, SCV: 10}, farm.PS)
	rng := rand.New(rand.NewPCG(5, 6))
	const levels = 40
	n := sv.offset(levels)
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.Float64()
	}
	nx, acc := make([]float64, n), make([]float64, n)
	busy, mean := sv.deathStep(nx, y, levels, acc, 0.25)
	want := make([]float64, n)
	sv.addDown(want, y, 1, levels)
	var wantBusy float64
	for _, v := range y[1:] {
		wantBusy += v
	}
	approx.Check(t, "busy", busy, wantBusy, 0, 1e-13)
	approx.Check(t, "mean", mean, sv.meanCount(y), 0, 1e-13)
	for i := range want {
		approx.Check(t, "next", nx[i], want[i], 0, 1e-13)
		approx.Check(t, "acc", acc[i], 0.25*y[i], 0, 1e-15)
	}
}

// TestProbeMapError measures the probe maps' truncation (probeTrimTol,
// probePoissonTol) against the full map on the balanced state of k = 5,
// λ = 0.9 with PS and H2 sizes, at a period near the PS edges (T = 60)
// and at the top of their searches (T = 440, long only): the mass a probe
// loses stays below 1e-12 a period (the support's limit at the top of the
// root path, where the probe maps solve the top's fixed point), and its
// next board is the full map's within 1e-11 in ‖·‖₁ — a millionth of the
// probes' solve tolerance, rootProbeTol.
func TestProbeMapError(t *testing.T) {
	for _, T := range []float64{60, 440} {
		if T > 100 && testing.Short() {
			continue
		}
		sys := System{K: 5, Load: 0.9, Sizes: farm.Sizes{Kind: farm.H2, SCV: 4}, Discipline: farm.PS}
		full := newModelMap(&sys, T).boardOnly()
		// A balanced state (near the fixed point: the board after a
		// dozen periods from empty).
		x := full.State([]float64{1})
		for range 12 {
			r, err := full.Apply(x)
			if err != nil {
				t.Fatal(err)
			}
			x = r.Next
		}
		want, err := full.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		probe := newModelMap(&sys, T).boardOnly()
		probeMap(probe)
		got, err := probe.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for i := range max(len(got.Next), len(want.Next)) {
			d += math.Abs(entry(got.Next, i) - entry(want.Next, i))
		}
		t.Logf("T = %g: probe lost %.3g (full %.3g), ‖Δ‖₁ = %.3g", T, got.Lost, want.Lost, d)
		if got.Lost > 1e-12 || d > 1e-11 {
			t.Errorf("T = %g: the probe map lost %.3g and moved the board by %.3g, want ≤ 1e-12 and ≤ 1e-11", T, got.Lost, d)
		}
	}
}

// BenchmarkLatticePoint is the fused PS lattice kernel against the
// operators one at a time (refPoint) on a pass from 100 counts: the
// ratio is the fusion's gain, in CPU time per pass recursion.
func BenchmarkLatticePoint(b *testing.B) {
	for _, c := range []struct {
		name  string
		fused bool
	}{{"ref", false}, {"fused", true}} {
		b.Run(c.name, func(b *testing.B) {
			sv := newPhaseServer(farm.Sizes{Kind: farm.H2, SCV: 10}, farm.PS)
			point := refPoint
			if c.fused {
				point = func(sv *phaseServer, d, x []float64, prev, cur [][]float64, a, s, nl int, acc []float64, c float64) float64 {
					return sv.latticePoint(d, x, prev, cur, a, s, nl, acc, c)
				}
			}
			c0 := cputime.Process()
			for b.Loop() {
				latticeRun(sv, 100, point)
			}
			b.ReportMetric(float64((cputime.Process()-c0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
