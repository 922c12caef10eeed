package staleboard

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// Best of two on the board alone near λ = 1: the balanced board drifts up
// for about 1/(1 − λ)² periods, and each period costs more than the last
// (its levels grow), so the admission, which prices the start's board,
// cannot bound the search; the work bound stops it. With the bound lowered
// to what about 40 periods of T = 500 cost here, the search must stop
// with IterationLimit well before its 3,000 periods, its work within the
// bound, and report finite averages over the periods it iterated.
func TestAttractorWorkBound(t *testing.T) {
	defer func(b float64) { workBudget = b }(workBudget)
	m := &Model{System: System{K: 5, Load: 0.999999, Tally: None, Choices: 2}, Period: 500}
	// Price the first 40 periods of the unbounded iteration as the
	// search does (supportCost of each period's board).
	mp, err := NewMap(m)
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{1}
	var work float64
	for range 40 {
		work += (&supportFunc{m: mp}).supportCost(p)
		r, err := mp.Apply(p)
		if err != nil {
			t.Fatal(err)
		}
		p = r.Next
	}
	workBudget = work
	att, err := Attractor(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if att.Status != outcome.IterationLimit {
		t.Fatalf("status %v after %d periods, want the work bound's iteration limit", att.Status, att.Iterations)
	}
	// Within one period of the 40 priced (the support the search pads to
	// differs from the free one only in trailing zeros, which supportCost
	// does not count).
	if att.Iterations < 39 || att.Iterations > 41 || len(att.Series) != att.Iterations {
		t.Errorf("%d periods iterated (series %d), want 40", att.Iterations, len(att.Series))
	}
	if !(att.Sojourn > 0) || math.IsInf(att.Sojourn, 0) || att.Averaged == 0 || !(att.BoardMean > 0) {
		t.Errorf("averages: sojourn %v over %d periods, board mean %v", att.Sojourn, att.Averaged, att.BoardMean)
	}
	if att.Status.Err() == nil {
		t.Error("the iteration limit has no error")
	}
	// FixedPoint under the same bound: not converged, by the iteration
	// limit, with the last iterate's finite mean time in system.
	fp, err := FixedPoint(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fp.Status != outcome.IterationLimit || !(fp.Map.Sojourn > 0) || math.IsInf(fp.Map.Sojourn, 0) {
		t.Errorf("FixedPoint under the bound: %v, mean time in system %v", fp.Status, fp.Map.Sojourn)
	}
	// A bound below one period's cost is a refusal, not an empty result.
	workBudget = 1
	if _, err := Attractor(m, &AttractorSettings{MaxIter: 1}); err == nil {
		t.Error("a bound below one period: no error")
	}
}
