package fixedpoint

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// chain returns the map x ↦ xP of a Markov chain (mass preserving).
func chain(p [][]float64) Func {
	return func(dst, x []float64) error {
		for j := range dst {
			dst[j] = 0
		}
		for i, xi := range x {
			for j, pij := range p[i] {
				dst[j] += xi * pij
			}
		}
		return nil
	}
}

// birthDeath is a random walk on 0..n−1 with up-probability a and
// down-probability b (reflecting): its stationary law is geometric with
// ratio a/b.
func birthDeath(n int, a, b float64) [][]float64 {
	p := make([][]float64, n)
	for i := range p {
		p[i] = make([]float64, n)
		if i+1 < n {
			p[i][i+1] = a
		} else {
			p[i][i] += a
		}
		if i > 0 {
			p[i][i-1] = b
		} else {
			p[i][i] += b
		}
		p[i][i] += 1 - a - b
	}
	return p
}

// birthDeathStationary is the stationary law of birthDeath(n, a, b),
// π_i ∝ (a/b)^i, and the leading eigenvalue other than 1 of its transition
// matrix, 1 − a − b + 2√(ab)·cos(π/n) (the reflecting walk's closed form).
func birthDeathStationary(n int, a, b float64) (pi []float64, lead float64) {
	pi = make([]float64, n)
	var z float64
	for i := range pi {
		pi[i] = math.Pow(a/b, float64(i))
		z += pi[i]
	}
	for i := range pi {
		pi[i] /= z
	}
	return pi, 1 - a - b + 2*math.Sqrt(a*b)*math.Cos(math.Pi/float64(n))
}

