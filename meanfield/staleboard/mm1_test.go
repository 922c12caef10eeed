package staleboard

import (
	"math"
	"testing"
)

// mm1Reference integrates the M/M/1 forward equation from i at rate rho
// by RK4 (step h) on 0..n−1 and returns the law at t and ∫₀ᵗ E[q].
func mm1Reference(i int, rho, t, h float64, n int) ([]float64, float64) {
	p := make([]float64, n)
	p[i] = 1
	deriv := func(dst, x []float64) {
		for q := range x {
			var d float64
			if q+1 < n {
				d -= rho * x[q]
			}
			if q > 0 {
				d += rho*x[q-1] - x[q]
			}
			if q+1 < n {
				d += x[q+1]
			}
			dst[q] = d
		}
	}
	mean := func(x []float64) float64 {
		var m float64
		for q, v := range x {
			m += float64(q) * v
		}
		return m
	}
	k1, k2, k3, k4, tmp := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	steps := int(math.Round(t / h))
	h = t / float64(steps)
	var integ float64
	for range steps {
		m0 := mean(p)
		deriv(k1, p)
		for q := range p {
			tmp[q] = p[q] + h/2*k1[q]
		}
		deriv(k2, tmp)
		mh := mean(tmp)
		for q := range p {
			tmp[q] = p[q] + h/2*k2[q]
		}
		deriv(k3, tmp)
		mh = (mh + mean(tmp)) / 2
		for q := range p {
			tmp[q] = p[q] + h*k3[q]
		}
		deriv(k4, tmp)
		for q := range p {
			p[q] += h / 6 * (k1[q] + 2*k2[q] + 2*k3[q] + k4[q])
		}
		integ += h / 6 * (m0 + 4*mh + mean(p)) // Simpson on the step
	}
	return p, integ
}

// TestMM1Law checks the closed-form M/M/1 transient (image solution in
// Skellam terms, both evaluation paths of the Skellam pmf, ρ below,
// near and above 1) and its time integral against an RK4 integration of
// the forward equation. The reference's own error (RK4 at h = 0.01,
// Simpson on the mean) is below 1e-9 on the law and 1e-7 relative on
// the integral; the tolerance 1e-8 / 1e-6 leaves a factor 10.
func TestMM1Law(t *testing.T) {
	for _, c := range []struct {
		i      int
		rho, t float64
	}{
		{0, 0.9, 30}, {5, 0.5, 30}, {40, 0.2, 30}, {3, 1.6, 30}, {0, 1, 30}, {2, 1.00004, 30},
		{10, 0.95, 80}, {0, 0.01, 40}, {0, 0.05, 200}, {3, 0.02, 150}, {25, 0.3, 1.5}, {1, 2.5, 10}, {60, 1.3, 60},
	} {
		var ws mm1Space
		law, integ := ws.mm1Law(nil, 1, c.i, c.rho, c.t)
		// a second call on the same work space must not see the first's
		if l2, _ := ws.mm1Law(nil, 1, c.i, c.rho, c.t); len(l2) != len(law) {
			t.Errorf("work space reuse changed the law")
		}
		ref, rinteg := mm1Reference(c.i, c.rho, c.t, 0.01, 600)
		var worst float64
		for q := range ref {
			worst = math.Max(worst, math.Abs(entry(law, q)-ref[q]))
		}
		for q := len(ref); q < len(law); q++ {
			worst = math.Max(worst, law[q])
		}
		if worst > 1e-8 || math.Abs(integ-rinteg) > 1e-6*rinteg {
			t.Errorf("i=%d ρ=%v t=%v: law off by %.3g, integral %.10g want %.10g", c.i, c.rho, c.t, worst, integ, rinteg)
		}
	}
}

// TestSkellamPaths checks the recurrence against the direct convolution
// where both apply: the same pmf to 1e-12 of its largest term (each sums
// hundreds to a thousand terms of rounding 1e-16: measured 2–3e-13).
func TestSkellamPaths(t *testing.T) {
	for _, c := range [][2]float64{{2.5, 3}, {30, 45}, {200, 1000}, {900, 500}, {5, 400}} {
		var b1, b2 []float64
		var sc []float64
		lo1, f1 := skellam(&b1, &sc, c[0], c[1])
		lo2, f2 := skellamConv(&b2, c[0], c[1])
		worst, peak := pmfGap(lo1, f1, lo2, f2)
		if worst > 1e-12*peak {
			t.Errorf("μ = %v: recurrence and convolution differ by %.3g (peak %.3g)", c, worst, peak)
		}
	}
}

// TestSkellamSmallArrivals checks the recurrence against the direct
// convolution for arrival means below 2 (the M/M/1 law takes the
// recurrence down to recMinArrivals): to 1e-11 of the largest term
// (measured 3e-13 at 400 services, 1e-12 at 2,000 and 4e-12 at 3,000: the
// rounding of a thousand or more terms in each), and over the same
// window to within the terms the two cut differently (below 1e-30 of the
// largest).
func TestSkellamSmallArrivals(t *testing.T) {
	for _, c := range [][2]float64{{1e-6, 400}, {0.01, 400}, {0.5, 30}, {1.5, 2000}, {1.9, 3}, {0.2, 2}, {1e-3, 3000}, {0.3, 100}} {
		var b1, b2, sc []float64
		lo1, f1 := skellamRec(&b1, &sc, c[0], c[1])
		lo2, f2 := skellamConv(&b2, c[0], c[1])
		worst, peak := pmfGap(lo1, f1, lo2, f2)
		if worst > 1e-11*peak {
			t.Errorf("μ = %v: recurrence and convolution differ by %.3g (peak %.3g)", c, worst, peak)
		}
	}
}

// pmfGap returns the largest difference between the pmfs f1 (from lo1)
// and f2 (from lo2) over the union of their windows, and f2's largest term.
func pmfGap(lo1 int, f1 []float64, lo2 int, f2 []float64) (worst, peak float64) {
	for k := min(lo1, lo2); k < max(lo1+len(f1), lo2+len(f2)); k++ {
		a, b := entry2(f1, k-lo1), entry2(f2, k-lo2)
		peak = math.Max(peak, b)
		worst = math.Max(worst, math.Abs(a-b))
	}
	return worst, peak
}

func entry2(v []float64, i int) float64 {
	if i < 0 || i >= len(v) {
		return 0
	}
	return v[i]
}

// TestChoiceRate checks the factorised best-of-d rate against
// (a^d − c^d)/(a − c) where that is well conditioned, and that it stays
// finite where a power underflows (d = 60, tiny survivals).
func TestChoiceRate(t *testing.T) {
	for _, c := range []struct {
		a, c float64
		d    int
	}{{1, 0.5, 2}, {0.9, 0.3, 3}, {0.7, 0.1, 10}, {1, 0, 5}} {
		want := (math.Pow(c.a, float64(c.d)) - math.Pow(c.c, float64(c.d))) / (c.a - c.c)
		if got := choiceRate(c.a, c.c, c.d); math.Abs(got-want) > 1e-14*want {
			t.Errorf("choiceRate(%v, %v, %d) = %v, want %v", c.a, c.c, c.d, got, want)
		}
	}
	if got := choiceRate(1e-10, 1e-12, 60); math.IsNaN(got) || math.IsInf(got, 0) || got < 0 {
		t.Errorf("choiceRate at underflow: %v", got)
	}
	if got := choiceRate(0.5, 0.5, 4); math.Abs(got-4*0.125) > 1e-15 {
		t.Errorf("choiceRate(a, a, 4) = %v, want 4a³", got)
	}
}
