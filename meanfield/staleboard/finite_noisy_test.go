package staleboard

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// The isotonic fit against hand-computed pools: adjacent violators are
// averaged, the rest kept.
func TestAntitonic(t *testing.T) {
	for _, c := range []struct {
		name    string
		in, out []float64
	}{
		{"monotone kept", []float64{1, 0.8, 0.3, 0}, []float64{1, 0.8, 0.3, 0}},
		{"one violator", []float64{1, 0.5, 0.7, 0.2}, []float64{1, 0.6, 0.6, 0.2}},
		{"pools cascade", []float64{0.2, 0.4, 0.9}, []float64{0.5, 0.5, 0.5}},
		{"empty", nil, []float64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := antitonic(c.in)
			if len(got) != len(c.out) {
				t.Fatalf("%v, want %v", got, c.out)
			}
			for i := range got {
				if d := got[i] - c.out[i]; d > 1e-12 || d < -1e-12 {
					t.Fatalf("%v, want %v", got, c.out)
				}
			}
		})
	}
	// Random inputs: the fit never rises and keeps the sum (the pools'
	// means are least-squares averages).
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		y := make([]float64, 1+rng.IntN(12))
		var sum float64
		for i := range y {
			y[i] = rng.Float64()
			sum += y[i]
		}
		f := antitonic(y)
		var fs float64
		for i := range f {
			fs += f[i]
			if i > 0 && f[i] > f[i-1]+1e-12 {
				t.Fatalf("antitonic(%v) = %v rises", y, f)
			}
		}
		if d := fs - sum; d > 1e-9 || d < -1e-9 {
			t.Fatalf("antitonic(%v) sums to %v, want %v", y, fs, sum)
		}
	}
}

// The noisy map's tipping curve is monotone in T (by construction: the
// isotonic fit of the tipped fractions), its edge lies in its bracket
// where the curve crosses ½, and the search does not depend on the
// number of workers. A short horizon and few runs keep it cheap (about
// 2,000 map evaluations); the value of the edge is validated against
// simulation by fluid validate (case finite-n-shift).
func TestNoisyCurveMonotone(t *testing.T) {
	m := &FiniteModel{System: System{K: 5, Load: 0.9}, Servers: 100, Horizon: 20}
	var first *FiniteEdgeResult
	workerCounts := []int{1, 2}
	if testing.Short() {
		workerCounts = workerCounts[:1]
	}
	for _, workers := range workerCounts {
		s := &FiniteSettings{Method: NoisyMap, Reps: 12, Seed: 3}
		s.Workers = workers
		r, err := FiniteEdge(m, s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != outcome.EdgeFound || r.Method != NoisyMap {
			t.Fatalf("status %v, method %v", r.Status, r.Method)
		}
		if len(r.Curve) < 3 {
			t.Fatalf("curve of %d points", len(r.Curve))
		}
		var raw, fit float64
		for i, c := range r.Curve {
			raw += c.Raw
			fit += c.Probability
			if c.Probability < 0 || c.Probability > 1 || c.Runs < 1 || c.Runs > 12 {
				t.Errorf("point %d: %+v", i, c)
			}
			if i > 0 && (c.Probability > r.Curve[i-1].Probability || c.Period <= r.Curve[i-1].Period) {
				t.Errorf("curve rises or repeats a period at point %d: %+v after %+v", i, c, r.Curve[i-1])
			}
		}
		if d := raw - fit; d > 1e-9 || d < -1e-9 {
			t.Errorf("the fit sums to %v, the tipped fractions to %v", fit, raw)
		}
		if !(r.Lo <= r.Period && r.Period <= r.Hi) || r.Period <= r.Infinite.Period {
			t.Errorf("edge %v outside [%v, %v] or not above T* = %v", r.Period, r.Lo, r.Hi, r.Infinite.Period)
		}
		if !(r.MeanTime > 0) {
			t.Errorf("mean time to tip %v", r.MeanTime)
		}
		if runs := curveRuns(r.Curve); runs > noisyBudget*12 {
			t.Errorf("%d runs, more than the budget %d", runs, noisyBudget*12)
		}
		if first == nil {
			first = r
			continue
		}
		if r.Period != first.Period || len(r.Curve) != len(first.Curve) {
			t.Errorf("workers %d: edge %v, %d points; workers 1: %v, %d", workers, r.Period, len(r.Curve), first.Period, len(first.Curve))
		}
	}
}

// curveRuns is the number of runs behind a curve.
func curveRuns(cv []CurvePoint) int {
	n := 0
	for _, c := range cv {
		n += c.Runs
	}
	return n
}

// Bad finite settings are refused before any work, naming the field.
func TestFiniteSettingsValidate(t *testing.T) {
	m := &FiniteModel{System: System{K: 5, Load: 0.9}, Servers: 100}
	for _, c := range []struct {
		field string
		s     FiniteSettings
	}{
		{"Method", FiniteSettings{Method: 7}},
		{"Reps", FiniteSettings{Method: NoisyMap, Reps: -1}},
		{"Reps", FiniteSettings{Method: NoisyMap, Reps: MaxNoisyReps + 1}},
		{"RareServers", FiniteSettings{Method: NoisyMap, RareServers: -2}},
	} {
		t.Run(c.field, func(t *testing.T) {
			_, err := FiniteEdge(m, &c.s)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.field {
				t.Fatalf("error %v, want one naming %s", err, c.field)
			}
		})
	}
}
