package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/report"
)

// TestNoInvariantViolation runs every command on a grid of extreme but
// valid inputs, each result through the guard (emit): none may end as
// invalid_result. Each succeeds (0), or ends as a status (1: not
// settled) or a refusal of its cost or range (2) — never a number that
// fails its invariants.
func TestNoInvariantViolation(t *testing.T) {
	noArrayEnv(t)
	var cases [][]string
	for _, load := range []string{"1e-300", "1e-12", "1e-6", "0.5", "0.999999", "1", "10", "1e6"} {
		for _, nu := range []string{"0", "1e-300", "1e-16", "1e-12", "1", "1e6"} {
			cases = append(cases, []string{"jiq", "--load", load, "--exchange", nu})
		}
		cases = append(cases, []string{"jiq", "--load", load, "--alpha", "0.999999,1e-6"})
		cases = append(cases, []string{"jiq", "--load", load, "--alpha", "0.5,0.5", "--beta", "1,0"})
		cases = append(cases, []string{"jackson", "--load", load, "--servers", "1,2,10,1000"})
	}
	for _, load := range []string{"1e-300", "1e-9", "0.5", "0.999", "0.999999999"} {
		for _, nu := range []string{"0", "1e-300", "1e-12", "10"} {
			cases = append(cases, []string{"jiq", "--scenario", "queueing", "--load", load, "--exchange", nu})
		}
	}
	cases = append(cases,
		[]string{"jiq", "--trajectory", "--load", "1e-9", "--until", "5"},
		[]string{"jiq", "--trajectory", "--load", "5", "--until", "5", "--exchange", "1e-300"},
		[]string{"jiq", "--trajectory", "--scenario", "queueing", "--load", "0.999", "--until", "5"},
		[]string{"jackson", "--servers", "10000000", "--load", "0.999"},
		[]string{"jackson", "--servers", "1,100000", "--alpha", "0.999999999,1e-9"},
		[]string{"jackson", "--servers", "1,100000", "--alpha", "0.5,0.5", "--beta", "1,0"},
		[]string{"map", "-k", "1", "--period", "0.01"},
		[]string{"map", "-k", "2", "--load", "0.5", "--period", "10"},
		[]string{"map", "-k", "5", "--load", "0.99", "--period", "5000", "--iterations", "20"},
		[]string{"edge", "-k", "2,3", "--load", "0.5"},
		[]string{"meanfield", "--policy", "jsqd:1", "--load", "1e-6"},
		[]string{"meanfield", "--policy", "jsqd:2", "--load", "0.99", "--discipline", "ps", "--sizes", "h2:100"},
		[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "0.01"},
		[]string{"sim", "--servers", "1", "--jobs", "2000", "--reps", "2"},
		[]string{"sim", "--servers", "10", "--load", "1e-6", "--jobs", "2000", "--reps", "2"},
		[]string{"sim", "--policy", "jiq-blocking", "--load", "5", "--servers", "10", "--jobs", "20000", "--reps", "2"},
		[]string{"sim", "--policy", "jiq-queueing", "--load", "0.999", "--servers", "10", "--jobs", "2000", "--reps", "2"},
		[]string{"sim", "--policy", "jsqd:2", "--sizes", "pareto:2.5", "--servers", "10", "--jobs", "5000", "--reps", "2"},
		[]string{"version"},
	)
	for _, args := range cases {
		args := append(slices.Clone(args), "--json")
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runMain(args, &out, &errb)
			if code != 0 && code != 1 && code != 2 {
				t.Fatalf("exit status %d: %.300s", code, errb.String())
			}
			if strings.Contains(errb.String(), "invalid_result") {
				t.Fatalf("a result failed its invariants: %.600s", errb.String())
			}
			checkStdout(t, args, code, out.Bytes())
		})
	}
}

