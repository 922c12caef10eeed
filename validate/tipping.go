package validate

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/solver"
	"github.com/fluidlb/fluid/spec"
	"github.com/fluidlb/fluid/validate/sim"
)

// TipCurveSettings control SimulateTipCurve. Zero fields mean the
// documented defaults.
type TipCurveSettings struct {
	// Scaled lists the refresh periods, as T(1−λ)², at which to simulate.
	// Required.
	Scaled []float64
	// Reps is the number of independent runs per period. Default 16.
	Reps int
	// Horizon is H, the refresh periods a run lasts (it stops early once it
	// has tipped). Default 100.
	Horizon int
	// Start is the runs' initial state. Default empty.
	Start spec.Start
	// Seed of the runs; period i uses Seed + i.
	Seed uint64
	// Workers is the number of runs simulated at once (default
	// GOMAXPROCS); results do not depend on it.
	Workers int
	// Progress, if not nil, is called after each period's runs with the
	// number done and the total.
	Progress func(done, total int)
}

// TipPoint is the simulated tipping frequency at one refresh period.
type TipPoint struct {
	Scaled, Period float64
	// Tipped of Reps runs tipped within the horizon (see
	// spec.TipThreshold); Fraction = Tipped/Reps with its 95% Wilson
	// score interval [Lo, Hi].
	Reps, Tipped     int
	Fraction, Lo, Hi float64
	// MeanTipPeriod is the mean refresh period at which the tipped runs
	// tipped (0 if none did).
	MeanTipPeriod float64
}

// TipCurve is the probability of tipping within a horizon against the
// refresh period, simulated, with the finite-N edge where it crosses ½.
type TipCurve struct {
	K                int
	Load             float64
	Servers, Horizon int
	Points           []TipPoint
	// Edge is the scaled period where the fitted logistic curve
	// P(x) = 1/(1 + exp(−(A + B·x))) (maximum likelihood over every run)
	// crosses ½, x½ = −A/B, with its 95% interval [EdgeLo, EdgeHi] by the
	// delta method on the fit's information matrix.
	Edge, EdgeLo, EdgeHi float64
	A, B                 float64
	// Status is Converged when the fit converged with a falling curve
	// that crosses ½ inside the simulated range, NotSettled otherwise
	// (every run tipped, or none did, or the crossing lies outside).
	Status solver.Status
}

