package queues

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// rrFCFSBrute is the E_N/K/1 FCFS queue as a CTMC on (arrival phase a,
// jobs n ≤ M, phase of the job in service), arrivals to n = M lost; it
// returns E[T] (Little's law on the admitted jobs) and P(an arrival
// finds the server busy).
func rrFCFSBrute(N int, load float64, lw law, M int) (sojourn, busy float64) {
	c := newCTMC()
	nu := float64(N) * load
	k := len(lw.p)
	for a := range N {
		for n := 0; n <= M; n++ {
			phases := k
			if n == 0 {
				phases = 1
			}
			for ph := range phases {
				from := [3]int{a, n, ph}
				c.state(from)
				switch {
				case a < N-1:
					c.rate(from, [3]int{a + 1, n, ph}, nu)
				case n == 0:
					for q := range k {
						c.rate(from, [3]int{0, 1, q}, nu*lw.p[q])
					}
				case n < M:
					c.rate(from, [3]int{0, n + 1, ph}, nu)
				default:
					c.rate(from, [3]int{0, n, ph}, nu) // lost: only the phase restarts
				}
				if n == 0 {
					continue
				}
				if n == 1 {
					c.rate(from, [3]int{a, 0, 0}, lw.mu[ph])
					continue
				}
				for q := range k {
					c.rate(from, [3]int{a, n - 1, q}, lw.mu[ph]*lw.p[q])
				}
			}
		}
	}
	pi := c.solve()
	var mean, last, lastBusy, lost float64
	for s, v := range pi {
		mean += float64(s[1]) * v
		if s[0] == N-1 {
			last += v
			if s[1] > 0 {
				lastBusy += v
			}
			if s[1] == M {
				lost += v
			}
		}
	}
	lost /= last
	return mean / (load * (1 - lost)), lastBusy / last
}

// rrPSBrute is the E_N/H2/1-PS queue as a CTMC on (arrival phase, jobs n
// ≤ M, giants j), arrivals to n = M lost.
func rrPSBrute(N int, load float64, lw law, M int) (sojourn, busy float64) {
	c := newCTMC()
	nu := float64(N) * load
	p, ms, mg := lw.p[1], lw.mu[0], lw.mu[1]
	for a := range N {
		for n := 0; n <= M; n++ {
			for j := 0; j <= n; j++ {
				from := [3]int{a, n, j}
				c.state(from)
				switch {
				case a < N-1:
					c.rate(from, [3]int{a + 1, n, j}, nu)
				case n < M:
					c.rate(from, [3]int{0, n + 1, j}, nu*(1-p))
					c.rate(from, [3]int{0, n + 1, j + 1}, nu*p)
				default:
					c.rate(from, [3]int{0, n, j}, nu)
				}
				if n > 0 {
					c.rate(from, [3]int{a, n - 1, j}, ms*float64(n-j)/float64(n))
					if j > 0 {
						c.rate(from, [3]int{a, n - 1, j - 1}, mg*float64(j)/float64(n))
					}
				}
			}
		}
	}
	pi := c.solve()
	var mean, last, lastBusy, lost float64
	for s, v := range pi {
		mean += float64(s[1]) * v
		if s[0] == N-1 {
			last += v
			if s[1] > 0 {
				lastBusy += v
			}
			if s[1] == M {
				lost += v
			}
		}
	}
	lost /= last
	return mean / (load * (1 - lost)), lastBusy / last
}