// TestKnownDefectsRefused are inputs whose solvers give numbers that fail
// their invariants today: the guard refuses them (exit status 1,
// invalid_result), never exit 0. A case that starts to pass belongs in
// TestNoInvariantViolation.
func TestKnownDefectsRefused(t *testing.T) {
	alpha := strings.TrimSuffix(strings.Repeat("0.002,", 500), ",")
	for _, args := range [][]string{
		// The product form with 500 equal pools: Σ tokens 0.35 beside a
		// busy fraction of 0.84 at N = 20,000.
		{"jackson", "--servers", "20000", "--alpha", alpha, "--json"},
	} {
		t.Run(strings.Join(shortArgs(args), " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := runMain(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "invalid_result") {
				t.Fatalf("exit status %d, stderr %.300q: want 1 with invalid_result (if it now passes, move it to TestNoInvariantViolation)", code, errb.String())
			}
			var ref report.Refusal
			if err := json.Unmarshal(out.Bytes(), &ref); err != nil || ref.Status != "invalid_result" || len(ref.Violations) == 0 {
				t.Errorf("stdout is not a refusal with its evidence: %v %.300q", err, out.String())
			}
		})
	}
}

// TestEmitRefusesCorruptResults: a report corrupted in one invariant at a
// time never reaches stdout as an answer: emit returns an invalidResult
// (exit status 1) naming the invariant, text and CSV write nothing, and
// JSON writes a refusal with the evidence.
func TestEmitRefusesCorruptResults(t *testing.T) {
	jiqRep := func() *report.JIQ {
		return &report.JIQ{Header: report.NewHeader("jiq"), Scenario: "blocking", Load: 0.9, Alpha: []float64{0.7, 0.3}, Beta: []float64{0.5, 0.5},
			Blocking: ptr(0.4), Busy: 0.54, Tokens: []float64{0, 0.46}, EmptyPools: []bool{true, false}, Status: "converged"}
	}
	cases := []struct {
		name      string
		rep       any
		invariant string
	}{
		{"probability above 1", func() any { r := jiqRep(); r.Blocking = ptr(1.2); return r }(), "in [0, 1]"},
		{"servers not conserved", func() any { r := jiqRep(); r.Tokens[1] = 0.5; return r }(), "busy + Σ tokens = 1"},
		{"jobs not conserved", func() any { r := jiqRep(); r.Blocking = ptr(0.3); return r }(), "blocking + carried = 1, carried = busy/λ"},
		{"not finite", func() any { r := jiqRep(); r.Busy = math.Inf(1); return r }(), "a finite number"},
		{"sojourn below the mean size", &report.Map{Header: report.NewHeader("map"), Load: 0.9, Period: 400, Sojourn: 0.5, BoardMean: 1, Status: "converged"}, "≥ 1 (the mean job size)"},
		{"negative wait", &report.Meanfield{Header: report.NewHeader("meanfield"), Load: 0.9, Sojourn: ptr(2.0), MeanQueue: ptr(-1.0), Status: "converged"}, "≥ 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, out := range []output{{}, {csv: true}, {json: true}} {
				var b bytes.Buffer
				err := emit(&b, out, c.rep, func(w io.Writer) error { _, err := io.WriteString(w, "an answer"); return err })
				var inv *invalidResult
				if !errors.As(err, &inv) || exitCode(err) != 1 {
					t.Fatalf("%+v: %v, want an invalid result (exit status 1)", out, err)
				}
				found := false
				for _, v := range inv.err.Violations {
					found = found || v.Invariant == c.invariant
				}
				if !found {
					t.Errorf("caught, but not by %q: %v", c.invariant, err)
				}
				if !out.json {
					if b.Len() > 0 {
						t.Errorf("%+v: stdout %q", out, b.String())
					}
					continue
				}
				var ref report.Refusal
				if err := json.Unmarshal(b.Bytes(), &ref); err != nil || ref.Status != "invalid_result" || len(ref.Violations) == 0 || ref.Command == "" {
					t.Errorf("JSON: %v %q", err, b.String())
				}
				if err := quantity.CheckJSON(b.Bytes()); err != nil {
					t.Errorf("the refusal itself fails the guard: %v", err)
				}
			}
		})
	}
}