// SimulateTipCurve simulates systems of servers servers with k dispatchers
// (own tallies) at load λ, from s.Start, for s.Horizon refresh periods at
// each of the scaled periods, and fits the tipping probability.
func SimulateTipCurve(k int, load float64, servers int, s *TipCurveSettings) (*TipCurve, error) {
	var set TipCurveSettings
	if s != nil {
		set = *s
	}
	set.Reps = param.Or(set.Reps, 16)
	set.Horizon = param.Or(set.Horizon, 100)
	if len(set.Scaled) == 0 {
		return nil, param.Errorf("Scaled", "no refresh periods to simulate")
	}
	if !(load > 0 && load < 1) {
		return nil, param.Errorf("Load", "λ = %v, want 0 < λ < 1", load)
	}
	scale := (1 - load) * (1 - load)
	out := &TipCurve{K: k, Load: load, Servers: servers, Horizon: set.Horizon, Status: solver.NotSettled}
	for i, x := range set.Scaled {
		if !(x > 0) || !param.Finite(x) {
			return nil, param.Errorf("Scaled", "T(1−λ)² = %v, want a finite number > 0", x)
		}
		T := x / scale
		res, err := sim.Run(sim.Config{Servers: servers, Load: load, Dispatchers: k, Policy: spec.Policy{Kind: spec.Tally},
			Period: T, Start: set.Start, Horizon: set.Horizon, StopAtTip: true, Reps: set.Reps,
			Seed: set.Seed + uint64(i), Workers: set.Workers})
		if err != nil {
			return nil, err
		}
		p := TipPoint{Scaled: x, Period: T, Reps: set.Reps, Tipped: res.Tipped}
		for _, r := range res.Reps {
			if r.Tipped {
				p.MeanTipPeriod += float64(r.TippedAt) / float64(res.Tipped)
			}
		}
		p.Fraction = float64(p.Tipped) / float64(p.Reps)
		p.Lo, p.Hi = wilson(p.Tipped, p.Reps, 1.959963984540054)
		out.Points = append(out.Points, p)
		if set.Progress != nil {
			set.Progress(i+1, len(set.Scaled))
		}
	}
	out.fit()
	return out, nil
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
// BFGS on the negative log-likelihood) and the edge with its interval.
func (c *TipCurve) fit() {
	c.Edge, c.EdgeLo, c.EdgeHi = math.NaN(), math.NaN(), math.NaN()
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
	// Centred and scaled abscissa u = (x − m)/w keeps the problem well
	// conditioned; P = σ(a + b·u).
	m, w := 0.5*(xmin+xmax), 0.5*(xmax-xmin)
	nll := func(th []float64) float64 {
		var f float64
		for _, p := range c.Points {
			z := th[0] + th[1]*(p.Scaled-m)/w
			// log(1 + e^z) stably
			lse := math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
			f += float64(p.Reps)*lse - float64(p.Tipped)*z
		}
		return f
	}
	grad := func(g, th []float64) {
		g[0], g[1] = 0, 0
		for _, p := range c.Points {
			u := (p.Scaled - m) / w
			q := 1 / (1 + math.Exp(-(th[0] + th[1]*u)))
			r := float64(p.Reps)*q - float64(p.Tipped)
			g[0] += r
			g[1] += r * u
		}
	}
	hess := func(h *mat.SymDense, th []float64) {
		var h00, h01, h11 float64
		for _, p := range c.Points {
			u := (p.Scaled - m) / w
			q := 1 / (1 + math.Exp(-(th[0] + th[1]*u)))
			v := float64(p.Reps) * q * (1 - q)
			h00 += v
			h01 += v * u
			h11 += v * u * u
		}
		h.SetSym(0, 0, h00)
		h.SetSym(0, 1, h01)
		h.SetSym(1, 1, h11)
	}
	// The negative log-likelihood is convex: Newton's method with the
	// exact Hessian converges in a few steps.
	res, err := optimize.Minimize(optimize.Problem{Func: nll, Grad: grad, Hess: hess}, []float64{0, -1},
		&optimize.Settings{GradientThreshold: 1e-10 * float64(total)}, &optimize.Newton{})
	if err != nil || res == nil {
		return
	}
	a, b := res.X[0], res.X[1]
	if !(b < 0) {
		return // not falling with the period
	}
	// Observed information I = Σ n q(1−q) [1 u; u u²]; Cov = I⁻¹.
	info := mat.NewSymDense(2, nil)
	for _, p := range c.Points {
		u := (p.Scaled - m) / w
		q := 1 / (1 + math.Exp(-(a + b*u)))
		v := float64(p.Reps) * q * (1 - q)
		info.SetSym(0, 0, info.At(0, 0)+v)
		info.SetSym(0, 1, info.At(0, 1)+v*u)
		info.SetSym(1, 1, info.At(1, 1)+v*u*u)
	}
	var cov mat.Dense
	if err := cov.Inverse(info); err != nil {
		return
	}
	u0 := -a / b
	// x½ = m + w·u0, u0 = −a/b: gradient (−1/b, a/b²).
	ga, gb := -1/b, a/(b*b)
	varU := ga*ga*cov.At(0, 0) + 2*ga*gb*cov.At(0, 1) + gb*gb*cov.At(1, 1)
	if varU < 0 || math.IsNaN(varU) {
		return
	}
	c.A, c.B = a-b*m/w, b/w // in the original x
	c.Edge = m + w*u0
	half := 1.959963984540054 * w * math.Sqrt(varU)
	c.EdgeLo, c.EdgeHi = c.Edge-half, c.Edge+half
	if c.Edge >= xmin && c.Edge <= xmax {
		c.Status = solver.Converged
	}
}

// errNoCrossing says a simulated curve did not cross ½.
var errNoCrossing = errors.New("validate: the simulated tipping probability does not cross ½ in the simulated range")
