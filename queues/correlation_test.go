package queues

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// The M/M/1 count's autocorrelation integrates to the asymptotic
// variance of its time average, 2ρ(1 + ρ)/(1 − ρ)⁴ (Whitt, "Planning
// queueing simulations", Management Science 35(11), 1989), over twice its
// variance ρ/(1 − ρ)²: ∫₀^∞ ρ(t) dt = (1 + ρ)/(1 − ρ)², which the
// birth–death identity ∫ Cov = Σ_n F_n²/(π_n·λ), F_n = Σ_{k≤n} π_k(k − m),
// reproduces. The PS server with exponential sizes is the same chain. The integral is the trapezoid rule on a grid of 0.05 up to
// t = 400 (ρ(400) < 10⁻¹⁴ at λ = 0.5, whose relaxation time is
// 1/(1 − √λ)² ≈ 11.7): its error is about h²/12·|ρ'(0)| = 5·10⁻⁵, 6·10⁻⁶
// of the integral, hence 1e-4 relative.
func TestCorrelationIntegral(t *testing.T) {
	const load, h, top = 0.5, 0.05, 400
	var lags []float64
	for x := 0.0; x <= top+1e-9; x += h {
		lags = append(lags, x)
	}
	for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
		r, err := SolveCorrelation(&Correlation{Load: load, Discipline: d, Lags: lags}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var integral float64
		for i := 1; i < len(lags); i++ {
			integral += h * (r.Correlations[i] + r.Correlations[i-1]) / 2
		}
		want := (1 + load) / ((1 - load) * (1 - load))
		near(t, "∫ρ", integral, want, 0, 1e-4)
		near(t, "ρ(0)", r.Correlations[0], 1, 1e-13, 0)
	}
}

// Known moments and the giants' share (closed forms; the truncation
// loses 1e-10 of the mass, so 1e-8 relative).
func TestCorrelationMoments(t *testing.T) {
	for _, c2 := range []float64{4, 30} {
		lw, _ := lawOf(h2(c2))
		t.Run("PS", func(t *testing.T) {
			// M/G/1-PS: the count is geometric, E = λ/(1 − λ),
			// Var = λ/(1 − λ)²; E[T | S = x] = x/(1 − λ), so a giant stays
			// E[S_g]/(1 − λ) and, the classes carrying half the work each,
			// half the jobs present are giants.
			r, err := SolveCorrelation(&Correlation{Load: 0.9, Discipline: farm.PS, Sizes: h2(c2), Lags: []float64{10}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "mean", r.Mean, 9, 0, 1e-8)
			near(t, "variance", r.Variance, 90, 0, 1e-7)
			near(t, "giant share", r.GiantShare, 0.5, 0, 1e-8)
			near(t, "giant stay", r.GiantStay, 1/lw.mu[1]/0.1, 0, 1e-8)
			near(t, "small stay", r.SmallStay, 1/lw.mu[0]/0.1, 0, 1e-8)
		})
		t.Run("FCFS", func(t *testing.T) {
			// Pollaczek–Khinchine: E[T] = 1 + λ(1 + c²)/(2(1 − λ)), and
			// every job waits the same W whatever its class.
			r, err := SolveCorrelation(&Correlation{Load: 0.8, Sizes: h2(c2), Lags: []float64{10}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ew := 0.8 * (1 + c2) / (2 * 0.2)
			near(t, "mean", r.Mean, 0.8*(1+ew), 0, 1e-8)
			near(t, "giant stay", r.GiantStay, ew+1/lw.mu[1], 0, 1e-8)
		})
	}
}

// At short lags the correlation falls like 1 − t·(1 − λ)² for M/M/1 and
// for M/H2/1-PS alike: d/dt Cov = E[(Q − EQ)·(λ − rate of completions)],
// and a PS server holding n ≥ 1 jobs, half giants on average given n,
// completes at rate 1 on average (Var = λ/(1 − λ)² for both). At t = 10⁻³
// the second-order term is below 10⁻⁶.
func TestCorrelationSlope(t *testing.T) {
	const load, dt = 0.9, 1e-3
	for _, z := range []farm.Sizes{{}, h2(30)} {
		r, err := SolveCorrelation(&Correlation{Load: load, Discipline: farm.PS, Sizes: z, Lags: []float64{dt}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "slope", (1-r.Correlations[0])/dt, (1-load)*(1-load), 1e-6, 0.01)
	}
}

func TestCorrelationInvalid(t *testing.T) {
	for _, c := range []struct {
		m     Correlation
		param string
	}{
		{Correlation{Load: 0.5}, "Lags"},
		{Correlation{Load: 0.5, Lags: []float64{-1}}, "Lags"},
		{Correlation{Load: 0.5, Lags: []float64{math.Inf(1)}}, "Lags"},
		{Correlation{Load: 0.9, Sizes: h2(30), Lags: []float64{1e9}}, "Lags"},
		{Correlation{Load: 0, Lags: []float64{1}}, "Load"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := SolveCorrelation(&c.m, nil)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want a *param.Error for %s", err, c.param)
			}
		})
	}
}