// Known answers for round robin.
func TestRoundRobinKnown(t *testing.T) {
	t.Run("E_N/M/1 at N = 100", func(t *testing.T) {
		// 5.2268 at N = 100, λ = 0.9 (the E_N/M/1 value to four decimals), and
		// GI/M/1: σ = A*(1 − σ) by fixed-point iteration, E[T] = 1/(1 − σ)
		// (Kleinrock vol. 1, §6.4), to 1e-12.
		for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
			r, err := SolveRoundRobin(&RoundRobin{Servers: 100, Load: 0.9, Discipline: d}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sigma := 0.5
			for range 100000 {
				sigma = math.Pow(90/(90+1-sigma), 100)
			}
			near(t, "E[T]", r.Sojourn, 1/(1-sigma), 1e-12, 1e-12)
			near(t, "E[T] (four decimals)", r.Sojourn, 5.2268, 5e-5, 0)
			near(t, "P(W > 0)", r.WaitProb, sigma, 1e-12, 1e-12)
			if r.Status != outcome.Exact {
				t.Errorf("status %v", r.Status)
			}
		}
	})
	t.Run("N = 1 is M/G/1", func(t *testing.T) {
		// Pollaczek–Khinchine: E[T] = 1 + λ(1 + c²)/(2(1 − λ)), P(W > 0) = λ
		// (closed form, to 1e-12); PS: E[T] = 1/(1 − λ) for any sizes, and
		// with balanced means half the jobs present are giants, each
		// staying E[S_g]/(1 − λ) (M/G/1-PS: E[T | S = x] = x/(1 − λ)); the
		// PS chain is truncated where λ^M ≤ 1e-10 and iterated to 1e-10,
		// hence 1e-7.
		for _, c2 := range []float64{1, 4, 30} {
			for _, load := range []float64{0.3, 0.9} {
				r, err := SolveRoundRobin(&RoundRobin{Servers: 1, Load: load, Sizes: h2(c2)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				near(t, "FCFS E[T]", r.Sojourn, 1+load*(1+c2)/(2*(1-load)), 1e-12, 1e-12)
				near(t, "FCFS P(W > 0)", r.WaitProb, load, 1e-12, 1e-12)
				var tail, mean float64
				for i := range r.Roots {
					tail += r.Weights[i]
					mean += r.Weights[i] / r.Roots[i]
				}
				near(t, "Σ c_i = P(W > 0)", tail, load, 1e-12, 1e-12)
				near(t, "Σ c_i/γ_i = E[W]", mean, r.Delay, 1e-12, 1e-12)
				p, err := SolveRoundRobin(&RoundRobin{Servers: 1, Load: load, Sizes: h2(c2), Discipline: farm.PS}, &Settings{TailTol: 1e-13, Tol: 1e-13})
				if err != nil {
					t.Fatal(err)
				}
				near(t, "PS E[T]", p.Sojourn, 1/(1-load), 0, 1e-7)
				near(t, "PS P(busy)", p.WaitProb, load, 0, 1e-7)
				if c2 > 1 {
					_, giant, _ := farm.H2Params(c2)
					near(t, "PS giant share", p.GiantShare, 0.5, 0, 1e-7)
					near(t, "PS giant stay", p.GiantStay, giant/(1-load), 0, 1e-7)
				}
			}
		}
	})
}

// Round robin against the CTMC of the whole server (arrival phase
// included), solved by GTH, at small N.
func TestRoundRobinBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("dense GTH on up to 2,000 states")
	}
	for _, c := range []struct {
		N         int
		load, scv float64
	}{{2, 0.7, 4}, {3, 0.5, 10}, {3, 0.8, 1}} {
		t.Run("FCFS", func(t *testing.T) {
			lw, _ := lawOf(h2(c.scv))
			// M = 150: the count's tail below 1e-13 at these loads
			// (P(W > x) decays like e^{−γ₁x}, γ₁ ≥ 0.06), and GTH is exact
			// to rounding: 1e-9 relative.
			want, busy := rrFCFSBrute(c.N, c.load, lw, 300)
			r, err := SolveRoundRobin(&RoundRobin{Servers: c.N, Load: c.load, Sizes: h2(c.scv)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "E[T]", r.Sojourn, want, 0, 1e-9)
			near(t, "P(W > 0)", r.WaitProb, busy, 0, 1e-9)
		})
		if c.scv == 1 {
			continue
		}
		t.Run("PS", func(t *testing.T) {
			lw, _ := lawOf(h2(c.scv))
			// The same truncated chain both ways (M = 40, arrivals finding
			// 40 jobs turned away); GTH is exact to rounding and the solver
			// iterates to 1e-13: 1e-8 relative.
			const M = 40
			want, busy := rrPSBrute(c.N, c.load, lw, M)
			got := psAt(t, c.N, c.load, lw, M)
			near(t, "E[T]", got.Sojourn, want, 0, 1e-8)
			near(t, "P(busy)", got.WaitProb, busy, 0, 1e-8)
		})
	}
}

// psAt solves the PS chain at the fixed truncation M.
func psAt(t *testing.T, N int, load float64, lw law, M int) *RoundRobinResult {
	t.Helper()
	r, err := solvePSAt(&RoundRobin{Servers: N, Load: load, Discipline: farm.PS}, lw, M, &Settings{Tol: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Status.OK() {
		t.Fatalf("status %v", r.Status)
	}
	return r
}

// PS and FCFS share the busy periods (both serve at rate 1 whenever a
// job is present), so an arrival finds the server busy with the same
// probability under both; exact, so 1e-8 (the PS iteration and
// truncation).
func TestRoundRobinBusySame(t *testing.T) {
	for _, c2 := range []float64{4, 30} {
		f, err := SolveRoundRobin(&RoundRobin{Servers: 20, Load: 0.8, Sizes: h2(c2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := SolveRoundRobin(&RoundRobin{Servers: 20, Load: 0.8, Sizes: h2(c2), Discipline: farm.PS}, nil)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "P(busy)", p.WaitProb, f.WaitProb, 0, 1e-8)
		if !(p.Sojourn < f.Sojourn) {
			t.Errorf("SCV %v: PS %v not below FCFS %v", c2, p.Sojourn, f.Sojourn)
		}
	}
}

func TestRoundRobinInvalid(t *testing.T) {
	for _, c := range []struct {
		m     RoundRobin
		param string
	}{
		{RoundRobin{Servers: 0, Load: 0.5}, "Servers"},
		{RoundRobin{Servers: 2, Load: 1}, "Load"},
		{RoundRobin{Servers: 2, Load: math.NaN()}, "Load"},
		{RoundRobin{Servers: 2, Load: 0.5, Sizes: farm.Sizes{Kind: farm.Deterministic}}, "Sizes"},
		{RoundRobin{Servers: 2, Load: 0.999, Discipline: farm.PS, Sizes: h2(4)}, "Load"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := SolveRoundRobin(&c.m, nil)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want a *param.Error for %s", err, c.param)
			}
		})
	}
}