func TestSolveMethods(t *testing.T) {
	const n, a, b = 30, 0.3, 0.45
	f := chain(birthDeath(n, a, b))
	want, _ := birthDeathStationary(n, a, b)
	x0 := make([]float64, n)
	x0[n-1] = 1 // all mass at the far end
	for _, m := range []Method{Picard, Anderson, Newton} {
		t.Run(m.String(), func(t *testing.T) {
			r, err := Solve(f, x0, &Settings{Method: m, Tol: 1e-12, Simplex: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != outcome.Converged {
				t.Fatalf("%v after %d iterations (residual %g)", r.Status, r.Iterations, r.Residual)
			}
			// Residual 1e-12 on a chain whose slowest mode contracts by
			// about 0.99 per step: the error is within 100× the residual.
			approx.Slices(t, "π", r.X, want, 1e-10, 0)
			t.Logf("%d iterations, %d evaluations", r.Iterations, r.Evaluations)
			if len(r.History) != r.Iterations {
				t.Errorf("history of %d for %d iterations", len(r.History), r.Iterations)
			}
		})
	}
	// Acceleration must pay: Anderson and Newton need far fewer
	// evaluations than plain iteration on this slowly mixing chain.
	rp, _ := Solve(f, x0, &Settings{Tol: 1e-12})
	ra, _ := Solve(f, x0, &Settings{Method: Anderson, Tol: 1e-12, Simplex: true})
	if ra.Evaluations*5 > rp.Evaluations {
		t.Errorf("Anderson %d evaluations vs Picard %d", ra.Evaluations, rp.Evaluations)
	}
}

func TestSolveStatuses(t *testing.T) {
	const n, a, b = 30, 0.3, 0.45
	f := chain(birthDeath(n, a, b))
	x0 := make([]float64, n)
	x0[n-1] = 1
	r, _ := Solve(f, x0, &Settings{MaxIter: 3})
	if r.Status != outcome.IterationLimit || r.Status.Err() == nil {
		t.Errorf("iteration limit: %v", r.Status)
	}
	grow := func(dst, x []float64) error {
		for i := range x {
			dst[i] = 3 * x[i]
		}
		return nil
	}
	r, _ = Solve(grow, []float64{1, 1}, nil)
	if r.Status != outcome.Diverged && r.Status != outcome.NonFinite {
		t.Errorf("x ↦ 3x: %v", r.Status)
	}
	nan := func(dst, x []float64) error { dst[0], dst[1] = math.NaN(), 0; return nil }
	r, _ = Solve(nan, []float64{1, 0}, nil)
	if r.Status != outcome.NonFinite {
		t.Errorf("NaN map: %v", r.Status)
	}
	outside := func(dst, x []float64) error {
		if x[0] > 0.9 {
			return fmt.Errorf("left the support: %w", ErrDomain)
		}
		dst[0], dst[1] = x[0]+0.05, x[1]-0.05
		return nil
	}
	r, err := Solve(outside, []float64{0.5, 0.5}, nil)
	if err != nil || r.Status != outcome.OutOfDomain {
		t.Errorf("domain: %v %v", r.Status, err)
	}
	if _, err := Solve(f, x0, &Settings{Damping: 2}); err == nil {
		t.Error("damping 2 accepted")
	}
}

func TestSpectrum(t *testing.T) {
	// Birth–death chain: on zero-sum vectors the Jacobian of x ↦ xP is Pᵀ,
	// whose eigenvalues other than 1 are known in closed form for the
	// reflecting walk: 1 − a − b + 2√(ab)·cos(πj/n), j = 1..n−1.
	const n, a, b = 40, 0.3, 0.45
	p := birthDeath(n, a, b)
	f := chain(p)
	pi, lead := birthDeathStationary(n, a, b)
	cases := []struct {
		name          string
		set           *SpectrumSettings
		tol           float64
		arnoldi, from bool
	}{
		// Forward differences of a linear map are exact up to rounding
		// over the step (1e-16/1e-7).
		{"dense", &SpectrumSettings{DenseLimit: 1000, SupportTol: 1e-30}, 1e-6, false, false},
		// A Krylov space of the whole zero-sum subspace is exact.
		{"arnoldi-full", &SpectrumSettings{DenseLimit: 5, SupportTol: 1e-30, Krylov: n - 1}, 1e-6, true, false},
		// 30 vectors for 39 clustered eigenvalues (gap cos(π/40) −
		// cos(2π/40)): the mass-weighted operator is symmetric here, so
		// the Ritz value approaches from below, within 3e-3.
		{"arnoldi-30", &SpectrumSettings{DenseLimit: 5, SupportTol: 1e-30}, 3e-3, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp, err := ComputeSpectrum(f, pi, c.set)
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "radius", sp.Radius, lead, c.tol, 0)
			// The leading eigenvalue of a reversible chain is real: only
			// rounding in the Hessenberg eigenvalues.
			approx.Check(t, "imaginary part", imag(sp.Leading), 0, 1e-9, 0)
			if c.from && !(sp.Radius <= lead+1e-9) {
				t.Errorf("Ritz value %.10f above the eigenvalue %.10f", sp.Radius, lead)
			}
			if sp.Arnoldi != c.arnoldi {
				t.Errorf("Arnoldi flag %v", sp.Arnoldi)
			}
			if !c.arnoldi && len(sp.Eigenvalues) != n-1 {
				t.Errorf("%d eigenvalues, want %d", len(sp.Eigenvalues), n-1)
			}
		})
	}
	// A rotation-like chain has complex leading eigenvalues.
	rot := [][]float64{{0.1, 0.9, 0}, {0, 0.1, 0.9}, {0.9, 0, 0.1}}
	sp, err := ComputeSpectrum(chain(rot), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Eigenvalues of the circulant: 0.1 + 0.9·ω, ω = e^{±2πi/3}.
	want := complex(0.1, 0) + 0.9*cmplx.Exp(complex(0, 2*math.Pi/3))
	// Forward differences of a linear map: exact up to rounding over the
	// difference step (1e-16/1e-7), as for "dense" above.
	approx.Check(t, "rotation radius", sp.Radius, cmplx.Abs(want), 1e-6, 0)
	approx.Check(t, "rotation |imaginary part|", math.Abs(imag(sp.Leading)), math.Abs(imag(want)), 1e-6, 0)
}

func TestClassify(t *testing.T) {
	// A genuine 2-cycle, a 3-cycle, and a fixed point reached by
	// alternation (leading eigenvalue −0.9), which must not be called a
	// cycle.
	swap := chain([][]float64{{0, 1}, {1, 0}})
	att, err := Classify(swap, []float64{0.3, 0.7}, nil)
	if err != nil || att.Status != outcome.Cycle || att.Period != 2 {
		t.Errorf("swap: %+v %v", att, err)
	}
	if len(att.Points) != 2 {
		t.Fatalf("swap cycle points %v", att.Points)
	}
	// The swap is exact in floating point: rounding only.
	approx.Check(t, "swap: sum of the cycle's first coordinates", att.Points[0][0]+att.Points[1][0], 1, 1e-12, 0)
	rot := chain([][]float64{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}})
	att, _ = Classify(rot, []float64{0.2, 0.3, 0.5}, nil)
	if att.Status != outcome.Cycle || att.Period != 3 {
		t.Errorf("rotation: %v period %d", att.Status, att.Period)
	}
	alt := chain([][]float64{{0.05, 0.95}, {0.95, 0.05}})
	att, _ = Classify(alt, []float64{0.1, 0.9}, nil)
	if att.Status != outcome.FixedPoint || len(att.Points) != 1 {
		t.Fatalf("alternating convergence: %v period %d at %v", att.Status, att.Period, att.Points)
	}
	// Classify's default tolerance (1e-9) on a mode contracting by 0.9:
	// within 1e-8.
	approx.Check(t, "alternating convergence", att.Points[0][0], 0.5, 1e-8, 0)
	// Neither within the budget: a slowly rotating chain (|μ| = 0.9999).
	slow := chain([][]float64{{0.00005, 0.99995}, {0.99995, 0.00005}})
	att, _ = Classify(slow, []float64{0, 1}, &ClassifySettings{MaxIter: 50})
	if att.Status != outcome.NotSettled {
		t.Errorf("slow: %v", att.Status)
	}
}

// embed turns a scalar map g on [0, 1] into a mass-preserving map on
// (x, 1 − x); the zero-sum direction (1, −1) carries g′.
func embed(g func(x float64) float64) Func {
	return func(dst, x []float64) error {
		y := g(x[0])
		dst[0], dst[1] = y, 1-y
		return nil
	}
}

