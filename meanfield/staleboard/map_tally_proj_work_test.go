package staleboard

import (
	"errors"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// TestTallyProjWorkBound holds best of two with a tally, whose cost no
// estimate from the board bounds (its joint laws' cells follow the
// board's and the herd's spread: 0.2–24 times a cells-from-the-board
// formula, measured), to the work bound by the work it counts as it goes:
// a budget of three periods' counted work stops the attractor search after
// two or three whole periods (the warm-up's budget check comes after each
// period's own count, so the third may be cut short), reported as the
// iteration limit with the periods done; a budget below one period makes
// one evaluation refuse; and the count is the same on a second run
// (deterministic: cells, not time).
func TestTallyProjWorkBound(t *testing.T) {
	defer func(b float64) { workBudget = b }(workBudget)
	m := &Model{System: System{K: 5, Load: 0.9, Tally: Own, Choices: 2}, Period: 60}
	mp, err := NewMap(m)
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{1}
	var per []float64
	for range 3 {
		r, err := mp.Apply(p)
		if err != nil {
			t.Fatal(err)
		}
		per = append(per, mp.countedWork())
		p = r.Next
	}
	if _, err := mp.Apply([]float64{1}); err != nil || mp.countedWork() != per[0] {
		t.Fatalf("counted work %v on a second run, want %v (err %v)", mp.countedWork(), per[0], err)
	}
	if per[1] <= 0 {
		t.Fatalf("counted work %v", per)
	}
	workBudget = per[0] + per[1] + per[2]
	att, err := Attractor(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if att.Status != outcome.IterationLimit || att.Iterations < 2 || att.Iterations > 3 || len(att.Series) != att.Iterations {
		t.Fatalf("status %v after %d periods (series %d), want the iteration limit after 2–3", att.Status, att.Iterations, len(att.Series))
	}
	fp, err := FixedPoint(m, nil)
	if err == nil && fp.Status == outcome.Converged {
		t.Errorf("FixedPoint converged within %g units of work", workBudget)
	}
	workBudget = per[1] / 2
	if _, err := mp.Apply(p); !errors.Is(err, errWorkBudget) {
		t.Errorf("one period of %g units under a bound of %g: err %v, want the work bound", per[1], workBudget, err)
	}
}
