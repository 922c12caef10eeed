package jiq

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// minOf returns the smallest entry.
func minOf(v []float64) float64 { return slices.Min(v) }

// settle runs the fluid ODE to its long-time limit or fails the test.
func settle(t *testing.T, m *Model) *SettleResult {
	t.Helper()
	s, err := Settle(m, nil)
	if err != nil || s.Status != outcome.Converged {
		t.Fatalf("%+v: %v, %v", *m, s, err)
	}
	return s
}

// Theorem 1 of the INFOCOM 2017 paper: basic JIQ blocking tends to
// max{1 − R·α_R, 1 − 1/λ}, α_R the smallest share.
func TestTheorem1Grid(t *testing.T) {
	alphas := map[int][][]float64{
		2: {{0.5, 0.5}, {0.7, 0.3}, {0.1, 0.9}, {0.55, 0.45}},
		3: {{0.6, 0.2, 0.2}, {0.2, 0.5, 0.3}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.45, 0.35, 0.2}},
		5: {{0.3, 0.25, 0.2, 0.15, 0.1}, {0.05, 0.2, 0.25, 0.2, 0.3}, {0.2, 0.2, 0.2, 0.2, 0.2}},
	}
	loads := []float64{0.1, 0.5, 0.8, 0.95, 1, 1.3, 2, 2.9}
	for _, R := range []int{2, 3, 5} {
		for _, a := range alphas[R] {
			for _, lam := range loads {
				t.Run(fmt.Sprintf("α=%v λ=%v", a, lam), func(t *testing.T) {
					want := math.Max(1-float64(R)*minOf(a), 1-1/lam)
					want = math.Max(want, 0)
					m := &Model{Scenario: Blocking, Load: lam, Alpha: a}
					lim, err := Limit(m)
					if err != nil {
						t.Fatal(err)
					}
					// Closed form: exact up to rounding.
					approx.Check(t, "closed form B", lim.Blocking, want, 1e-12, 0)
					// Root equation of the exchange model as ν → 0: its root
					// is continuous in ν, and at ν = 1e-9 the blocking moves
					// by O(ν), far below the 1e-6 acceptance tolerance.
					mr := *m
					mr.Exchange = 1e-9
					limr, err := Limit(&mr)
					if err != nil {
						t.Fatal(err)
					}
					approx.Check(t, "root equation B", limr.Blocking, want, 1e-6, 0)
					// The ODE's long-time limit (residual ≤ 1e-13; 1e-6 is
					// the acceptance tolerance of the ODE against the
					// closed forms throughout).
					s := settle(t, m)
					approx.Check(t, "ODE limit B", s.Blocking, want, 1e-6, 0)
					if lim.TokensDetermined {
						approx.Slices(t, "tokens (ODE against closed form)", s.State.Tokens, lim.Tokens, 1e-6, 0)
					}
				})
			}
		}
	}
}

func TestGeneralBetaAndExchangeBlocking(t *testing.T) {
	// With general β and ν = 0: x₀* = min{1, λ·min α_r/β_r}.
	m := &Model{Scenario: Blocking, Load: 0.8, Alpha: []float64{0.5, 0.3, 0.2}, Beta: []float64{0.2, 0.3, 0.5}}
	lim, err := Limit(m)
	if err != nil {
		t.Fatal(err)
	}
	// Closed forms: rounding only.
	approx.Check(t, "busy", lim.Busy, 0.8*0.4, 1e-14, 0)
	approx.Check(t, "tokens at dispatcher 3", lim.Tokens[2], 1-0.8*0.4, 1e-14, 0)
	// With ν > 0 the fixed point solves x = Σ min{α_r·λ, β_r·x + ν(1 − x)/R}
	// and x_r = [β_r·x + ν(1−x)/R − α_r·λ]⁺/ν: check both equations and the
	// ODE limit for several ν.
	for _, nu := range []float64{0.01, 0.3, 2, 10} {
		t.Run(fmt.Sprintf("ν=%v", nu), func(t *testing.T) {
			m := &Model{Scenario: Blocking, Load: 0.7, Alpha: []float64{0.6, 0.25, 0.15}, Beta: []float64{0.2, 0.3, 0.5}, Exchange: nu}
			lim, err := Limit(m)
			if err != nil {
				t.Fatal(err)
			}
			x := lim.Busy
			var rhs float64
			for r, a := range m.Alpha {
				in := m.Beta[r]*x + nu*(1-x)/3
				rhs += math.Min(a*m.Load, in)
				// Rounding, amplified by 1/ν ≤ 100.
				approx.Check(t, fmt.Sprintf("x_%d", r+1), lim.Tokens[r], math.Max(0, in-a*m.Load)/nu, 1e-12, 0)
			}
			// The root is solved to rounding.
			approx.Check(t, "root equation", rhs, x, 1e-14, 0)
			s := settle(t, m)
			approx.Check(t, "ODE limit busy", s.State.Busy, x, 1e-6, 0)
			approx.Check(t, "ODE limit B", s.Blocking, lim.Blocking, 1e-6, 0)
		})
	}
}

