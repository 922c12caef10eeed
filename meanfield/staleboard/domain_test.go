package staleboard

import (
	"fmt"
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// The invariants of every reported quantity over the model's valid
// domain, on a grid reaching its corners (issue 24: at λ = 1e-17 the edge
// printed a mean time in system of −0.867, at λ = 1e-20 the map 0.0025):
// wherever Model.Validate accepts k, λ and T, the balanced fixed point's
// mean time in system is finite and at least the mean job size 1 (to
// quantity.Tol, 1e-9, the tolerance of the CLI's invariant guard), its
// board mean finite and ≥ 0, and the mass lost per period below 1e-12
// (FixedPoint's support bound). Points the validator refuses are skipped:
// the bound is what this test holds to account.
func TestDomainInvariants(t *testing.T) {
	loads := []float64{MinLoad, 2e-4, 1e-3, 0.1, 0.5, 0.9, 0.99, 0.999999}
	periods := []float64{MinPeriod, 0.3, 10, 100}
	ks := []int{1, 2, 5, 20}
	if !testing.Short() {
		periods = append(periods, 1000, 5000)
		ks = append(ks, 100)
	}
	for _, k := range ks {
		for _, load := range loads {
			for _, T := range periods {
				m := &Model{System: System{K: k, Load: load}, Period: T}
				if m.Validate() != nil || PeriodCost(k, load, T)*100 > MaxWork/100 {
					continue // refused, or too slow for a test
				}
				t.Run(fmt.Sprintf("k=%d/λ=%g/T=%g", k, load, T), func(t *testing.T) {
					fp, err := FixedPoint(m, nil)
					if err != nil {
						t.Fatal(err)
					}
					r := fp.Map
					if !(r.Sojourn >= 1-1e-9) || math.IsInf(r.Sojourn, 0) {
						t.Errorf("mean time in system %v, want finite and ≥ 1 (status %v)", r.Sojourn, fp.Status)
					}
					if !(r.BoardMean >= 0) || math.IsInf(r.BoardMean, 0) {
						t.Errorf("board mean %v, want finite and ≥ 0", r.BoardMean)
					}
					if fp.Status == outcome.Converged && !(fp.Lost <= 1e-12) {
						t.Errorf("lost %v per period, want ≤ 1e-12 (board mean %v, sojourn %v)", fp.Lost, r.BoardMean, r.Sojourn)
					}
				})
			}
		}
	}
}

// The rounding of the map's time integral stays below 1e-9 in the mean
// time in system up to T/λ = 5e6 (MaxPeriodPerLoad is lower): at T = 100
// and λ = T/5e6
// (below MinLoad: the map is computed unvalidated), the waiting time per
// unit load W/λ (W = sojourn − 1) agrees with its value at λ = 1e-3
// within 1% (the true change between the two loads is 0.2%: 0.7932 at
// 1e-3, 0.7918 at 1e-5; the rounding at the bound is 3e-5 of W). A hundred times past the bound it does not (1.8% at λ = 1e-6, a
// negative W at 1e-8): the bound is needed, not just safe.
func TestLightLoadBound(t *testing.T) {
	const T = 100
	// The balanced fixed point by plain iteration of the map, unvalidated
	// (past the bound too): at these loads it contracts by 1e-12 a period.
	waiting := func(load float64) float64 {
		mp := newMap(5, load, T)
		r := &MapResult{Next: []float64{1}}
		for range 5 {
			var err error
			if r, err = mp.Apply(r.Next); err != nil {
				t.Fatal(err)
			}
		}
		return (r.Sojourn - 1) / load
	}
	ref := waiting(1e-3)
	// The rounding alone would allow T/λ = 5e6 (λ = 2e-5 here).
	approx.Check(t, "W/λ at T/λ = 5e6", waiting(T/5e6), ref, 0, 0.01)
	past := &Model{System: System{K: 5, Load: T / 5e6 / 100}, Period: T}
	if past.Validate() == nil {
		t.Fatal("a load 100 times past the bound validates")
	}
	if w := waiting(past.Load); approx.Equal(w, ref, 0, 0.01) {
		t.Errorf("W/λ = %v a hundred times past the bound agrees with %v: the bound is not needed", w, ref)
	}
}
