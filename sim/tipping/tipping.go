package tipping

import (
	"math"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// Model is the system whose tipping is simulated: Servers servers and
// Dispatchers dispatchers, each adding its own sends to a stale board
// (farm.Tally), at load λ, from Start.
type Model struct {
	// Dispatchers k ≥ 1. Required.
	Dispatchers int
	// Load λ, 0 < λ < 1. Required.
	Load float64
	// Servers N ≥ 1. Required.
	Servers int
	// Start is the runs' initial state. Default empty.
	Start farm.Start
}

// Validate checks the model (a *param.Error names the bad field; the
// simulator checks the size of each run).
func (m *Model) Validate() error {
	if m.Dispatchers < 1 {
		return param.Errorf("Dispatchers", "k = %d, want at least 1", m.Dispatchers)
	}
	if !(m.Load > 0 && m.Load < 1) {
		return param.Errorf("Load", "λ = %v, want 0 < λ < 1", m.Load)
	}
	if m.Servers < 1 {
		return param.Errorf("Servers", "N = %d, want at least 1 server", m.Servers)
	}
	return m.Start.Validate()
}

// Settings control Simulate. A nil *Settings or a zero field means the
// documented default.
type Settings struct {
	// Scaled lists the refresh periods, as T(1−λ)², at which to simulate.
	// Required.
	Scaled []float64
	// Reps is the number of independent runs per period. Default 16.
	Reps int
	// Horizon is H, the refresh periods a run lasts (it stops early once it
	// has tipped). Default 100.
	Horizon int
	// Seed of the runs; period i uses Seed + i.
	Seed uint64
	// Refine adds that many periods after the grid, each at the midpoint
	// of the bracket where the simulated fraction falls through ½: near a
	// steep curve (large N) the grid alone may hold no period with some
	// runs tipped and some not. Default 0.
	Refine int
	// Run: Workers is the number of runs simulated at once (default
	// GOMAXPROCS; results do not depend on it); Progress is told after
	// each period of the periods done and their total; a cancelled
	// Context ends the simulation with the periods finished (Status
	// Interrupted, no fit).
	outcome.Run
}

// AroundEdge is the simulated finite-N edge experiment (fluid edge
// --simulate, and fluid validate's finite-n-edge case): the settings that
// simulate edge i of a run whose seed is seed around a theory edge at the
// scaled period scaled (T*(N, H)(1−λ)²). Seven periods within ±10% of it,
// then two where the simulated fraction falls through ½ (Refine); the
// seed sim.SubSeed(seed, 1000·i), so that the periods of different edges
// (Seed + 0, 1, …) never share a seed. Reps, Horizon and Run are left to
// the caller.
func AroundEdge(scaled float64, seed uint64, i int) *Settings {
	s := &Settings{Refine: 2, Seed: sim.SubSeed(seed, uint64(1000*i))}
	for _, d := range []float64{-0.10, -0.06, -0.03, 0, 0.03, 0.06, 0.10} {
		s.Scaled = append(s.Scaled, scaled*(1+d))
	}
	return s
}

// Point is the simulated tipping frequency at one refresh period.
type Point struct {
	Scaled, Period float64
	// Tipped of Reps runs tipped within the horizon (see
	// farm.TipWatch); Fraction = Tipped/Reps with its 95% Wilson
	// score interval [Lo, Hi].
	Reps, Tipped     int
	Fraction, Lo, Hi float64
	// MeanTipPeriod is the mean refresh period at which the tipped runs
	// tipped (0 if none did).
	MeanTipPeriod float64
}

// Curve is the probability of tipping within a horizon against the
// refresh period, simulated, with the finite-N edge where it crosses ½.
//
// Its Status is Converged when the fit converged with a falling curve
// that crosses ½ inside the simulated range (or the runs are separated),
// NotSettled otherwise (every run tipped, or none did, or the crossing
// lies outside), Interrupted when the Context ended the simulation (the
// points are those finished; nothing is fitted). Evaluations counts the
// events simulated.
type Curve struct {
	outcome.Outcome
	Model   Model
	Horizon int
	Points  []Point
	// Edge is the scaled period where the fitted logistic curve
	// P(x) = 1/(1 + exp(−(A + B·x))) (maximum likelihood over every run)
	// crosses ½, x½ = −A/B, with its 95% profile-likelihood interval
	// [EdgeLo, EdgeHi] (see fit).
	Edge, EdgeLo, EdgeHi float64
	A, B                 float64
	// Separated is set when every run tipped at the periods up to some
	// x₁ and none did from the next period x₂ on: the logistic fit has no
	// maximum (B = −Inf, A NaN), Edge is the midpoint of [x₁, x₂] and the
	// interval covers the bracket.
	Separated bool
}

// Simulate simulates the model for s.Horizon refresh periods at each of
// the scaled periods, s.Reps runs each, and fits the tipping probability.
func Simulate(m *Model, s *Settings) (*Curve, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var set Settings
	if s != nil {
		set = *s
	}
	set.Reps = param.Or(set.Reps, 16)
	set.Horizon = param.Or(set.Horizon, 100)
	if len(set.Scaled) == 0 {
		return nil, param.Errorf("Scaled", "no refresh periods to simulate")
	}
	if set.Refine < 0 || set.Refine > 20 {
		return nil, param.Errorf("Refine", "%d refinements, want 0..20", set.Refine)
	}
	start := time.Now()
	scale := (1 - m.Load) * (1 - m.Load)
	out := &Curve{Outcome: outcome.Outcome{Status: outcome.NotSettled}, Model: *m, Horizon: set.Horizon}
	total := len(set.Scaled) + set.Refine
	interrupted := false
	simulate := func(i int, x float64) error {
		if !(x > 0) || !param.Finite(x) {
			return param.Errorf("Scaled", "T(1−λ)² = %v, want a finite number > 0", x)
		}
		T := x / scale
		res, err := sim.Run(&sim.Model{Servers: m.Servers, Load: m.Load, Dispatchers: m.Dispatchers, Policy: farm.Policy{Kind: farm.Tally}, Period: T, Start: m.Start},
			&sim.Settings{Horizon: set.Horizon, StopAtTip: true, Reps: set.Reps, Seed: set.Seed + uint64(i), Run: outcome.Run{Context: set.Context, Workers: set.Workers}})
		if err != nil {
			return err
		}
		out.Evaluations += res.Evaluations
		if res.Status == outcome.Interrupted {
			interrupted = true
			return nil
		}
		p := Point{Scaled: x, Period: T, Reps: set.Reps, Tipped: res.Tipped}
		for _, r := range res.Reps {
			if r.Tipped {
				p.MeanTipPeriod += float64(r.TippedAt) / float64(res.Tipped)
			}
		}
		p.Fraction = float64(p.Tipped) / float64(p.Reps)
		p.Lo, p.Hi = wilson(p.Tipped, p.Reps, 1.959963984540054)
		at := sort.Search(len(out.Points), func(j int) bool { return out.Points[j].Scaled > x })
		out.Points = slices.Insert(out.Points, at, p)
		set.Report(int64(i+1), int64(total), "")
		return nil
	}
	for i, x := range set.Scaled {
		if err := simulate(i, x); err != nil {
			return nil, err
		}
		if interrupted {
			break
		}
	}
	for r := range set.Refine {
		lo, hi, ok := out.halfBracket()
		if interrupted || !ok {
			break
		}
		if err := simulate(len(set.Scaled)+r, 0.5*(lo+hi)); err != nil {
			return nil, err
		}
	}
	if interrupted {
		out.Status = outcome.Interrupted
		out.Edge, out.EdgeLo, out.EdgeHi, out.A, out.B = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	} else {
		out.fit()
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// halfBracket returns the neighbouring periods where the simulated
// fraction falls from ≥ ½ to < ½ (the first such pair).
func (c *Curve) halfBracket() (lo, hi float64, ok bool) {
	for j := 1; j < len(c.Points); j++ {
		if c.Points[j-1].Fraction >= 0.5 && c.Points[j].Fraction < 0.5 {
			return c.Points[j-1].Scaled, c.Points[j].Scaled, true
		}
	}
	return 0, 0, false
}

// separated reports whether every run tipped at the periods up to some
// point and none from the next on, and returns that pair.
func (c *Curve) separated() (x1, x2 float64, ok bool) {
	for j := 1; j < len(c.Points); j++ {
		left, right := true, true
		for _, p := range c.Points[:j] {
			left = left && p.Tipped == p.Reps
		}
		for _, p := range c.Points[j:] {
			right = right && p.Tipped == 0
		}
		if left && right {
			return c.Points[j-1].Scaled, c.Points[j].Scaled, true
		}
	}
	return 0, 0, false
}

// wilson is the Wilson score interval of a binomial proportion at the
// normal quantile z.
func wilson(k, n int, z float64) (lo, hi float64) {
	p, nn := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / d
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / d
	return math.Max(0, c-h), math.Min(1, c+h)
}

// fit finds the logistic curve by maximum likelihood (gonum/optimize,
// Newton on the negative log-likelihood) and the edge x½ with its 95%
// profile-likelihood interval: the x½ whose best curve crossing ½ there,
// P(x) = σ(b·(x − x½)) with the slope b < 0 re-fitted, loses at most
// χ²₁(0.95)/2 = 1.92 of log-likelihood. Unlike the delta method, the
// profile stays honest on the steep curves of large N, where one or two
// periods hold all the information; when the runs are separated (every
// run tipped up to x₁, none from x₂ on) it is flat on [x₁, x₂], the edge
// is the midpoint and the interval covers the bracket.
func (c *Curve) fit() {
	c.Edge, c.EdgeLo, c.EdgeHi = math.NaN(), math.NaN(), math.NaN()
	c.A, c.B = math.NaN(), math.NaN()
	var tipped, total int
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, p := range c.Points {
		tipped += p.Tipped
		total += p.Reps
		xmin, xmax = math.Min(xmin, p.Scaled), math.Max(xmax, p.Scaled)
	}
	if tipped == 0 || tipped == total || len(c.Points) < 2 {
		return
	}
	w := xmax - xmin
	var best float64
	if x1, x2, ok := c.separated(); ok {
		c.Separated = true
		c.Edge = 0.5 * (x1 + x2)
		c.B = math.Inf(-1)
		best = c.profile(c.Edge, w)
	} else {
		a, b, ok := c.logistic(xmin, xmax, total)
		if !ok || !(b < 0) {
			return // not falling with the period
		}
		c.A, c.B = a, b
		c.Edge = -a / b
		best = c.profile(c.Edge, w)
	}
	if c.Edge < xmin || c.Edge > xmax {
		return
	}
	// The interval's ends: where the profile has fallen by 1.92, found by
	// bisection within one grid width beyond the simulated range.
	const drop = 3.841458820694124 / 2
	end := func(dir float64) float64 {
		in, out := c.Edge, c.Edge+dir*w
		for best-c.profile(out, w) < drop {
			if math.Abs(out-c.Edge) > 2*w {
				return math.NaN()
			}
			in, out = out, out+dir*w
		}
		for range 60 {
			mid := 0.5 * (in + out)
			if best-c.profile(mid, w) < drop {
				in = mid
			} else {
				out = mid
			}
		}
		return 0.5 * (in + out)
	}
	c.EdgeLo, c.EdgeHi = end(-1), end(1)
	if !math.IsNaN(c.EdgeLo) && !math.IsNaN(c.EdgeHi) {
		c.Status = outcome.Converged
	}
}

// softplus is log(1 + eᶻ), computed stably.
func softplus(z float64) float64 { return math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) }

// logLikelihood of the runs under P(x) = σ(a + b·x).
func (c *Curve) logLikelihood(a, b float64) float64 {
	var f float64
	for _, p := range c.Points {
		z := a + b*p.Scaled
		f += float64(p.Tipped)*z - float64(p.Reps)*softplus(z)
	}
	return f
}

// profile is the log-likelihood of the best falling curve through ½ at
// x: the maximum over b < 0 of the curve σ(b·(x' − x)). It is concave in
// b, so a golden-section search on log(−b) over slopes from 10⁻³/w to
// 10⁶/w (w: the simulated range) finds it; the steepest slope stands for
// a step (a separated curve's limit).
func (c *Curve) profile(x, w float64) float64 {
	f := func(s float64) float64 { b := -math.Exp(s); return c.logLikelihood(-b*x, b) }
	lo, hi := math.Log(1e-3/w), math.Log(1e6/w)
	const g = 0.6180339887498949
	s1, s2 := hi-g*(hi-lo), lo+g*(hi-lo)
	f1, f2 := f(s1), f(s2)
	for range 80 {
		if f1 < f2 {
			lo, s1, f1 = s1, s2, f2
			s2 = lo + g*(hi-lo)
			f2 = f(s2)
		} else {
			hi, s2, f2 = s2, s1, f1
			s1 = hi - g*(hi-lo)
			f1 = f(s1)
		}
	}
	return max(f1, f2, f(math.Log(1e-3/w)), f(math.Log(1e6/w)))
}

// logistic fits P(x) = σ(a + b·x) by maximum likelihood: Newton's method
// with the exact Hessian on the centred abscissa u = (x − m)/h (the
// negative log-likelihood is convex).
func (c *Curve) logistic(xmin, xmax float64, total int) (a, b float64, ok bool) {
	m, h := 0.5*(xmin+xmax), 0.5*(xmax-xmin)
	each := func(th []float64, f func(u, n, k, q float64)) {
		for _, p := range c.Points {
			u := (p.Scaled - m) / h
			f(u, float64(p.Reps), float64(p.Tipped), 1/(1+math.Exp(-(th[0]+th[1]*u))))
		}
	}
	nll := func(th []float64) float64 {
		var v float64
		for _, p := range c.Points {
			z := th[0] + th[1]*(p.Scaled-m)/h
			v += float64(p.Reps)*softplus(z) - float64(p.Tipped)*z
		}
		return v
	}
	grad := func(g, th []float64) {
		g[0], g[1] = 0, 0
		each(th, func(u, n, k, q float64) { g[0] += n*q - k; g[1] += (n*q - k) * u })
	}
	hess := func(hs *mat.SymDense, th []float64) {
		var h00, h01, h11 float64
		each(th, func(u, n, _, q float64) { v := n * q * (1 - q); h00 += v; h01 += v * u; h11 += v * u * u })
		hs.SetSym(0, 0, h00)
		hs.SetSym(0, 1, h01)
		hs.SetSym(1, 1, h11)
	}
	res, err := optimize.Minimize(optimize.Problem{Func: nll, Grad: grad, Hess: hess}, []float64{0, -1},
		&optimize.Settings{GradientThreshold: 1e-10 * float64(total)}, &optimize.Newton{})
	if res == nil {
		return 0, 0, false
	}
	if err != nil {
		// Near the optimum the line search may fail to see a decrease
		// below the function's rounding; accept a point whose gradient,
		// in expected minus observed tips, is below 10⁻⁶ of the runs.
		g := make([]float64, 2)
		grad(g, res.X)
		if math.Max(math.Abs(g[0]), math.Abs(g[1])) > 1e-6*float64(total) {
			return 0, 0, false
		}
	}
	return res.X[0] - res.X[1]*m/h, res.X[1] / h, true
}
