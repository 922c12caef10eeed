package outcome_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// Every declared status has a distinct name and words, round-trips through
// JSON, and belongs to exactly one group.
func TestStatusVocabulary(t *testing.T) {
	seen := map[string]outcome.Status{}
	for s := outcome.NotTerminated; s.Valid(); s++ {
		t.Run(s.Name(), func(t *testing.T) {
			if prev, ok := seen[s.Name()]; ok {
				t.Fatalf("%d and %d share the name %q", prev, s, s.Name())
			}
			seen[s.Name()] = s
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back outcome.Status
			if err := json.Unmarshal(b, &back); err != nil || back != s {
				t.Fatalf("round trip of %s: %v, %v", b, back, err)
			}
			groups := 0
			for _, in := range []bool{s.OK(), s.Limit(), !s.OK() && !s.Limit()} {
				if in {
					groups++
				}
			}
			if groups != 1 {
				t.Fatalf("%v is in %d groups", s, groups)
			}
			if (s.Err() == nil) != s.OK() {
				t.Fatalf("%v: Err %v but OK %v", s, s.Err(), s.OK())
			}
			if err := s.Err(); err != nil && !errors.Is(err, outcome.ErrNotOK) {
				t.Fatalf("%v: %v is not ErrNotOK", s, err)
			}
		})
	}
	if _, err := outcome.Status(-1).MarshalText(); err == nil {
		t.Error("an undeclared status marshals")
	}
	var s outcome.Status
	if err := s.UnmarshalText([]byte("nonesuch")); err == nil {
		t.Error("an unknown name unmarshals")
	}
}

// The JSON names other programs read do not change.
func TestStableNames(t *testing.T) {
	for s, want := range map[outcome.Status]string{
		outcome.Converged: "converged", outcome.Exact: "exact", outcome.Completed: "completed",
		outcome.FixedPoint: "fixed_point", outcome.Cycle: "cycle", outcome.NotSettled: "not_settled",
		outcome.EdgeFound: "edge", outcome.NoEdge: "no_edge", outcome.AboveRange: "above_range",
		outcome.NotConverged: "not_converged", outcome.Interrupted: "interrupted",
		outcome.InvalidResult: "invalid_result", outcome.PrecisionReached: "precision_reached",
		outcome.BudgetReached: "budget_reached", outcome.NotSteady: "not_steady",
	} {
		t.Run(s.Name(), func(t *testing.T) {
			if s.Name() != want {
				t.Errorf("%d is %q, want %q", s, s.Name(), want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	var r outcome.Run
	if r.Stopped() || r.Ctx() == nil {
		t.Fatal("the zero Run is stopped or has no context")
	}
	r.Report(1, 2, "") // no Progress: nothing happens
	ctx, cancel := context.WithCancel(context.Background())
	var got []int64
	r = outcome.Run{Context: ctx, Progress: func(done, total int64, _ string) { got = append(got, done, total) }}
	r.Report(3, 4, "x")
	if r.Stopped() {
		t.Fatal("stopped before cancel")
	}
	cancel()
	if !r.Stopped() {
		t.Fatal("not stopped after cancel")
	}
	if len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Fatalf("progress got %v", got)
	}
}
