package qbd

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"gonum.org/v1/gonum/mat"
)

// near fails unless got is finite and within abs + rel·|want| of want.
func near(t *testing.T, what string, got, want, abs, rel float64) {
	t.Helper()
	if !param.Finite(got) || math.Abs(got-want) > abs+rel*math.Abs(want) {
		t.Errorf("%s = %.15g, want %.15g (±%g abs + %g rel)", what, got, want, abs, rel)
	}
}

func scalar(v float64) *mat.Dense { return mat.NewDense(1, 1, []float64{v}) }

// mmc is the M/M/c queue (arrival rate lam, c servers of rate mu) as a
// Levels chain with one phase: levels 0…c, then a homogeneous tail.
func mmc(lam, mu float64, c int) *Levels {
	l := &Levels{Tail: &Homogeneous{A0: scalar(lam), A1: scalar(-lam - float64(c)*mu), A2: scalar(float64(c) * mu)}}
	for n := 0; n <= c; n++ {
		out := lam + float64(n)*mu
		l.Local = append(l.Local, scalar(-out))
		l.Up = append(l.Up, scalar(lam))
		if n == 0 {
			l.Down = append(l.Down, nil)
		} else {
			l.Down = append(l.Down, scalar(float64(n)*mu))
		}
	}
	return l
}

// erlangC is the probability of waiting in M/M/c with offered load a =
// λ/μ, by the stable recursion on Erlang's loss formula B(c, a):
// B(k) = a·B(k−1)/(k + a·B(k−1)), C = B/(1 − ρ(1 − B)).
func erlangC(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// The M/M/1 queue: π_n = (1 − ρ)ρ^n, E[n] = ρ/(1 − ρ), R = ρ, G = 1
// (closed forms; the elimination and the reduction are exact to
// rounding, hence 1e-12).
func TestMM1(t *testing.T) {
	for _, rho := range []float64{0.1, 0.5, 0.9, 0.99} {
		t.Run("", func(t *testing.T) {
			d, err := Stationary(mmc(rho, 1, 1), nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != outcome.Converged {
				t.Fatalf("status %v", d.Status)
			}
			near(t, "R", d.Tail.R.At(0, 0), rho, 1e-12, 1e-12)
			near(t, "decay", d.Tail.Decay, rho, 1e-12, 1e-12)
			near(t, "G", d.Tail.G.At(0, 0), 1, 1e-12, 0)
			near(t, "drift", d.Tail.Drift, rho-1, 1e-12, 0)
			near(t, "mean", d.MeanLevel, rho/(1-rho), 1e-12, 1e-12)
			for n := range 5 {
				near(t, "π_n", d.Level(n)[0], (1-rho)*math.Pow(rho, float64(n)), 1e-14, 1e-12)
			}
		})
	}
}

// The M/M/c queue: the probability of waiting is Erlang's C formula and
// the mean queue C·ρ/(1 − ρ) (closed forms), to 1e-12 relative.
func TestErlangC(t *testing.T) {
	for _, c := range []struct {
		servers int
		load    float64
	}{{1, 0.5}, {2, 0.8}, {10, 0.9}, {100, 0.9}, {100, 0.99}, {500, 0.95}, {2000, 0.95}} {
		t.Run("", func(t *testing.T) {
			lam := c.load * float64(c.servers)
			d, err := Stationary(mmc(lam, 1, c.servers), nil)
			if err != nil {
				t.Fatal(err)
			}
			// P(wait) = P(n ≥ c) = π_c + tail.
			pw := d.Pi[c.servers][0] + d.TailMass
			want := erlangC(c.servers, lam)
			near(t, "P(wait)", pw, want, 1e-14, 1e-12)
			// E[n] = a + C·ρ/(1 − ρ).
			near(t, "mean", d.MeanLevel, lam+want*c.load/(1-c.load), 1e-12, 1e-11)
		})
	}
}

// randomQBD is a QBD with m phases and random rates whose down rates
// dominate (positive recurrent), and boundary levels 0…b with their own
// random blocks and phase counts.
func randomQBD(rng *rand.Rand, m, b int) *Levels {
	gen := func(r, c int, scale float64) *mat.Dense {
		a := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				a.Set(i, j, scale*rng.Float64())
			}
		}
		return a
	}
	diag := func(local *mat.Dense, others ...*mat.Dense) {
		r, _ := local.Dims()
		for i := range r {
			local.Set(i, i, 0)
			var s float64
			for _, o := range append([]*mat.Dense{local}, others...) {
				if o == nil {
					continue
				}
				_, c := o.Dims()
				for j := range c {
					s += o.At(i, j)
				}
			}
			local.Set(i, i, -s)
		}
	}
	h := &Homogeneous{A0: gen(m, m, 1), A1: gen(m, m, 1), A2: gen(m, m, 2)}
	diag(h.A1, h.A0, h.A2)
	l := &Levels{Tail: h}
	dims := make([]int, b+1)
	for n := range b {
		dims[n] = 1 + rng.IntN(2*m)
	}
	dims[b] = m
	for n := 0; n <= b; n++ {
		var up, down *mat.Dense
		if n < b {
			up = gen(dims[n], dims[n+1], 1)
		} else {
			up = gen(dims[n], m, 1)
		}
		if n > 0 {
			down = gen(dims[n], dims[n-1], 2)
		}
		local := gen(dims[n], dims[n], 1)
		diag(local, up, down)
		l.Local, l.Up, l.Down = append(l.Local, local), append(l.Up, up), append(l.Down, down)
	}
	return l
}

