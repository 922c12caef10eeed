package bestofd

import (
	"fmt"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// h2 is the balanced-means H2 law of squared coefficient of variation c2.
func h2(c2 float64) farm.Sizes { return farm.Sizes{Kind: farm.H2, SCV: c2} }

// jsq2Exp is the mean time in system of the JSQ(2) mean field at λ = 0.9
// with exponential sizes: Σ_i 0.9^(2^i − 1)/0.9, the closed form's sum.
var jsq2Exp = func() float64 {
	var s float64
	for i := 1; i < 60; i++ {
		s += math.Pow(0.9, math.Pow(2, float64(i))-1)
	}
	return s / 0.9
}()

// Exponential sizes: the fixed point is P(Q ≥ i) = λ^{(d^i − 1)/(d − 1)}
// (Mitzenmacher; Vvedenskaya et al.). Tolerance 1e-9 absolute: Anderson
// stops at a residual of 1e-13 in ‖·‖₁ and the truncation leaves less
// than 1e-13, so each tail is far inside it; a wrong rate a(n) moves the
// tails by orders more.
func TestClosedForm(t *testing.T) {
	for _, d := range []int{2, 3, 5} {
		for _, load := range []float64{0.5, 0.9, 0.99} {
			t.Run(fmt.Sprintf("d=%d λ=%v", d, load), func(t *testing.T) {
				res, err := FixedPoint(&Model{D: d, Load: load}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := 1; i < len(res.Tail); i++ {
					want := math.Pow(load, (math.Pow(float64(d), float64(i))-1)/float64(d-1))
					if !approx.Check(t, fmt.Sprintf("P(Q ≥ %d)", i), res.Tail[i], want, 1e-9, 0) {
						break
					}
				}
				approx.Within(t, "abscissa", res.Abscissa, math.Inf(-1), -1e-12)
				approx.Within(t, "truncated mass", res.Lost, 0, 1e-13)
			})
		}
	}
}

// PS with H2 sizes, solved on the 2-D (small, giant) state: a server sees
// Poisson arrivals at a rate depending only on its count, so it is a
// symmetric queue and insensitive; the mean time must equal the
// exponential closed form for every SCV. Tolerance 1e-9 relative (the
// count law to 1e-10 absolute): the solver's tolerances (1e-13) leave
// orders of margin, and a chain that is not insensitive (FCFS) differs in
// the first digit.
func TestPSInsensitive(t *testing.T) {
	exp, err := FixedPoint(&Model{D: 2, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	approx.Check(t, "exponential sojourn", exp.Sojourn, jsq2Exp, 0, 1e-9)
	for _, scv := range []float64{4, 10, 30} {
		t.Run(fmt.Sprintf("SCV %v", scv), func(t *testing.T) {
			res, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2(scv)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.States <= res.MaxQueue+1 {
				t.Errorf("%d states for %d levels: the (small, giant) chain was not built", res.States, res.MaxQueue+1)
			}
			approx.Check(t, "sojourn", res.Sojourn, exp.Sojourn, 0, 1e-9)
			n := min(len(res.Dist), len(exp.Dist))
			approx.Slices(t, "P(Q = n)", res.Dist[:n], exp.Dist[:n], 1e-10, 0)
			approx.Within(t, "abscissa", res.Abscissa, math.Inf(-1), -1e-12)
		})
	}
}

// FCFS with H2 sizes: the mean field lies below the N = 100 simulations of
// the study "Sharing Servers Don't Mind the Giant" (4.2, 6.8, 15.2 at SCV
// 4, 10, 30: finite systems queue more) and above the previous SCV's
// value (a giant blocks the jobs behind it). The values themselves are
// checked against simulation at N = 100…1,600 in package validate
// (meanfield-h2).
func TestFCFSH2(t *testing.T) {
	prev := jsq2Exp
	for _, c := range []struct{ scv, sim float64 }{{4, 4.2}, {10, 6.8}, {30, 15.2}} {
		t.Run(fmt.Sprintf("SCV %v", c.scv), func(t *testing.T) {
			res, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.FCFS, Sizes: h2(c.scv)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("mean field %.4f (N = 100: %v), M = %d, lost %.2g", res.Sojourn, c.sim, res.MaxQueue, res.Lost)
			approx.Within(t, "sojourn", res.Sojourn, prev, c.sim)
			approx.Within(t, "abscissa", res.Abscissa, math.Inf(-1), -1e-12)
			approx.Within(t, "truncated mass", res.Lost, 0, 1e-13)
			prev = res.Sojourn
		})
	}
}

// The ODE's long-time limit from the empty system agrees with FixedPoint
// (an independent route to the same point). Tolerance 1e-7 per entry: the
// ODE stops once its drift is below 1e-10 in ‖·‖₁ and the slowest mode
// relaxes at rate about 1 − λ, leaving about 1e-9; the integrator's
// tolerances (rtol 1e-9) add as much.
func TestSettle(t *testing.T) {
	for _, m := range []*Model{{D: 2, Load: 0.9}, {D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2(10)}, {D: 3, Load: 0.8, Discipline: farm.FCFS, Sizes: h2(4)}} {
		t.Run(fmt.Sprintf("d=%d %v %v", m.D, m.Discipline, m.Sizes), func(t *testing.T) {
			fp, err := FixedPoint(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := Settle(m, &SettleSettings{MaxQueue: fp.MaxQueue})
			if err != nil || st.Status != outcome.Converged {
				t.Fatal(st, err)
			}
			approx.Slices(t, "P(Q = n)", st.Dist, fp.Dist, 1e-7, 0)
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *Model
	}{
		{"d = 0", &Model{D: 0, Load: 0.5}},
		{"λ = 1", &Model{D: 2, Load: 1}},
		{"λ NaN", &Model{D: 2, Load: math.NaN()}},
		{"SCV below 1", &Model{D: 2, Load: 0.5, Sizes: farm.Sizes{Kind: farm.H2, SCV: 0.5}}},
		{"truncation 1", &Model{D: 2, Load: 0.5, MaxQueue: 1}},
		{"unknown discipline", &Model{D: 2, Load: 0.5, Discipline: 7}},
		{"Pareto sizes", &Model{D: 2, Load: 0.5, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 2.5}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := FixedPoint(c.m, nil); err == nil {
				t.Errorf("%+v accepted", *c.m)
			}
		})
	}
	// A truncation too small for the tolerance is a failed status, not a
	// number.
	t.Run("truncation too small", func(t *testing.T) {
		if res, err := FixedPoint(&Model{D: 2, Load: 0.99, MaxQueue: 4}, nil); err != nil || res.Status != outcome.TruncationLimit {
			t.Errorf("truncation at 4 at λ = 0.99: %v, %v", res.Status, err)
		}
	})
}

// The refined mean field of JSQ(2) at λ = 0.9: it reduces to the mean
// field at N = ∞, its correction is positive (finite systems queue more),
// and for d = 1 (random dispatch, M/M/1 at every N: E[T] = 1/(1 − λ)) it
// vanishes, to the truncation of π at 1e-16 (tolerance 1e-9). Its
// agreement with simulation at N = 10…100 is checked in package validate
// (case jsq2-refined).
func TestRefined(t *testing.T) {
	t.Run("d=2", func(t *testing.T) {
		r, err := Refined(&Model{D: 2, Load: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		approx.Check(t, "mean field", r.Sojourn(0), jsq2Exp, 0, 1e-9)
		approx.Within(t, "correction", r.Correction, 1e-12, math.Inf(1))
		t.Logf("π %.4f, V %.4f; N=10: %.4f, N=100: %.4f", r.MeanQueue, r.Correction, r.Sojourn(10), r.Sojourn(100))
	})
	t.Run("d=1", func(t *testing.T) {
		r1, err := Refined(&Model{D: 1, Load: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		approx.Check(t, "correction", r1.Correction, 0, 1e-9, 0)
		approx.Check(t, "mean field", r1.Sojourn(0), 1/(1-0.2), 1e-9, 0)
	})
	t.Run("bad input", func(t *testing.T) {
		if _, err := Refined(&Model{D: 2, Load: 1}); err == nil {
			t.Error("λ = 1 accepted")
		}
		if _, err := Refined(&Model{D: 2, Load: 0.5, Sizes: h2(4)}); err == nil {
			t.Error("H2 sizes accepted")
		}
	})
}
