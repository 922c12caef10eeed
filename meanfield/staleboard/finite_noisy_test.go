package staleboard

import (
	"errors"
	"math"
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

// synthetic returns a search whose periods t0·(1 + x) hold n runs each,
// round(n·p(x)) of them tipped, p the logistic curve with ½-point x½ and
// slope −1/s.
func synthetic(t0 float64, xs []float64, n int, xHalf, s float64) *noisySearch {
	ns := &noisySearch{m: &FiniteModel{System: System{K: 5, Load: 0.9}}, reps: n}
	for _, x := range xs {
		p := 1 / (1 + math.Exp((x-xHalf)/s))
		pt := &noisyPoint{T: t0 * (1 + x), tippedAt: make([]int, n)}
		for i := range int(math.Round(p * float64(n))) {
			pt.tippedAt[i] = 1
		}
		ns.pts = append(ns.pts, pt)
	}
	return ns
}

// The logistic fit recovers the ½-point of tipped counts drawn exactly
// from a logistic curve (up to the rounding of the counts: 1/(2n) on a
// fraction, about 1e-4 of the slope's scale here), and its standard
// error is the one with the slope known, s/√(Σ n·p(1 − p)), to within
// −2% (the counts' rounding) and +20% (the slope is estimated too; at
// these five periods, symmetric about the ½-point, its error barely
// enters: 0.02% measured). Separated runs (every run below the ½-point
// tips, none above) have no maximum: the fit says so.
func TestLogisticFit(t *testing.T) {
	const t0, xHalf, s, n = 300.0, 0.05, 0.01, 4000
	xs := []float64{0.03, 0.04, 0.05, 0.06, 0.07}
	fit := synthetic(t0, xs, n, xHalf, s).fit(t0)
	if !fit.ok {
		t.Fatal("fit failed on logistic counts")
	}
	if d := math.Abs(fit.half - t0*(1+xHalf)); d > 1e-3*t0*s {
		t.Errorf("½-point %v, want %v (off by %v)", fit.half, t0*(1+xHalf), d)
	}
	var info float64
	for _, x := range xs {
		p := 1 / (1 + math.Exp((x-xHalf)/s))
		info += n * p * (1 - p)
	}
	want := t0 * s / math.Sqrt(info) // the error with the slope known
	if fit.se < 0.98*want || fit.se > 1.2*want {
		t.Errorf("standard error %v, want %v to 1.2 times it", fit.se, want)
	}
	t.Logf("½-point %v (want %v), standard error %v (slope known: %v)", fit.half, t0*(1+xHalf), fit.se, want)
	sep := synthetic(t0, xs, 16, xHalf, 1e-9).fit(t0)
	if sep.ok {
		t.Errorf("separated runs fitted: %+v", sep)
	}
}

// The weighted isotonic fit pools violators by their weights.
func TestAntitonicWeighted(t *testing.T) {
	got := antitonicWeighted([]float64{1, 0.2, 0.8, 0}, []float64{1, 3, 1, 2})
	want := []float64{1, 0.35, 0.35, 0} // (0.2·3 + 0.8·1)/4
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}
