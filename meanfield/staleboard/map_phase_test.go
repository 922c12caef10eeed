package staleboard

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
)

// phaseMap returns the map of k dispatchers at load and period T by the
// phase evolution with the given server.
func phaseMap(k int, load, T float64, sz farm.Sizes, disc farm.Discipline) *Map {
	m := newMap(k, load, T)
	m.server = newPhaseServer(sz, disc)
	return m
}

// TestPhaseExponential checks the phase evolution with exponential
// sizes (one state per count, the interleaving recursion, uniformised
// death chains) against the window evolution (ballot boundary rows, the
// cloud, closed-form death laws): two independent computations of the same
// map. Tolerance 1e-11: both sum ~10⁵ positive terms and cut their
// Poisson tails at 1e-17 of the mass.
func TestPhaseExponential(t *testing.T) {
	boards := map[string][]float64{
		"empty":  {1},
		"half":   {0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5},
		"spread": {0.2, 0.2, 0.2, 0.2, 0.2},
	}
	for _, c := range []struct {
		k int
		T float64
	}{{1, 30}, {5, 40}, {3, 7.5}} {
		for name, p := range boards {
			t.Run(name, func(t *testing.T) {
				want, err := newMap(c.k, 0.9, c.T).Apply(p)
				if err != nil {
					t.Fatal(err)
				}
				got, err := phaseMap(c.k, 0.9, c.T, farm.Sizes{}, farm.FCFS).Apply(p)
				if err != nil {
					t.Fatal(err)
				}
				approx.Check(t, "sojourn", got.Sojourn, want.Sojourn, 1e-11, 1e-11)
				approx.Check(t, "board mean", got.BoardMean, want.BoardMean, 1e-11, 1e-11)
				for i := range max(len(got.Next), len(want.Next)) {
					approx.Check(t, "next", entry(got.Next, i), entry(want.Next, i), 1e-12, 1e-9)
				}
			})
		}
	}
}

