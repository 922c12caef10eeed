package steadystate

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// The plan's closed forms where they are exact: the M/M/1 relaxation time
// 1/(1 − √ρ)² (Abate & Whitt), and for M/G/1 the Pollaczek–Khinchine mean
// and, with Takács' second moment E[W²] = 2E[W]² + λE[S³]/(3(1 − ρ)), the
// variance of the time in system; for exponential sizes T is exponential
// with rate 1 − ρ, so Var(T) = 1/(1 − ρ)².
func TestPlanClosedForms(t *testing.T) {
	for _, c := range []struct {
		name            string
		rho, c2         float64
		relax, mean, vt float64
	}{
		{"M/M/1 0.9", 0.9, 1, 1 / math.Pow(1-math.Sqrt(0.9), 2), 10, 100},
		{"M/M/1 0.5", 0.5, 1, 1 / math.Pow(1-math.Sqrt(0.5), 2), 2, 4},
		{"M/H2(10)/1 0.9", 0.9, 10, 11 / (2 * math.Pow(1-math.Sqrt(0.9), 2)), sojournPK(0.9, 10),
			math.Pow(0.9*11/0.2, 2) + 0.9*newH2(10).moment3()/(3*0.1) + 10},
		{"M/H2(30)/1 0.9", 0.9, 30, 31 / (2 * math.Pow(1-math.Sqrt(0.9), 2)), sojournPK(0.9, 30),
			math.Pow(0.9*31/0.2, 2) + 0.9*newH2(30).moment3()/(3*0.1) + 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			m3 := 6.0
			if c.c2 != 1 {
				m3 = newH2(c.c2).moment3()
			}
			p, err := NewPlan(Model{Servers: 1, Load: c.rho, ArrivalSCV: 1, SizeSCV: c.c2, SizeMoment3: m3}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// 1e-13: the same formulas in another order.
			within(t, "relaxation time", p.RelaxationTime, c.relax, 0, 1e-13)
			within(t, "mean sojourn", p.MeanSojourn, c.mean, 0, 1e-13)
			within(t, "sojourn variance", p.SojournVariance, c.vt, 0, 1e-13)
		})
	}
}

// In heavy traffic the asymptotic variance is reflected Brownian motion's:
// with σ² = ρ(c_a² + c_s²) and drift 1 − ρ it is σ⁶/(2(1 − ρ)⁴), the
// canonical RBM's 1/2 (Abate & Whitt 1987; the heavy-traffic limit of the
// M/M/1 queue length's 2ρ(1 + ρ)/(1 − ρ)⁴) scaled by (σ²/μ)²·σ²/μ². At 1 − ρ = 10⁻⁴ the plan's (1 − √ρ) and
// third-moment terms differ from that by O(1 − ρ): within 0.1%.
func TestPlanHeavyTraffic(t *testing.T) {
	for _, v := range [][2]float64{{1, 1}, {1, 10}, {0.01, 1}, {1, 0}} {
		const rho = 1 - 1e-4
		p, err := NewPlan(Model{Servers: 1, Load: rho, ArrivalSCV: v[0], SizeSCV: v[1]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s2 := rho * (v[0] + v[1])
		within(t, "asymptotic variance", p.AsymptoticVariance, s2*s2*s2/(2*math.Pow(1-rho, 4)), 0, 1e-3)
	}
}

// Planning refuses, before any work, what no run can do: λ so close to 1
// that the minimal run is beyond reach, and invalid models.
func TestPlanRefuses(t *testing.T) {
	_, err := NewPlan(Model{Servers: 100, Load: 0.999999999999, ArrivalSCV: 1, SizeSCV: 1}, nil)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "Load" || !strings.Contains(err.Error(), "no run reaches steady state") {
		t.Fatalf("λ = 1 − 10⁻¹²: %v", err)
	}
	for _, c := range []struct {
		m     Model
		param string
	}{
		{Model{Servers: 0, Load: 0.5, ArrivalSCV: 1, SizeSCV: 1}, "Servers"},
		{Model{Servers: 1, Load: 1, ArrivalSCV: 1, SizeSCV: 1}, "Load"},
		{Model{Servers: 1, Load: math.NaN(), ArrivalSCV: 1, SizeSCV: 1}, "Load"},
		{Model{Servers: 1, Load: 0.5, ArrivalSCV: -1, SizeSCV: 1}, "ArrivalSCV"},
		{Model{Servers: 1, Load: 0.5, ArrivalSCV: 1, SizeSCV: math.Inf(1)}, "SizeSCV"},
		{Model{Servers: 1, Load: 0.5}, "SizeSCV"},
		{Model{Servers: 1, Load: 0.5, ArrivalSCV: 1, SizeSCV: 10, SizeMoment3: 100}, "SizeMoment3"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := NewPlan(c.m, nil)
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want one naming %s", err, c.param)
			}
		})
	}
	if _, err := NewPlan(Model{Servers: 1, Load: 0.5, ArrivalSCV: 1, SizeSCV: 1}, &Settings{Level: 2}); !errors.As(err, &pe) || pe.Param != "Level" {
		t.Fatalf("bad settings: %v", err)
	}
}

// The runs of issue 23, judged before any work: the simulator's defaults
// cover a fraction of one relaxation time per server and are refused, as
// is a run of 10⁴ jobs on 10⁵ servers; the plan's own recommendation is
// adequate.
func TestPlanAssessIssueRuns(t *testing.T) {
	h2 := newH2(10)
	for _, c := range []struct {
		name   string
		m      Model
		perRep int64
		reps   int
		want   Verdict
	}{
		{"h2:10 defaults", Model{Servers: 100, Load: 0.9, ArrivalSCV: 1, SizeSCV: 10, SizeMoment3: h2.moment3()}, 100_000, 8, Hopeless},
		{"h2:10 1M jobs", Model{Servers: 100, Load: 0.9, ArrivalSCV: 1, SizeSCV: 10, SizeMoment3: h2.moment3()}, 1_000_000, 8, Hopeless},
		{"10⁵ servers", Model{Servers: 100_000, Load: 0.9, ArrivalSCV: 1, SizeSCV: 1}, 10_000, 2, Hopeless},
		{"M/M/1 short", Model{Servers: 100, Load: 0.9, ArrivalSCV: 1, SizeSCV: 1}, 2_000_000, 1, Short},
		{"M/M/1 long", Model{Servers: 100, Load: 0.9, ArrivalSCV: 1, SizeSCV: 1}, 0, 1, Adequate},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPlan(c.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.perRep == 0 {
				c.perRep = p.Recommended
			}
			a := p.Assess(c.perRep, c.reps)
			if a.Verdict != c.want || (c.want != Adequate) != (a.Reason != "") {
				t.Fatalf("%+v (plan %+v)", a, p)
			}
			if b, err := json.Marshal(a.Verdict); err != nil || string(b) != `"`+c.want.String()+`"` {
				t.Fatalf("verdict JSON %s, %v", b, err)
			}
			within(t, "relaxations", a.Relaxations, float64(c.perRep)/(0.9*float64(c.m.Servers)*p.RelaxationTime), 0, 1e-12)
		})
	}
}