// The closed-form trajectory: basic blocking JIQ, R = 2,
// λ = 0.5, α = (0.7, 0.3), start x = (0, ½, ½).
func TestClosedFormTrajectory(t *testing.T) {
	const lam, a1, a2 = 0.5, 0.7, 0.3
	x1Phase1 := func(tt float64) float64 { return 0.5 - lam*(a1-0.5)*tt - lam/2*(1-math.Exp(-tt)) }
	// t₁ from the phase-1 formula by bisection (x₁ is decreasing there).
	t1 := bisect(x1Phase1, 0, 10)
	if !approx.Check(t, "closed-form t₁", t1, 2.672669, 5e-7, 0) { // t₁ is known to 7 digits
		t.FailNow()
	}
	x0 := func(tt float64) float64 {
		if tt <= t1 {
			return lam * (1 - math.Exp(-tt))
		}
		x0t1 := lam * (1 - math.Exp(-t1))
		return 2*a2*lam + (x0t1-2*a2*lam)*math.Exp(-(tt-t1)/2)
	}
	m := &Model{Scenario: Blocking, Load: lam, Alpha: []float64{a1, a2}}
	times := []float64{1, 2, 3, 5, 10, 20}
	var got []float64
	res, err := Trajectory(m, &TrajectorySettings{Start: &State{Busy: 0, Tokens: []float64{0.5, 0.5}}, Until: 20,
		Times: times,
		Output: func(p *Point) error {
			got = append(got, p.Busy)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Switches) != 1 || res.Switches[0].Dispatcher != 0 || !res.Switches[0].Empty {
		t.Fatalf("switches %+v, want dispatcher 1 emptying once", res.Switches)
	}
	// The ODE against its closed form: 1e-6, as throughout.
	approx.Check(t, "time pool 1 empties", res.Switches[0].T, t1, 1e-6, 0)
	want := make([]float64, len(times))
	for i, tt := range times {
		want[i] = x0(tt)
	}
	approx.Slices(t, "x₀", got, want, 1e-6, 0)
	// Mass is conserved to the integrator's rounding.
	approx.Check(t, "conservation error", res.ConservationError, 0, 1e-9, 0)
	// The limits: x₀ → 0.3, B → 0.4.
	lim, err := Limit(m)
	if err != nil {
		t.Fatal(err)
	}
	approx.Check(t, "limit x₀", lim.Busy, 0.3, 1e-14, 0)
	approx.Check(t, "limit B", lim.Blocking, 0.4, 1e-14, 0)
}

func TestQueueingLimits(t *testing.T) {
	// R = 2 basic JIQ: E[W] → λ(α₁ − ½)/(1 − λα₁).
	for _, a1 := range []float64{0.5, 0.6, 0.75, 0.9, 0.99} {
		for _, lam := range []float64{0.1, 0.5, 0.9, 0.99} {
			t.Run(fmt.Sprintf("α₁=%v λ=%v", a1, lam), func(t *testing.T) {
				m := &Model{Scenario: Queueing, Load: lam, Alpha: []float64{1 - a1, a1}}
				lim, err := Limit(m)
				if err != nil {
					t.Fatal(err)
				}
				approx.Check(t, "E[W]", lim.MeanWait, lam*(a1-0.5)/(1-lam*a1), 1e-12, 0)
				if lam <= 0.9 {
					s := settle(t, m)
					approx.Check(t, "ODE λ₂ against the root", s.RandomRate, lim.RandomRate, 1e-6, 0)
				}
			})
		}
	}
	// The R = 3 counterexample: λ = 0.5 gives E[W] = 4/21 ≈
	// 0.1905 for α = (.6,.2,.2) but 1/9 ≈ 0.1111 for α = (.4,.4,.2).
	for _, c := range []struct {
		alpha []float64
		want  float64
	}{{[]float64{0.6, 0.2, 0.2}, 4.0 / 21}, {[]float64{0.4, 0.4, 0.2}, 1.0 / 9}} {
		t.Run(fmt.Sprintf("α=%v", c.alpha), func(t *testing.T) {
			m := &Model{Scenario: Queueing, Load: 0.5, Alpha: c.alpha}
			lim, err := Limit(m)
			if err != nil {
				t.Fatal(err)
			}
			approx.Check(t, "E[W]", lim.MeanWait, c.want, 1e-12, 0)
			// Derived quantities: one operation each, rounding only.
			approx.Check(t, "fraction random", lim.FractionRandom, lim.RandomRate/0.5, 1e-15, 0)
			approx.Check(t, "sojourn", lim.Sojourn, 1+lim.MeanWait, 1e-15, 0)
			s := settle(t, m)
			approx.Check(t, "ODE λ₂ against the root", s.RandomRate, lim.RandomRate, 1e-6, 0)
			// Occupancy: y₀ = 1 − λ, y_i = λ(1 − λ₂)λ₂^(i−1).
			approx.Slices(t, "y (ODE against closed form)", s.State.Occupancy[:6], lim.Occupancy[:6], 1e-6, 0)
			approx.Within(t, "truncated mass", lim.TruncatedMass, 0, defaultTailTol)
		})
	}
}

func TestEnhancements(t *testing.T) {
	alphas := [][]float64{{0.7, 0.3}, {0.6, 0.2, 0.2}, {0.1, 0.2, 0.3, 0.4}}
	for _, scen := range []farm.Scenario{Blocking, Queueing} {
		for _, a := range alphas {
			for _, lam := range []float64{0.3, 0.8, 0.95} {
				t.Run(fmt.Sprintf("%v α=%v λ=%v", scen, a, lam), func(t *testing.T) {
					checkEnhancements(t, &Model{Scenario: scen, Load: lam, Alpha: a})
				})
			}
		}
	}
	// λ ≥ 1 (blocking): no exchange rate removes blocking.
	m := &Model{Scenario: Blocking, Load: 1.2, Alpha: []float64{0.5, 0.5}, Exchange: 100}
	lim, _ := Limit(m)
	if !math.IsInf(lim.NuStar, 1) || lim.ZeroDelay {
		t.Errorf("λ = 1.2: ν* = %v, zero %v", lim.NuStar, lim.ZeroDelay)
	}
	approx.Check(t, "λ = 1.2: B", lim.Blocking, 1-1/1.2, 1e-12, 0)
}

// checkEnhancements checks both enhancements on the basic model m: β = α,
// and token exchange just above and below ν*.
func checkEnhancements(t *testing.T, m *Model) {
	delay := func(l *LimitResult) float64 {
		if m.Scenario == Blocking {
			return l.Blocking
		}
		return l.MeanWait
	}
	// zero checks a limit with zero blocking and zero wait (to rounding).
	zero := func(what string, l *LimitResult) {
		approx.Check(t, what+": delay", delay(l), 0, 1e-12, 0)
		if !l.ZeroDelay {
			t.Error(what + ": not flagged zero delay")
		}
	}
	// Enhancement 1: β = α.
	ma := *m
	ma.Beta = m.Alpha
	lim, err := Limit(&ma)
	if err != nil {
		t.Fatal(err)
	}
	zero("β = α", lim)
	// Enhancement 2: ν* = (R·α₁ − 1)λ/(1 − λ) for basic β.
	nuStar := (float64(len(m.Alpha))*slices.Max(m.Alpha) - 1) * m.Load / (1 - m.Load)
	approx.Check(t, "ν*", m.NuStar(), nuStar, 0, 1e-12)
	above, below := *m, *m
	above.Exchange, below.Exchange = 1.001*nuStar, 0.999*nuStar
	la, err := Limit(&above)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Limit(&below)
	if err != nil {
		t.Fatal(err)
	}
	zero("ν = 1.001ν*", la)
	// 0.1% below ν* leaves a positive delay, far above rounding (1e-9).
	if !(delay(lb) > 1e-9) || lb.ZeroDelay {
		t.Errorf("ν = 0.999ν* gives delay %g (zero flag %v), want > 0", delay(lb), lb.ZeroDelay)
	}
	// The ODE agrees on both sides.
	for _, mm := range []*Model{&above, &below} {
		l, _ := Limit(mm)
		s := settle(t, mm)
		got, want := s.Blocking, l.Blocking
		if m.Scenario == Queueing {
			got, want = s.RandomRate, l.RandomRate
		}
		approx.Check(t, fmt.Sprintf("ν=%v: ODE against the root", mm.Exchange), got, want, 1e-6, 0)
	}
}

func TestConservationAlongTrajectories(t *testing.T) {
	cases := []struct {
		m    Model
		init *State
	}{
		{Model{Scenario: Blocking, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}}, nil},
		{Model{Scenario: Blocking, Load: 1.7, Alpha: []float64{0.5, 0.3, 0.2}, Exchange: 0.5}, &State{Busy: 0.9, Tokens: []float64{0.1, 0, 0}}},
		{Model{Scenario: Queueing, Load: 0.9, Alpha: []float64{0.6, 0.3, 0.1}, Beta: []float64{0.5, 0.3, 0.2}, Exchange: 0.2}, nil},
		{Model{Scenario: Queueing, Load: 0.7, Alpha: []float64{0.8, 0.2}}, &State{Occupancy: []float64{0.2, 0.1, 0.1, 0.2, 0.4}, Tokens: []float64{0.2, 0}}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%+v", c.m), func(t *testing.T) {
			res, err := Trajectory(&c.m, &TrajectorySettings{Start: c.init, Until: 100})
			if err != nil {
				t.Fatal(err)
			}
			// Mass is conserved to the integrator's rounding.
			approx.Check(t, "conservation error", res.ConservationError, 0, 1e-9, 0)
			if len(res.Switches) == 0 {
				t.Error("no pool switched; the case does not exercise the sliding rule")
			}
			// No chattering: the number of steps stays that of a smooth problem.
			if res.Stats.Steps > 5000 {
				t.Errorf("%d steps", res.Stats.Steps)
			}
			for r, x := range res.Final.Tokens {
				approx.Within(t, fmt.Sprintf("token mass %d", r), x, 0, 1)
			}
		})
	}
}