// odePhaseMap is an independent reference for the phase evolution: every
// class and the aggregate integrated as ODEs by classical Runge–Kutta
// instead of the interleaving recursion and uniformisation. Within a pass
// a server's state is (pending arrivals m, server state); with the time
// change t = t_end − L·e^{−u} the arrivals come at the constant rate m in
// u and the services at μ·L·e^{−u} (the time-changed equation of the
// pass). The time integral of the count is one more ODE variable.
func odePhaseMap(t *testing.T, k int, load, T float64, sv *phaseServer, x []float64, steps int) (next []float64, sojourn float64) {
	t.Helper()
	mp := newMap(k, load, T)
	counts, _ := sv.counts(nil, x)
	var mass float64
	for _, v := range x {
		mass += v
	}
	top := boardTop(counts)
	s := mp.schedule(counts, top, mass)
	// Room for every count the period can reach (trimmed mass ≪ 1e-12).
	nl := top + k*(s.V+1) + 2
	n := sv.offset(nl)
	// The service generator and the arrival operator from the rates,
	// written out here (not the phase evolution's Up and Down): c scales
	// time.
	p, ms, mg := sv.p, sv.muS, sv.muG
	gen := func(dst, y []float64, c float64) { // dst += c·G·y
		for q := 1; q < nl; q++ {
			o := sv.offset(q)
			if sv.disc == farm.FCFS {
				for ph, mu := range []float64{ms, mg} {
					f := c * mu * y[o+ph]
					dst[o+ph] -= f
					if q == 1 {
						dst[0] += f
					} else {
						dst[sv.offset(q-1)] += f * (1 - p)
						dst[sv.offset(q-1)+1] += f * p
					}
				}
				continue
			}
			for j := 0; j <= q; j++ {
				fs := c * ms * float64(q-j) / float64(q) * y[o+j]
				fg := c * mg * float64(j) / float64(q) * y[o+j]
				dst[o+j] -= fs + fg
				if j < q {
					dst[sv.offset(q-1)+j] += fs
				}
				if j > 0 {
					dst[sv.offset(q-1)+j-1] += fg
				}
			}
		}
	}
	upOp := func(y []float64) []float64 { // one arrival
		out := make([]float64, n)
		for q := 0; q+1 < nl; q++ {
			o, o1 := sv.offset(q), sv.offset(q+1)
			switch {
			case q == 0:
				out[o1] += y[0] * (1 - p)
				out[o1+1] += y[0] * p
			case sv.disc == farm.FCFS:
				out[o1] += y[o]
				out[o1+1] += y[o+1]
			default:
				for j := 0; j <= q; j++ {
					out[o1+j] += y[o+j] * (1 - p)
					out[o1+j+1] += y[o+j] * p
				}
			}
		}
		return out
	}
	rk4 := func(y []float64, f func(dst, y []float64, u float64), u0, u1 float64) {
		h := (u1 - u0) / float64(steps)
		d := len(y)
		k1, k2, k3, k4, tmp := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range steps {
			u := u0 + float64(i)*h
			eval := func(dst []float64, c float64, kk []float64, uu float64) {
				for j := range tmp {
					tmp[j] = y[j] + c*kk[j]
				}
				clear(dst)
				f(dst, tmp, uu)
			}
			clear(k1)
			f(k1, y, u)
			eval(k2, h/2, k1, u+h/2)
			eval(k3, h/2, k2, u+h/2)
			eval(k4, h, k3, u+h)
			for j := range y {
				y[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
			}
		}
	}
	meanCount := func(y []float64) float64 {
		var m float64
		for i, v := range y[:n] {
			m += float64(sv.level(i)) * v
		}
		return m
	}
	// Death of one state law over [0, dt]: y (n states) plus its integral.
	death := func(y []float64, dt float64) float64 {
		z := append(append([]float64(nil), y...), 0)
		rk4(z, func(dst, z []float64, _ float64) {
			gen(dst[:n], z[:n], 1)
			dst[n] = meanCount(z)
		}, 0, dt)
		copy(y, z[:n])
		return z[n]
	}
	agg := make([]float64, n)
	var integral float64
	for v := 0; v <= s.V; v++ {
		tv, L := s.t[v], s.L[v]
		if v <= top && counts[v] > 0 {
			cls := make([]float64, n)
			copy(cls[sv.offset(v):], x[sv.offset(v):sv.offset(v+1)])
			integral += death(cls, tv)
			for i := range agg {
				agg[i] += cls[i]
			}
		}
		tau := L
		if v == s.V {
			tau = T - tv
		}
		if L <= 0 || tau <= 0 {
			continue
		}
		// State (m, server) for m = k..0 pending, plus the integral.
		z := make([]float64, (k+1)*n+1)
		copy(z[k*n:], agg)
		uEnd := -math.Log1p(-tau / L)
		if tau >= L {
			uEnd = 40 // e^{−40} of the pass left: its arrivals are forced below
		}
		rk4(z, func(dst, z []float64, u float64) {
			dtdu := L * math.Exp(-u)
			for m := 0; m <= k; m++ {
				y := z[m*n : (m+1)*n]
				gen(dst[m*n:(m+1)*n], y, dtdu)
				if m > 0 {
					// Arrivals at rate m: out of (m, ·), Up into (m − 1, ·).
					tmp := upOp(y)
					for i := range n {
						dst[(m-1)*n+i] += float64(m) * tmp[i]
						dst[m*n+i] -= float64(m) * y[i]
					}
				}
				dst[(k+1)*n] += dtdu * meanCount(y)
			}
		}, 0, uEnd)
		integral += z[(k+1)*n]
		clear(agg)
		for m := 0; m <= k; m++ {
			y := z[m*n : (m+1)*n]
			for j := 0; j < m && tau >= L; j++ { // forced arrivals (weight e^{−40})
				y = upOp(y)
			}
			for i := range agg {
				agg[i] += y[i]
			}
		}
	}
	for b := s.V + 1; b <= top; b++ {
		cls := make([]float64, n)
		copy(cls[sv.offset(b):], x[sv.offset(b):sv.offset(b+1)])
		integral += death(cls, T)
		for i := range agg {
			agg[i] += cls[i]
		}
	}
	return agg, integral / T / load
}

// TestPhaseAgainstODE checks the phase evolution (interleaving recursion,
// uniformisation) against odePhaseMap (Runge–Kutta on the time-changed
// pass equations) for H2 sizes under FCFS and PS, from boards whose
// phases are spread (a lifted board, and the state one period later).
// Tolerance 1e-7: RK4 with 4,000 steps per stretch is accurate to about
// 1e-9 here; the phase evolution to rounding.
func TestPhaseAgainstODE(t *testing.T) {
	for _, c := range []struct {
		name string
		disc farm.Discipline
		scv  float64
		k    int
		T    float64
	}{
		{"fcfs-h2:10-k3", farm.FCFS, 10, 3, 6},
		{"ps-h2:10-k3", farm.PS, 10, 3, 6},
		{"ps-h2:30-k2", farm.PS, 30, 2, 4.5},
		{"fcfs-h2:4-k1", farm.FCFS, 4, 1, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name == "ps-h2:10-k3" {
				t.Skip("5 s of Runge–Kutta; the other PS case covers the code in -short")
			}
			sv := newPhaseServer(farm.Sizes{Kind: farm.H2, SCV: c.scv}, c.disc)
			x := sv.lift([]float64{0.3, 0.2, 0.2, 0.1, 0.1, 0.1})
			m := phaseMap(c.k, 0.9, c.T, farm.Sizes{Kind: farm.H2, SCV: c.scv}, c.disc)
			for range 2 {
				got, err := m.Apply(x)
				if err != nil {
					t.Fatal(err)
				}
				want, soj := odePhaseMap(t, c.k, 0.9, c.T, sv, x, 4000)
				approx.Check(t, "sojourn", got.Sojourn, soj, 1e-7, 1e-7)
				for i := range max(len(got.Next), len(want)) {
					approx.Check(t, "next", entry(got.Next, i), entry(want, i), 1e-8, 0)
				}
				x = got.Next
			}
		})
	}
}
