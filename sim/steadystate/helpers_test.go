package steadystate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// within fails t unless got is finite and within abs + rel·|want| of want.
// It is the one tolerance helper of the package's tests; each caller says
// where its tolerance comes from.
func within(t *testing.T, what string, got, want, abs, rel float64) {
	t.Helper()
	if math.IsNaN(got) || math.IsInf(got, 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	if d := math.Abs(got - want); d > abs+rel*math.Abs(want) {
		t.Errorf("%s = %.8g, want %.8g ± (%g + %g·|want|): off by %.3g", what, got, want, abs, rel, d)
	}
}

// newRand is the random stream of one run of a test: PCG seeded by
// (seed, stream), so that every run is reproducible and runs are
// independent.
func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// process is a synthetic output series with an exactly known stationary
// mean: Fill adds observations to s until it holds n.
type process interface {
	Fill(s *Series, n int64)
}

// ar1 is X_i = μ + φ(X_{i−1} − μ) + σ·ε_i with standard normal ε, from
// X_0 = x0: stationary mean μ, asymptotic variance of the mean
// σ²/(1−φ)², relaxation time −1/ln φ observations. One channel.
type ar1 struct {
	mu, phi, sigma, x float64
	rng               *rand.Rand
}

func (p *ar1) Fill(s *Series, n int64) {
	for s.Count() < n {
		p.x = p.mu + p.phi*(p.x-p.mu) + p.sigma*p.rng.NormFloat64()
		s.Add(p.x)
	}
}

// h2 draws balanced-means hyperexponential sizes of mean 1 and squared
// coefficient of variation c² ≥ 1 (c² = 1: exponential): with probability
// p a "giant" of mean 1/(2p), otherwise a small job of mean 1/(2(1−p)),
// p = (1 − √((c²−1)/(c²+1)))/2.
type h2 struct{ p, giant, small float64 }

func newH2(c2 float64) h2 {
	s := math.Sqrt((c2 - 1) / (c2 + 1))
	p := 1 / ((c2 + 1) * (1 + s))
	return h2{p: p, giant: 1 / (2 * p), small: 1 / (2 * (1 - p))}
}

func (h h2) draw(r *rand.Rand) float64 {
	if h.p == 0.5 { // c² = 1
		return r.ExpFloat64()
	}
	if r.Float64() < h.p {
		return h.giant * r.ExpFloat64()
	}
	return h.small * r.ExpFloat64()
}

// moment3 is E[S³] = 6·(p·giant³ + (1−p)·small³).
func (h h2) moment3() float64 {
	return 6 * (h.p*h.giant*h.giant*h.giant + (1-h.p)*h.small*h.small*h.small)
}

// lindley is the M/G/1 FCFS queue with arrival rate λ and H2 sizes of
// mean 1, from an empty start, by Lindley's recursion W_{n+1} = max(0,
// W_n + S_n − A_{n+1}). Per job, in arrival order, channels: 0 the time
// in system T = W + S, 1 the indicator of waiting (W > 0), 2 T·1{W > 0},
// 3 the wait W. Exact means (Pollaczek–Khinchine): E[W] =
// λ(1 + c²)/(2(1 − λ)), E[T] = 1 + E[W], P(W > 0) = λ; for exponential
// sizes E[T | W > 0] = 1/(1 − λ) + 1.
type lindley struct {
	lambda float64
	sizes  h2
	w      float64
	rng    *rand.Rand
}

func (p *lindley) Fill(s *Series, n int64) {
	for s.Count() < n {
		size := p.sizes.draw(p.rng)
		waited := 0.0
		if p.w > 0 {
			waited = 1
		}
		t := p.w + size
		s.Add(t, waited, t*waited, p.w)
		p.w = max(0, t-p.rng.ExpFloat64()/p.lambda)
	}
}

// sojournPK is the exact M/G/1 mean time in system at mean size 1.
func sojournPK(lambda, c2 float64) float64 { return 1 + lambda*(1+c2)/(2*(1-lambda)) }

// modulated is a two-state Markov-modulated series: a chain that leaves
// state 0 with probability p0 and state 1 with probability p1 at each
// step, and an observation exponential with mean level[state]. It starts
// in state 1. Stationary mean (p1·level0 + p0·level1)/(p0 + p1).
type modulated struct {
	p0, p1 float64
	level  [2]float64
	state  int
	rng    *rand.Rand
}

func (p *modulated) Fill(s *Series, n int64) {
	for s.Count() < n {
		leave := p.p0
		if p.state == 1 {
			leave = p.p1
		}
		if p.rng.Float64() < leave {
			p.state = 1 - p.state
		}
		s.Add(p.level[p.state] * p.rng.ExpFloat64())
	}
}

func (p *modulated) mean() float64 {
	return (p.p1*p.level[0] + p.p0*p.level[1]) / (p.p0 + p.p1)
}

// iid is independent normal observations N(μ, σ²) in one channel.
type iid struct {
	mu, sigma float64
	rng       *rand.Rand
}

func (p *iid) Fill(s *Series, n int64) {
	for s.Count() < n {
		s.Add(p.mu + p.sigma*p.rng.NormFloat64())
	}
}

// sequential runs the whole procedure on one replication of p: check,
// fill to Decision.Next, until a stop.
func sequential(t testing.TB, p process, channels int, c *Controller) (Decision, *Series) {
	s, err := NewSeries(channels, nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		d := c.Check(s)
		if d.Stop() {
			return d, s
		}
		p.Fill(s, d.Next)
	}
}