func TestDispatcherOrder(t *testing.T) {
	// Results follow the user's order: a permuted α gives permuted tokens
	// and the same blocking, wait and ν*.
	for _, scen := range []farm.Scenario{Blocking, Queueing} {
		t.Run(scen.String(), func(t *testing.T) {
			a := []float64{0.2, 0.5, 0.3}
			p := []float64{0.5, 0.3, 0.2}
			perm := []int{1, 2, 0} // p[i] = a[perm[i]]
			la, err := Limit(&Model{Scenario: scen, Load: 0.8, Alpha: a, Exchange: 0.3})
			if err != nil {
				t.Fatal(err)
			}
			lp, err := Limit(&Model{Scenario: scen, Load: 0.8, Alpha: p, Exchange: 0.3})
			if err != nil {
				t.Fatal(err)
			}
			if la.Blocking != lp.Blocking || la.NuStar != lp.NuStar {
				t.Errorf("order changes the limit: %+v vs %+v", la, lp)
			}
			// Sums in another order: rounding only.
			approx.Check(t, "E[W] for the permuted α", lp.MeanWait, la.MeanWait, 1e-15, 0)
			for i := range p {
				approx.Check(t, fmt.Sprintf("tokens %d for the permuted α", i), lp.Tokens[i], la.Tokens[perm[i]], 1e-15, 0)
			}
		})
	}
}

