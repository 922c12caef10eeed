package queues

import (
	"errors"
	"sort"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// jsqBrute is JSQ with exponential sizes on the sorted queue lengths of N
// servers, with the chain's truncation (no server gets a fourth job; at
// most K hold three: an arrival that would break either is turned away),
// solved by GTH. It returns E[T] on the admitted jobs and the fraction
// turned away.
func jsqBrute(N int, load float64, K int) (sojourn, lost float64) {
	c := newCTMC()
	key := func(q []int) [3]int {
		// Occupancy (x₁, x₂, x₃) identifies a sorted vector.
		var x [3]int
		for _, v := range q {
			for i := range 3 {
				if v > i {
					x[i]++
				}
			}
		}
		return x
	}
	lam := load * float64(N)
	var visit func(q []int)
	seen := map[[3]int]bool{}
	var lostKeys [][3]int
	visit = func(q []int) {
		k := key(q)
		if seen[k] {
			return
		}
		seen[k] = true
		c.state(k)
		sort.Ints(q)
		// Arrival to a shortest queue.
		if q[0] < 3 && (q[0] < 2 || key(q)[2] < K) {
			n := append([]int(nil), q...)
			n[0]++
			c.rate(k, key(n), lam)
			visit(n)
		} else {
			lostKeys = append(lostKeys, k)
		}
		for i := range q {
			if q[i] > 0 {
				n := append([]int(nil), q...)
				n[i]--
				c.rate(k, key(n), 1)
				visit(n)
			}
		}
	}
	visit(make([]int, N))
	pi := c.solve()
	var jobs float64
	for k, v := range pi {
		jobs += v * float64(k[0]+k[1]+k[2])
	}
	for _, k := range lostKeys {
		lost += pi[k]
	}
	return jobs / (lam * (1 - lost)), lost
}

// The occupancy chain against JSQ on the queue vectors with the same
// truncation (GTH on both: 1e-10 relative).
func TestJSQBruteForce(t *testing.T) {
	for _, c := range []struct {
		N, K int
		load float64
	}{{3, 0, 0.5}, {3, 3, 0.5}, {5, 2, 0.7}, {8, 1, 0.9}} {
		t.Run("", func(t *testing.T) {
			want, lost := jsqBrute(c.N, c.load, c.K)
			r, err := jsqExp(c.N, c.load, c.K)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "E[T]", r.Sojourn, want, 0, 1e-10)
			near(t, "lost", r.Lost, lost, 1e-15, 1e-9)
		})
	}
}

// At N = 100, λ = 0.9: the third layer barely matters (the jobs turned
// away with K = 0 are 2·10⁻⁶, and E[T] moves by 2·10⁻⁶ relative up to
// K = 3), and E[T] decreases towards the N → ∞ limit 1 as N grows.
func TestJSQLarge(t *testing.T) {
	r, err := SolveJSQ(&JSQ{Servers: 100, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Status.OK() || r.Lost > 1e-5 || r.Approximate {
		t.Errorf("status %v, lost %v, approximate %v", r.Status, r.Lost, r.Approximate)
	}
	r3, err := jsqExp(100, 0.9, 3)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "E[T] with K = 3", r3.Sojourn, r.Sojourn, 0, 1e-5)
	prev := 2.0
	for _, N := range []int{50, 100, 200} {
		r, err := SolveJSQ(&JSQ{Servers: N, Load: 0.9}, &Settings{TailTol: 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		if !(r.Sojourn < prev && r.Sojourn > 1) {
			t.Errorf("N = %d: E[T] = %v after %v", N, r.Sojourn, prev)
		}
		prev = r.Sojourn
	}
	p, err := SolveJSQ(&JSQ{Servers: 100, Load: 0.9, Discipline: farm.PS, Sizes: h2(30)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Approximate || p.Sojourn != r.Sojourn {
		t.Errorf("PS H2: approximate %v, %v against %v", p.Approximate, p.Sojourn, r.Sojourn)
	}
}

func TestJSQInvalid(t *testing.T) {
	for _, c := range []struct {
		m     JSQ
		param string
	}{
		{JSQ{Servers: 0, Load: 0.5}, "Servers"},
		{JSQ{Servers: MaxJSQServers + 1, Load: 0.5}, "Servers"},
		{JSQ{Servers: 10, Load: -1}, "Load"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := SolveJSQ(&c.m, nil)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want a *param.Error for %s", err, c.param)
			}
		})
	}
}
