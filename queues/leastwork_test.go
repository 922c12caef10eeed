package queues

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// erlangC is the probability of waiting in M/M/c with offered load a,
// by the stable recursion on Erlang's loss formula:
// B(k) = a·B(k−1)/(k + a·B(k−1)), C = B/(1 − ρ(1 − B)).
func erlangC(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// Least work with exponential sizes is M/M/N: Erlang C,
// E[T] = 1 + C/(N(1 − λ)) (closed form; the elimination is exact to
// rounding, 1e-10 relative).
func TestLeastWorkErlangC(t *testing.T) {
	for _, c := range []struct {
		N    int
		load float64
	}{{1, 0.5}, {2, 0.8}, {10, 0.9}, {100, 0.9}, {1000, 0.95}} {
		t.Run("", func(t *testing.T) {
			r, err := SolveLeastWork(&LeastWork{Servers: c.N, Load: c.load}, nil)
			if err != nil {
				t.Fatal(err)
			}
			C := erlangC(c.N, c.load*float64(c.N))
			near(t, "P(W > 0)", r.WaitProb, C, 1e-14, 1e-10)
			near(t, "E[T]", r.Sojourn, 1+C/(float64(c.N)*(1-c.load)), 1e-14, 1e-10)
			near(t, "busy servers", r.Busy, c.load*float64(c.N), 1e-9, 1e-10)
			// W | W > 0 is exponential of rate N(1 − λ): E[e^{−W}] =
			// 1 − C + C·N(1 − λ)/(1 + N(1 − λ)).
			nr := float64(c.N) * (1 - c.load)
			near(t, "E[e^{−W}]", r.WaitLST[0], 1-C+C*nr/(1+nr), 1e-13, 1e-10)
		})
	}
}

// N = 1 is M/H2/1: E[W] = λ(1 + c²)/(2(1 − λ)) and the
// Pollaczek–Khinchine transform W*(s) = (1 − λ)s/(s − λ(1 − B*(s)))
// (closed forms; 1e-9 relative, the tail sum of the transform is cut at
// 1e-16 and the doubling's rounding).
func TestLeastWorkMG1(t *testing.T) {
	for _, c2 := range []float64{4, 30} {
		for _, load := range []float64{0.3, 0.9} {
			r, err := SolveLeastWork(&LeastWork{Servers: 1, Load: load, Sizes: h2(c2)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "E[T]", r.Sojourn, 1+load*(1+c2)/(2*(1-load)), 1e-13, 1e-10)
			near(t, "P(W > 0)", r.WaitProb, load, 1e-14, 1e-10)
			lw, _ := lawOf(h2(c2))
			for i, s := range lw.mu {
				var b float64
				for c := range lw.p {
					b += lw.p[c] * lw.mu[c] / (lw.mu[c] + s)
				}
				near(t, "W*(μ)", r.WaitLST[i], (1-load)*s/(s-load*(1-b)), 1e-13, 1e-9)
			}
		}
	}
}

// mh2nBrute is the M/H2/N queue as a CTMC on (jobs n ≤ M, giants in
// service k), solved by GTH; it returns P(n ≥ N) and E[(n − N)⁺].
func mh2nBrute(N int, load float64, lw law, M int) (wait, queue float64) {
	c := newCTMC()
	lam := load * float64(N)
	p, ms, mg := lw.p[1], lw.mu[0], lw.mu[1]
	for n := 0; n <= M; n++ {
		busy := min(n, N)
		for k := 0; k <= busy; k++ {
			from := [3]int{n, k, 0}
			c.state(from)
			if n < M {
				if n < N {
					c.rate(from, [3]int{n + 1, k + 1, 0}, lam*p)
					c.rate(from, [3]int{n + 1, k, 0}, lam*(1-p))
				} else {
					c.rate(from, [3]int{n + 1, k, 0}, lam)
				}
			}
			if n == 0 {
				continue
			}
			gr, sr := float64(k)*mg, float64(busy-k)*ms
			if n <= N { // a completion frees a server
				c.rate(from, [3]int{n - 1, k - 1, 0}, gr)
				c.rate(from, [3]int{n - 1, k, 0}, sr)
				continue
			}
			c.rate(from, [3]int{n - 1, k, 0}, gr*p)
			c.rate(from, [3]int{n - 1, k - 1, 0}, gr*(1-p))
			c.rate(from, [3]int{n - 1, k + 1, 0}, sr*p)
			c.rate(from, [3]int{n - 1, k, 0}, sr*(1-p))
		}
	}
	for s, v := range c.solve() {
		if s[0] >= N {
			wait += v
			queue += float64(s[0]-N) * v
		}
	}
	return wait, queue
}

// M/H2/N against the brute-force CTMC at small N (truncated at M = 600
// jobs, where the tail is below 1e-14 at these loads: the FCFS queue
// decays like the caudal characteristic, ≤ 0.95 here; GTH exact to
// rounding: 1e-9 relative).
func TestLeastWorkBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("dense GTH on up to 2,400 states")
	}
	for _, c := range []struct {
		N         int
		load, scv float64
	}{{2, 0.7, 4}, {3, 0.6, 10}} {
		t.Run("", func(t *testing.T) {
			lw, _ := lawOf(h2(c.scv))
			wait, queue := mh2nBrute(c.N, c.load, lw, 600)
			r, err := SolveLeastWork(&LeastWork{Servers: c.N, Load: c.load, Sizes: h2(c.scv)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "P(W > 0)", r.WaitProb, wait, 0, 1e-9)
			near(t, "E[queue]", r.QueueMean, queue, 0, 1e-9)
			near(t, "E[T]", r.Sojourn, 1+queue/(c.load*float64(c.N)), 0, 1e-9)
		})
	}
}

// Under PS the least work found and the chance of sharing are exact
// (those of FCFS); E[T] is the one-partner approximation, between 1 and
// 1 + 2·E[W].
func TestLeastWorkPS(t *testing.T) {
	for _, c2 := range []float64{1, 30} {
		f, err := SolveLeastWork(&LeastWork{Servers: 50, Load: 0.9, Sizes: h2(c2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := SolveLeastWork(&LeastWork{Servers: 50, Load: 0.9, Sizes: h2(c2), Discipline: farm.PS}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.WaitProb != f.WaitProb || !p.Approximate || f.Approximate {
			t.Errorf("SCV %v: PS shares with %v, FCFS waits with %v; approximate %v, %v", c2, p.WaitProb, f.WaitProb, p.Approximate, f.Approximate)
		}
		if !(p.Sojourn > 1 && p.Sojourn < 1+2*f.Delay) {
			t.Errorf("SCV %v: PS %v outside (1, 1 + 2E[W] = %v)", c2, p.Sojourn, 1+2*f.Delay)
		}
	}
}

func TestLeastWorkInvalid(t *testing.T) {
	for _, c := range []struct {
		m     LeastWork
		param string
	}{
		{LeastWork{Servers: 0, Load: 0.5}, "Servers"},
		{LeastWork{Servers: MaxLeastWorkServers + 1, Load: 0.5, Sizes: h2(4)}, "Servers"},
		{LeastWork{Servers: 3, Load: 1.2}, "Load"},
		{LeastWork{Servers: 3, Load: 0.5, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 3}}, "Sizes"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := SolveLeastWork(&c.m, nil)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want a *param.Error for %s", err, c.param)
			}
		})
	}
	_ = math.Pi
}