func TestStability(t *testing.T) {
	// Blocking, unique non-empty pool r: the smooth regime is
	// x_r' = β_r(1 − x_r) + ν·x_r/R − α_r·λ − ν·x_r, eigenvalue
	// −(β_r + ν(1 − 1/R)).
	for _, nu := range []float64{0, 0.5, 3} {
		t.Run(fmt.Sprintf("blocking ν=%v", nu), func(t *testing.T) {
			m := &Model{Scenario: Blocking, Load: 0.6, Alpha: []float64{0.6, 0.3, 0.1}, Exchange: nu}
			lim, err := Limit(m)
			if err != nil {
				t.Fatal(err)
			}
			st := lim.Stability
			if st.Class != Stable {
				t.Errorf("%v (%s)", st.Class, st.Note)
			}
			if nu == 0 {
				if len(st.Eigenvalues) != 1 {
					t.Fatalf("eigenvalues %v, want one", st.Eigenvalues)
				}
				// A 1×1 Jacobian from differences: rounding only.
				approx.Check(t, "eigenvalue", real(st.Eigenvalues[0]), -1.0/3, 1e-9, 0)
			}
		})
	}
	// Tied ratios: a continuum of fixed points, so a zero eigenvalue.
	lim, _ := Limit(&Model{Scenario: Blocking, Load: 0.5, Alpha: []float64{0.5, 0.25, 0.25}})
	if lim.Stability.Class != Neutral || lim.TokensDetermined {
		t.Errorf("tied ratios: %v, determined %v", lim.Stability.Class, lim.TokensDetermined)
	}
}

