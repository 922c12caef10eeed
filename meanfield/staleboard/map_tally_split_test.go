package staleboard

import (
	"math"
	"testing"
)

// TestTallyProjSplit checks the split evolution's exact kernels and its
// boundary error against the exact chain of exactTally (k = 1, where the
// projection is exact, best of two, λ = 0.9). From a board at q = 20,
// which the boundary does not reach within T = 5, arrivals and services
// commute and the split (H = 4, rates on every tally step) agrees with
// the chain to its kernels' and the tally steps' errors (measured 8e-6
// on the mean count's integral and 1.4e-5 on the board mean; 1e-4 allows
// 7 times the larger): a wrong kernel moves the board mean by its own error.
// From the spread board at T = 10 (H = 1, likewise) the boundary's splitting error
// shows (measured 1.3e-2 on the integral, 1.4e-2 on the board mean) and
// must stay above 5e-3, or the package's account of why the split is not
// the map is stale.
func TestTallyProjSplit(t *testing.T) {
	high := make([]float64, 21)
	high[20] = 1
	for _, c := range []struct {
		board  []float64
		T, H   float64
		sub    int
		within bool // within 1e-4 of the exact chain, or beyond 5e-3
	}{
		{high, 5, 4, 1, true},
		{[]float64{0.3, 0.4, 0.2, 0.1}, 10, 1, 1, false},
	} {
		wi, wb := exactTally(c.board, 1, 2, 0.9, c.T, 0.02)
		sys := System{K: 1, Load: 0.9, Tally: Own, Choices: 2}
		mp := newModelMap(&sys, c.T)
		mp.bestd.split, mp.bestd.splitStep, mp.bestd.splitSub = true, c.H, c.sub
		var res MapResult
		if err := mp.applyInto(c.board, &res); err != nil {
			t.Fatal(err)
		}
		gi, gb := res.MeanQueue*c.T, res.BoardMean
		e := math.Max(math.Abs(gi/wi-1), math.Abs(gb/wb-1))
		t.Logf("T=%v H=%v: exact ∫E[q] %.8f board %.8f; split %.8f %.8f (%.2g)", c.T, c.H, wi, wb, gi, gb, e)
		if c.within && e > 1e-4 {
			t.Errorf("T=%v: split off the exact chain by %.3g relative, want ≤ 1e-4", c.T, e)
		}
		if !c.within && e < 5e-3 {
			t.Errorf("T=%v: split within %.3g of the exact chain, its boundary error was measured at 1.3e-2", c.T, e)
		}
	}
}

// TestSplitKernels checks the services kernel against the Poisson law
// (q → max(q − N, 0)) and the arrival kernel, by uniformization, against
// the pure-birth chain's closed form at distinct rates, both to rounding
// (1e-13: sums of a few dozen terms of size ≤ 1).
func TestSplitKernels(t *testing.T) {
	var sp splitSpace
	j := newJointLaw(0, []int{0}, []int{6}, []float64{1})
	j.trim()
	sk := newServiceKernel(2.5, 1.25)
	sp.serve(&j, &sk)
	pois := func(mu float64, m int) float64 {
		lg, _ := math.Lgamma(float64(m) + 1)
		return math.Exp(float64(m)*math.Log(mu) - mu - lg)
	}
	for q := 0; q <= 6; q++ {
		want := pois(2.5, 6-q)
		if q == 0 {
			want = 0
			for m := 6; m < 80; m++ {
				want += pois(2.5, m)
			}
		}
		got := 0.0
		if i := q - j.lo[0]; i >= 0 && i < j.n[0] {
			got = j.f[j.off[0]+i]
		}
		if math.Abs(got-want) > 1e-13 {
			t.Errorf("services: P(q = %d) = %.17g, want %.17g", q, got, want)
		}
	}
	// Rates 1, 2, 3: P(0 → 2, h) = ∫∫ = λ0λ1 Σ_i e^{−λ_i h}/Π_{j≠i}(λ_j − λ_i).
	lam := []float64{1, 2, 3, 3, 3}
	const h = 0.7
	v := sp.uniformize([]float64{1}, 0, lam, 3, h)
	want := []float64{math.Exp(-h), math.Exp(-h) - math.Exp(-2*h)}
	want = append(want, 2*(math.Exp(-h)/2-math.Exp(-2*h)+math.Exp(-3*h)/2))
	for c, w := range want {
		if math.Abs(v[c]-w) > 1e-13 {
			t.Errorf("arrivals: P(0 → %d) = %.17g, want %.17g", c, v[c], w)
		}
	}
}