// bruteForce truncates a Levels chain with a tail at level top (arrivals
// above it suppressed) and solves the whole generator by GTH.
func bruteForce(l *Levels, top int) [][]float64 {
	L := len(l.Local) - 1
	m, _ := l.Tail.A1.Dims()
	block := func(n int) (local, up, down *mat.Dense) {
		if n <= L {
			local, up, down = l.Local[n], l.Up[n], l.Down[n]
		} else {
			local, up, down = l.Tail.A1, l.Tail.A0, l.Tail.A2
		}
		if n == top {
			up = nil
		}
		return
	}
	dim := func(n int) int {
		if n <= L {
			r, _ := l.Local[n].Dims()
			return r
		}
		return m
	}
	off := []int{0}
	for n := 0; n <= top; n++ {
		off = append(off, off[n]+dim(n))
	}
	q := mat.NewDense(off[top+1], off[top+1], nil)
	for n := 0; n <= top; n++ {
		local, up, down := block(n)
		for i := range dim(n) {
			for j := range dim(n) {
				q.Set(off[n]+i, off[n]+j, local.At(i, j))
			}
			if up != nil {
				for j := range dim(n + 1) {
					q.Set(off[n]+i, off[n+1]+j, up.At(i, j))
				}
			}
			if down != nil {
				for j := range dim(n - 1) {
					q.Set(off[n]+i, off[n-1]+j, down.At(i, j))
				}
			}
		}
	}
	pi := GTH(q)
	out := make([][]float64, top+1)
	for n := range out {
		out[n] = pi[off[n]:off[n+1]]
	}
	return out
}