func TestStabilityQueueing(t *testing.T) {
	// Queueing: an independent check of the Jacobian. Perturb the fixed
	// point along the eigenvector of the slowest eigenvalue μ and integrate
	// the full nonlinear ODE: the perturbation must shrink like e^{μt}
	// (to 1%: the perturbation is 1e-6, so nonlinear effects are ~1e-6
	// relative, and the integration runs at rtol 1e-12).
	m := &Model{Scenario: Queueing, Load: 0.7, Alpha: []float64{0.6, 0.25, 0.15}, Exchange: 0.2}
	lim, err := Limit(m)
	if err != nil {
		t.Fatal(err)
	}
	if lim.Stability.Class != Stable {
		t.Fatalf("queueing fixed point %v", lim.Stability.Class)
	}
	sr := m.smoothRegime(lim)
	var eig mat.Eigen
	if !eig.Factorize(sr.jacobian(), mat.EigenRight) {
		t.Fatal("eigen failed")
	}
	vals := eig.Values(nil)
	var vecs mat.CDense
	eig.VectorsTo(&vecs)
	lead := 0
	for i, v := range vals {
		if real(v) > real(vals[lead]) {
			lead = i
		}
	}
	if imag(vals[lead]) != 0 || real(vals[lead]) != lim.Stability.Abscissa {
		t.Fatalf("leading eigenvalue %v, abscissa %v", vals[lead], lim.Stability.Abscissa)
	}
	delta := make([]float64, sr.sys.dim)
	for j, d := range sr.dirs {
		for k := range delta {
			delta[k] += 1e-6 * real(vecs.At(j, lead)) * d[k]
		}
	}
	init := State{Occupancy: slices.Clone(sr.st[:sr.sys.xoff]), Tokens: slices.Clone(sr.st[sr.sys.xoff:])}
	for i := range init.Occupancy {
		init.Occupancy[i] += delta[i]
	}
	for r := range init.Tokens {
		init.Tokens[r] += delta[sr.sys.xoff+r]
	}
	mm := *m
	mm.IMax = lim.IMax // the same truncation as the analysis
	dist := make(map[float64]float64)
	// The fixed point of the truncated ODE differs from the untruncated
	// closed form by about the truncated mass (1e-12), well below the
	// perturbation at the times used.
	_, err = Trajectory(&mm, &TrajectorySettings{Start: &init, Until: 20, RTol: 1e-12, ATol: 1e-16, Times: []float64{0, 10, 20}, Output: func(p *Point) error {
		var d float64
		for i, y := range p.Occupancy {
			d += math.Abs(y - sr.st[i])
		}
		dist[p.T] = d
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []float64{10, 20} {
		rate := math.Log(dist[tt]/dist[0]) / tt
		approx.Check(t, fmt.Sprintf("decay rate of the eigen-perturbation over [0, %v]", tt), rate, lim.Stability.Abscissa, 0, 0.01)
	}
}

func TestTruncation(t *testing.T) {
	m := &Model{Scenario: Queueing, Load: 0.95, Alpha: []float64{0.9, 0.1}}
	lim, err := Limit(m)
	if err != nil {
		t.Fatal(err)
	}
	if lim.IMax < 10 {
		t.Errorf("automatic imax %d", lim.IMax)
	}
	approx.Within(t, "truncated mass", lim.TruncatedMass, 0, defaultTailTol)
	// One level lower would exceed the tolerance: the choice is minimal.
	if lower := m.Load * math.Pow(lim.RandomRate, float64(lim.IMax-1)); !(lower > defaultTailTol) {
		t.Errorf("imax %d is not minimal (mass above imax−1 is %g)", lim.IMax, lower)
	}
	m.IMax = 20
	_, err = Limit(m)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "IMax" {
		t.Errorf("imax too small: %v", err)
	}
	// A trajectory pressed against the truncation reports it.
	m = &Model{Scenario: Queueing, Load: 0.5, Alpha: []float64{0.5, 0.5}, IMax: 12}
	occ := make([]float64, 13)
	occ[12] = 1
	res, err := Trajectory(m, &TrajectorySettings{Start: &State{Occupancy: occ, Tokens: []float64{0, 0}}, Until: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.BoundaryMass >= 0.9) {
		t.Errorf("boundary mass %v, want ≈ 1", res.BoundaryMass)
	}
}

func TestSingleDispatcher(t *testing.T) {
	for _, lam := range []float64{0.5, 1, 2} {
		t.Run(fmt.Sprintf("λ=%v", lam), func(t *testing.T) {
			lim, err := Limit(&Model{Scenario: Blocking, Load: lam, Alpha: []float64{1}})
			if err != nil {
				t.Fatal(err)
			}
			// max{0, 1 − 1/λ}: one operation, rounding only.
			approx.Check(t, "B", lim.Blocking, math.Max(0, 1-1/lam), 1e-15, 0)
		})
	}
	lim, err := Limit(&Model{Scenario: Queueing, Load: 0.9, Alpha: []float64{1}})
	if err != nil || lim.MeanWait != 0 {
		t.Errorf("R=1 queueing: E[W] = %v (%v)", lim.MeanWait, err)
	}
}

func TestValidation(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		m     Model
		param string
	}{
		{Model{Load: 0, Alpha: []float64{1}}, "Load"},
		{Model{Load: -1, Alpha: []float64{1}}, "Load"},
		{Model{Load: nan, Alpha: []float64{1}}, "Load"},
		{Model{Load: math.Inf(1), Alpha: []float64{1}}, "Load"},
		{Model{Scenario: Queueing, Load: 1, Alpha: []float64{1}}, "Load"},
		{Model{Load: 0.5}, "Alpha"},
		{Model{Load: 0.5, Alpha: []float64{0.5, 0.6}}, "Alpha"},
		{Model{Load: 0.5, Alpha: []float64{1.2, -0.2}}, "Alpha"},
		{Model{Load: 0.5, Alpha: []float64{1, 0}}, "Alpha"},
		{Model{Load: 0.5, Alpha: []float64{nan, 1}}, "Alpha"},
		{Model{Load: 0.5, Alpha: []float64{0.5, 0.5}, Beta: []float64{1}}, "Beta"},
		{Model{Load: 0.5, Alpha: []float64{0.5, 0.5}, Beta: []float64{0.7, 0.7}}, "Beta"},
		{Model{Load: 0.5, Alpha: []float64{0.5, 0.5}, Beta: []float64{1.5, -0.5}}, "Beta"},
		{Model{Load: 0.5, Alpha: []float64{1}, Exchange: -1}, "Exchange"},
		{Model{Load: 0.5, Alpha: []float64{1}, Exchange: nan}, "Exchange"},
		{Model{Load: 0.5, Alpha: []float64{1}, IMax: -3}, "IMax"},
		{Model{Load: 0.5, Alpha: []float64{1}, TailTol: 2}, "TailTol"},
		{Model{Scenario: 7, Load: 0.5, Alpha: []float64{1}}, "Scenario"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%+v", c.m), func(t *testing.T) {
			_, err := Limit(&c.m)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Errorf("error %v, want one naming %q", err, c.param)
			}
		})
	}
	// A sum off by less than 1e-9 is accepted (normalized inputs).
	if _, err := Limit(&Model{Load: 0.5, Alpha: []float64{0.5, 0.5 + 5e-10}}); err != nil {
		t.Errorf("sum within 1e-9 rejected: %v", err)
	}
	m := &Model{Load: 0.5, Alpha: []float64{0.5, 0.5}}
	for _, c := range []struct {
		init  State
		until float64
		param string
	}{
		{State{Busy: 0.5, Tokens: []float64{0.5}}, 1, "Start"},
		{State{Busy: 0.5, Tokens: []float64{0.5, 0.5}}, 1, "Start"},
		{State{Busy: -0.5, Tokens: []float64{1, 0.5}}, 1, "Start"},
		{State{Busy: 0, Tokens: []float64{0.5, 0.5}}, -1, "Until"},
		{State{Busy: 0, Tokens: []float64{0.5, 0.5}}, nan, "Until"},
	} {
		t.Run(fmt.Sprintf("init %+v until %v", c.init, c.until), func(t *testing.T) {
			_, err := Trajectory(m, &TrajectorySettings{Start: &c.init, Until: c.until})
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Errorf("%v, want an error naming %q", err, c.param)
			}
		})
	}
	q := &Model{Scenario: Queueing, Load: 0.5, Alpha: []float64{0.5, 0.5}}
	if _, err := Trajectory(q, &TrajectorySettings{Start: &State{Occupancy: []float64{0.5, 0.5}, Tokens: []float64{0.3, 0.3}}, Until: 1}); err == nil {
		t.Error("tokens not matching y₀ accepted")
	}
}