// FollowEnd on one family of each ending: a border collision, a smooth
// fold (eigenvalue +1), a flip (eigenvalue −1), and no end in the range.
func TestFollowEnd(t *testing.T) {
	t.Run("border collision", followBorderCollision)
	t.Run("fold", followFold)
	t.Run("flip", followFlip)
	t.Run("no end", followNoEnd)
}

// start is the families' starting point, (½, ½).
func start(float64) []float64 { return []float64{0.5, 0.5} }

// Border collision: g(x) = a·x + (1 − θ) left of c, slope b > 1 right of
// c. The stable fixed point x = (1 − θ)/(1 − a) meets the border c (and
// its unstable partner) at θ* = 1 − c(1 − a) = 0.7, with |g′| = a = 0.5 < 1
// to the end.
func followBorderCollision(t *testing.T) {
	const a, b, c = 0.5, 2.0, 0.6
	bc := &Family{
		Map: func(theta float64) (Func, error) {
			return embed(func(x float64) float64 {
				if x <= c {
					return a*x + 1 - theta
				}
				return b*(x-c) + a*c + 1 - theta
			}), nil
		},
		Start: start,
		Border: func(_ float64, x []float64) (int, float64) {
			if x[0] <= c {
				return 0, c - x[0]
			}
			return 1, x[0] - c
		},
	}
	end, err := FollowEnd(bc, &EndSettings{Hi: 0.99, Lo: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if end.Mechanism != BorderCollision || !(end.Lo <= end.Hi) {
		t.Errorf("%v at [%v, %v] (collision %v)", end.Mechanism, end.Lo, end.Hi, end.Collision)
	}
	// The bracket is refined to RelTol's default 1e-4 relative (1e-3
	// is ten times that); the collision is extrapolated along the
	// linear fixed-point branch, exact up to the fixed-point
	// tolerance (1e-10).
	approx.Check(t, "bracket top", end.Hi, 0.7, 1e-3, 0)
	approx.Check(t, "collision", end.Collision, 0.7, 1e-6, 0)
	approx.Check(t, "radius", end.Spectrum.Radius, a, 1e-6, 0)
}

// Smooth fold: g(x) = x + (θ − 0.5) − x², fixed point √(θ − 0.5),
// g′ = 1 − 2x → 1 as θ → 0.5: an eigenvalue crossing at +1.
func followFold(t *testing.T) {
	fold := &Family{
		Map: func(theta float64) (Func, error) {
			return embed(func(x float64) float64 { return x + theta - 0.5 - x*x }), nil
		},
		Start: start,
	}
	end, err := FollowEnd(fold, &EndSettings{Hi: 0.9, Lo: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	// Near a fold the dynamic test loses sensitivity (|g′| → 1), so the
	// bracket ends a little above 0.5; the radius says how it ended.
	if end.Mechanism != EigenvalueCrossing {
		t.Errorf("%v at [%v, %v], radius %v", end.Mechanism, end.Lo, end.Hi, end.Spectrum.Radius)
	}
	approx.Within(t, "bracket top", end.Hi, 0.5, 0.5005)
}

// Flip: logistic map with μ = 4 − θ; the fixed point 1 − 1/μ loses
// stability at μ = 3 (θ = 1) through eigenvalue −1, although it still
// exists below (Anderson would find it: the dynamic test rejects it).
func followFlip(t *testing.T) {
	flip := &Family{
		Map: func(theta float64) (Func, error) {
			mu := 4 - theta
			return embed(func(x float64) float64 { return mu * x * (1 - x) }), nil
		},
		Start: func(float64) []float64 { return []float64{0.6, 0.4} },
	}
	end, err := FollowEnd(flip, &EndSettings{Hi: 2.5, Lo: 0.5, StableIters: 64})
	if err != nil {
		t.Fatal(err)
	}
	if end.Mechanism != EigenvalueCrossing {
		t.Errorf("%v at [%v, %v], leading %v", end.Mechanism, end.Lo, end.Hi, end.Spectrum.Leading)
	}
	// Measured: bracket top 1.00006, leading eigenvalue −0.99994. As
	// for the fold, the dynamic test (64 iterations) loses
	// sensitivity as g′ = 2 − μ → −1; 0.02 and −0.9 leave it room.
	approx.Check(t, "bracket top", end.Hi, 1, 0.02, 0)
	approx.Within(t, "leading eigenvalue", real(end.Spectrum.Leading), -1, -0.9)
}

func followNoEnd(t *testing.T) {
	calm := &Family{
		Map:   func(theta float64) (Func, error) { return embed(func(x float64) float64 { return 0.5*x + 0.25 }), nil },
		Start: start,
	}
	end, err := FollowEnd(calm, &EndSettings{Hi: 10, Lo: 0.1})
	if err != nil || end.Mechanism != NoEnd || end.Lo != 0.1 {
		t.Errorf("%v %+v", err, end)
	}
	if _, err := FollowEnd(calm, &EndSettings{Hi: 1, Lo: 2}); err == nil {
		t.Error("empty range accepted")
	}
}