// Random QBDs with random boundaries against GTH on the whole chain
// truncated 400 levels up (the tail decays geometrically at rate Decay,
// well below 0.9 here, so the truncation moves nothing above 1e-17; the
// elimination and the reduction are exact to rounding: 1e-11 relative
// on probabilities above 1e-12).
func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ m, b int }{{1, 0}, {2, 0}, {3, 3}, {4, 5}} {
		t.Run("", func(t *testing.T) {
			l := randomQBD(rng, c.m, c.b)
			d, err := Stationary(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Status.OK() || d.Tail.Decay >= 0.9 {
				t.Fatalf("status %v, decay %v", d.Status, d.Tail.Decay)
			}
			top := c.b + 400
			bf := bruteForce(l, top)
			var mean float64
			for n, p := range bf {
				got := d.Level(n)
				for i, v := range p {
					mean += float64(n) * v
					if v > 1e-12 && n < c.b+30 {
						near(t, "π", got[i], v, 0, 1e-11)
					}
				}
			}
			near(t, "mean level", d.MeanLevel, mean, 1e-12, 1e-11)
			var tail float64
			for _, p := range bf[c.b+1:] {
				for _, v := range p {
					tail += v
				}
			}
			near(t, "tail mass", d.TailMass, tail, 1e-14, 1e-11)
			sum, mom := d.TailSum(), d.TailMoment()
			var s, k float64
			for i := range sum {
				s += sum[i]
				k += mom[i]
			}
			near(t, "TailSum", s, d.TailMass, 1e-15, 1e-12)
			var wantK float64
			for n, p := range bf[c.b+1:] {
				for _, v := range p {
					wantK += float64(n) * v
				}
			}
			near(t, "TailMoment", k, wantK, 1e-14, 1e-10)
		})
	}
}

// A finite chain (no tail) is the exact finite elimination: the M/M/1/K
// queue, π_n ∝ ρ^n for n ≤ K (closed form).
func TestFinite(t *testing.T) {
	const K, rho = 30, 1.3
	l := &Levels{}
	for n := 0; n <= K; n++ {
		out := 0.0
		var up, down *mat.Dense
		if n < K {
			up = scalar(rho)
			out += rho
		}
		if n > 0 {
			down = scalar(1)
			out++
		}
		l.Local, l.Up, l.Down = append(l.Local, scalar(-out)), append(l.Up, up), append(l.Down, down)
	}
	d, err := Stationary(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != outcome.Exact {
		t.Fatalf("status %v", d.Status)
	}
	norm := (1 - math.Pow(rho, K+1)) / (1 - rho)
	for n := 0; n <= K; n++ {
		near(t, "π_n", d.Pi[n][0], math.Pow(rho, float64(n))/norm, 0, 1e-12)
	}
}

// Inputs that are not generators, that do not fit, or whose tail is not
// positive recurrent are errors naming the field.
func TestInvalid(t *testing.T) {
	good := func() *Levels { return mmc(0.5, 1, 2) }
	for _, c := range []struct {
		name, param string
		edit        func(l *Levels)
	}{
		{"no levels", "Local", func(l *Levels) { l.Local, l.Up, l.Down = nil, nil, nil }},
		{"negative rate", "Up", func(l *Levels) { l.Up[0] = scalar(-0.5) }},
		{"row sum", "Local", func(l *Levels) { l.Local[1] = scalar(-7) }},
		{"NaN", "Local", func(l *Levels) { l.Local[1] = scalar(math.NaN()) }},
		{"shape", "Up", func(l *Levels) { l.Up[0] = mat.NewDense(1, 2, []float64{0.25, 0.25}) }},
		{"unstable tail", "Tail", func(l *Levels) {
			l.Tail = &Homogeneous{A0: scalar(3), A1: scalar(-5), A2: scalar(2)}
			l.Up[2] = scalar(3)
			l.Local[2] = scalar(-5)
		}},
		{"tail not a generator", "Tail", func(l *Levels) { l.Tail.A1 = scalar(1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := good()
			c.edit(l)
			_, err := Stationary(l, nil)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want a *param.Error for %s", err, c.param)
			}
		})
	}
	if _, err := Stationary(good(), &Settings{Tol: 2}); err == nil {
		t.Error("Tol 2 accepted")
	}
}

// GTH keeps full relative accuracy: a birth–death chain whose
// probabilities span 300 orders of magnitude (π_n ∝ 10^{−n}, closed form).
func TestGTHRelative(t *testing.T) {
	const n = 300
	q := mat.NewDense(n, n, nil)
	for i := range n - 1 {
		q.Set(i, i+1, 1)
		q.Set(i+1, i, 10)
	}
	pi := GTH(q)
	for i := range n {
		near(t, "π", pi[i], 0.9*math.Pow(10, -float64(i)), 0, 1e-12)
	}
}
