package meanfield

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/ode"
)

// passByODE is the reference for one pass: SPEC §1.2's time change
// u = −ln((L − t)/L) turns the arrival hazard m/(L − t) into m and the
// service rate into L·e^{−u}:
//
//	dP(q,m)/du = (m+1)·P(q−1,m+1) − m·P(q,m) + L·e^{−u}·[P(q+1,m) − 1{q>0}·P(q,m)],
//
// with m the arrivals still to come. It integrates to u(τ) (u = 45 for a
// whole pass, where e^{−45} is below rounding) and returns the
// distribution and ∫₀^τ E[q] dt (an extra state, d/du = E[q]·L·e^{−u}).
func passByODE(t *testing.T, x []float64, k int, L, tau float64) ([]float64, float64) {
	t.Helper()
	Q := len(x) + k + 40 // room above: k arrivals, and no mass can pass Q
	idx := func(q, m int) int { return q*(k+1) + m }
	dim := (Q+1)*(k+1) + 1
	f := func(dy []float64, u float64, y []float64) {
		svc := L * math.Exp(-u)
		var mean float64
		for q := 0; q <= Q; q++ {
			for m := 0; m <= k; m++ {
				i := idx(q, m)
				d := -float64(m) * y[i]
				if q > 0 && m < k {
					d += float64(m+1) * y[idx(q-1, m+1)]
				}
				if q < Q {
					d += svc * y[idx(q+1, m)]
				}
				if q > 0 {
					d -= svc * y[i]
				}
				dy[i] = d
				mean += float64(q) * y[i]
			}
		}
		dy[dim-1] = mean * svc
	}
	y := make([]float64, dim)
	for q, v := range x {
		y[idx(q, k)] = v
	}
	uEnd := 45.0
	if tau < L {
		uEnd = -math.Log((L - tau) / L)
	}
	res, err := ode.Solve(ode.Problem{Func: f}, y, 0, uEnd, &ode.Settings{RTol: 1e-13, ATol: 1e-18})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, Q+1)
	for q := 0; q <= Q; q++ {
		for m := 0; m <= k; m++ {
			out[q] += res.Y[idx(q, m)]
		}
	}
	return out, res.Y[dim-1]
}

func TestPassAgainstODE(t *testing.T) {
	// A spread-out starting distribution with mass at 0.
	x := []float64{0.3, 0.1, 0.05, 0.2, 0, 0.15, 0.1, 0.1}
	for _, c := range []struct {
		k      int
		L, tau float64
	}{
		{1, 1.1, 1.1}, {3, 4, 4}, {3, 4, 2.5}, {5, 5.6, 5.6}, {5, 5.6, 0.3}, {8, 9, 8.999},
	} {
		m, err := NewRefreshMap(c.k, 0.9, 100)
		if err != nil {
			t.Fatal(err)
		}
		got, integ, lost := m.pass(x, c.L, c.tau)
		want, wantInteg := passByODE(t, x, c.k, c.L, c.tau)
		// Both routes are exact; the ODE route runs at rtol 1e-13, so the
		// two agree to about 1e-12.
		for q := 0; q < max(len(got), len(want)); q++ {
			var g, w float64
			if q < len(got) {
				g = got[q]
			}
			if q < len(want) {
				w = want[q]
			}
			if math.Abs(g-w) > 1e-12 {
				t.Errorf("k=%d L=%v τ=%v: P(q=%d) = %.15g, ODE %.15g", c.k, c.L, c.tau, q, g, w)
			}
		}
		if math.Abs(integ-wantInteg) > 1e-11 {
			t.Errorf("k=%d L=%v τ=%v: ∫E[q] = %.15g, ODE %.15g", c.k, c.L, c.tau, integ, wantInteg)
		}
		if lost > 1e-16 {
			t.Errorf("lost %g", lost)
		}
	}
}

func TestDeathFrom(t *testing.T) {
	// Pure death from b: the distribution and the integral against the
	// ODE route with no arrivals (k arrivals all beyond the horizon is the
	// same as none: use a pass with k = 1 of huge length, τ ≪ L).
	for _, c := range []struct {
		b int
		t float64
	}{{0, 3}, {1, 0.5}, {7, 3.2}, {20, 12}} {
		dist, integ := deathFrom(c.b, c.t)
		var mass, mean float64
		for q, v := range dist {
			mass += v
			mean += float64(q) * v
		}
		if math.Abs(mass-1) > 1e-14 {
			t.Errorf("b=%d t=%v: mass %v", c.b, c.t, mass)
		}
		// E[q(t)] = Σ_{i<b} (b − i)·Pois(i; t) + 0, and d/dt ∫ = E[q(t)]:
		// check the integral by Simpson's rule on E[q(s)] computed from the
		// distribution at s.
		const n = 2000
		h := c.t / n
		var simpson float64
		for i := 0; i <= n; i++ {
			d, _ := deathFrom(c.b, float64(i)*h)
			var e float64
			for q, v := range d {
				e += float64(q) * v
			}
			w := 2.0
			if i == 0 || i == n {
				w = 1
			} else if i%2 == 1 {
				w = 4
			}
			simpson += w * e
		}
		simpson *= h / 3
		if math.Abs(integ-simpson) > 1e-9 {
			t.Errorf("b=%d t=%v: integral %.12g, Simpson %.12g", c.b, c.t, integ, simpson)
		}
		_ = mean
	}
}