// TestSmallExchange: the blocking limit is continuous at ν = 0 (it moves
// by O(ν): dB/dν is of order 1 at these α, β, λ), also for ν far below
// the rounding of the busy fraction, where a root equation that cancels x
// against Σ_r β_r·x returned blocking 1 (ν = 1e-300) or 0.99986 (ν = 1e-20)
// beside the ν = 0 value 0.4.
func TestSmallExchange(t *testing.T) {
	base, err := Limit(&Model{Scenario: Blocking, Load: 0.9, Alpha: []float64{0.7, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, nu := range []float64{1e-300, 1e-20, 1e-16, 1e-14, 1e-12} {
		t.Run(fmt.Sprint(nu), func(t *testing.T) {
			lim, err := Limit(&Model{Scenario: Blocking, Load: 0.9, Alpha: []float64{0.7, 0.3}, Exchange: nu})
			if err != nil {
				t.Fatal(err)
			}
			// |B(ν) − B(0)| ≤ ν·|dB/dν| + rounding; dB/dν ≈ −0.5 here
			// (0.4 − 0.3999999948888888 at ν = 1e-8), so 1e-12 absolute.
			approx.Check(t, "blocking", lim.Blocking, base.Blocking, 1e-12, 0)
			approx.Check(t, "busy + Σ tokens", lim.Busy+lim.Tokens[0]+lim.Tokens[1], 1, 1e-12, 0)
		})
	}
}
