package main

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/parallel"
)

// TestBadInput holds the hostile inputs of the robustness review (the
// simulator's are in sim_test.go): each exits with a usage error (status
// 2) naming the flag, before any long work.
func TestBadInput(t *testing.T) {
	a2000 := strings.TrimSuffix(strings.Repeat("0.0005,", 2000), ",")
	cases := []struct {
		args []string
		flag string // named in the message
	}{
		{[]string{"map", "--iterations", "9223372036854775807"}, "--iterations"},
		{[]string{"map", "--iterations", "100000000000"}, "--iterations"},
		{[]string{"map", "--start", "half:1000000000"}, "--start"},
		{[]string{"map", "--start", "spread:100000"}, "--start"},
		{[]string{"map", "--period", "1e12"}, "--period"},
		{[]string{"map", "--period", "1e-12"}, "--period"},
		{[]string{"map", "--period", "6000"}, "--period"},
		{[]string{"map", "--period", "1100", "--start", "half:110", "--tol", "1e300"}, "--tol"},
		{[]string{"map", "--tol", "0"}, "--tol"},
		{[]string{"map", "--csv", "--json"}, "--json"},
		{[]string{"map", "--policy", "tally-jsqd:2", "--sizes", "h2:4"}, "--sizes"},
		{[]string{"map", "--policy", "board-jsqd:2", "-k", "2", "--alpha", "0.7,0.3"}, "--alpha"},
		{[]string{"map", "--policy", "board-jsqd:0"}, "--policy"},
		{[]string{"map", "--policy", "jsqd:2"}, "--policy"},
		{[]string{"map", "--policy", "partitioned", "--tally", "shared"}, "--tally"},
		{[]string{"map", "-k", "2", "--alpha", "0.7,0.4"}, "--alpha"},
		{[]string{"map", "-k", "7", "--alpha", "0.4,0.1,0.1,0.1,0.1,0.1,0.1"}, "--alpha"},
		{[]string{"map", "-k", "2", "--alpha", "0.7,0.3", "--policy", "partitioned"}, "--alpha"},
		{[]string{"map", "-k", "3", "--alpha", "0.5,0.5"}, "--alpha"},
		{[]string{"map", "--sizes", "pareto:2.5"}, "--sizes"},
		{[]string{"map", "--sizes", "h2:1000"}, "--sizes"},
		{[]string{"map", "--discipline", "lifo"}, "--discipline"},
		{[]string{"edge", "-k", "5", "--sizes", "h2:4", "--servers", "100"}, "--sizes"},
		{[]string{"edge", "-k", "5", "--policy", "tally-jsqd:2"}, "--policy"},
		{[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "1000", "--discipline", "ps", "--sizes", "h2:4"}, "--period"}, // over the work budget
		{[]string{"meanfield", "--policy", "board-jsqd:2", "--period", "1e12"}, "--period"},
		{[]string{"meanfield", "--policy", "jsqd:1", "--load", "0.9999"}, "--load"},
		{[]string{"meanfield", "--load", "1e-300"}, "--load"},
		{[]string{"meanfield", "--servers", "1"}, "--servers"},
		{[]string{"jiq", "--imax", "5"}, "--imax"},
		{[]string{"jiq", "--tail-tol", "1e-6"}, "--tail-tol"},
		{[]string{"jackson", "--servers", "10000000", "--alpha", a2000}, "--alpha"},
		{[]string{"jackson", "--servers", "10,10000000", "--alpha", a2000}, "--alpha"},
		{[]string{"edge", "-k", "1..10000"}, "-k"},
		{[]string{"edge", "-k", "5", "--load", "0.99"}, "--max-period"},
		{[]string{"edge", "-k", "5", "--floor", "1e-6"}, "--floor"},
		{[]string{"edge", "--workers", "-1"}, "--workers"},
		{[]string{"validate", "--seed", "0"}, "--seed"},
		{[]string{"help", "foo"}, "foo"},
		{[]string{"sim", "--servers", "010", "--csv", "--json"}, "--json"},
	}
	for _, c := range cases {
		name := shortArgs(c.args)
		t.Run(strings.Join(name, " "), func(t *testing.T) {
			_, _, err := fluid(t, c.args...)
			if err == nil {
				t.Fatalf("%v: no error", name)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("%v: exit status %d, want 2: %.200v", name, code, err)
			}
			if !strings.Contains(err.Error(), c.flag) {
				t.Errorf("%v: message %.200q does not name %s", name, err, c.flag)
			}
		})
	}
}

// TestAnswersAtExtremes: inputs at the edge of the valid range give
// answers that are consistent (no zero-blocking verdict beside a blocking
// of 0.4) and finite.
func TestAnswersAtExtremes(t *testing.T) {
	out, _, err := fluid(t, "jiq", "--load", "1e-12")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "blocking probability  0.4\n") || !strings.Contains(out, "zero blocking         no") {
		t.Errorf("jiq at λ = 1e-12:\n%s", out)
	}
	out, _, err = fluid(t, "jiq", "--load", "1e-12", "--beta", "0.7,0.3")
	if err != nil || !strings.Contains(out, "zero blocking         yes") {
		t.Errorf("jiq at λ = 1e-12 with β = α: %v\n%s", err, out)
	}
	// The map at its smallest period: the mean time in system is at least
	// the mean size 1 (at T = 1e-3 the quadrature gave 0.949).
	out, _, err = fluid(t, "map", "--period", "0.01", "--json")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"sojourn": ([0-9.e+-]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("map at T = 0.01: no sojourn in\n%s", out)
	}
	if x, err := strconv.ParseFloat(m[1], 64); err != nil || x < 1 {
		t.Errorf("map at T = 0.01: sojourn %v, want ≥ 1", m[1])
	}
}

// TestNoNaNOrInf runs the commands on a grid of valid inputs, extreme
// ones included, and scans text, JSON and CSV for NaN and ±Inf: a result
// never is one (what does not apply is null or left out).
func TestNoNaNOrInf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs many commands")
	}
	bad := regexp.MustCompile(`(?i)\bnan\b|[+-]?\binf\b|\+Inf|-Inf`)
	var runs [][]string
	for _, l := range []string{"1e-6", "0.5", "0.999"} {
		runs = append(runs,
			[]string{"jiq", "--load", l},
			[]string{"jiq", "--load", l, "--scenario", "queueing"},
			[]string{"jackson", "--load", l, "--servers", "1,10,1000"},
			[]string{"meanfield", "--load", l},
			[]string{"meanfield", "--load", l, "--discipline", "ps", "--sizes", "h2:30"},
		)
	}
	for _, l := range []string{"1e-6", "0.5", "1e6"} {
		runs = append(runs, []string{"jiq", "--load", l, "--alpha", "0.5,0.3,0.2", "--exchange", "1e6"})
	}
	// (At T = 0.01 the map contracts slowly: about 1,900 periods.)
	runs = append(runs, []string{"map", "--period", "0.01", "--load", "0.5"},
		[]string{"map", "--period", "1", "--load", "0.5"},
		[]string{"map", "--period", "5000", "--load", "0.5", "--iterations", "50"})
	runs = append(runs, []string{"map", "--period", "1100", "--start", "half:110"},
		[]string{"edge", "-k", "2,3", "--load", "0.1,0.95"},
		[]string{"jiq", "--trajectory", "--until", "50", "--load", "0.999", "--scenario", "queueing"})
	for _, r := range runs {
		for _, mode := range [][]string{nil, {"--json"}, {"--csv"}} {
			args := append(append([]string(nil), r...), mode...)
			if r[0] == "jiq" && len(r) > 1 && r[1] == "--trajectory" && len(mode) > 0 && mode[0] == "--csv" {
				continue // its CSV has no header row check to do; text and JSON cover it
			}
			out, _, err := fluid(t, args...)
			if err != nil {
				t.Errorf("%v: %v", args, err)
				continue
			}
			if loc := bad.FindStringIndex(out); loc != nil {
				t.Errorf("%v prints %q:\n%s", args, out[loc[0]:loc[1]], out[max(0, loc[0]-200):min(len(out), loc[1]+100)])
			}
		}
	}
}

// A panic is a bug: it exits 70 with "internal error" and the stack,
// whether it happens in the command's goroutine or in a worker.
func TestPanicExits70(t *testing.T) {
	defer func(f func([]string, io.Writer, io.Writer) error) { runCommand = f }(runCommand)
	for name, f := range map[string]func([]string, io.Writer, io.Writer) error{
		"main": func([]string, io.Writer, io.Writer) error { panic("boom") },
		"worker": func([]string, io.Writer, io.Writer) error {
			return parallel.For(4, 2, nil, func(i int) error {
				if i == 2 {
					panic("boom")
				}
				return nil
			})
		},
	} {
		runCommand = f
		var out, errb bytes.Buffer
		if code := runMain(nil, &out, &errb); code != 70 {
			t.Errorf("%s: exit status %d, want 70", name, code)
		}
		if s := errb.String(); !strings.Contains(s, "internal error") || !strings.Contains(s, "boom") || !strings.Contains(s, "goroutine") {
			t.Errorf("%s: stderr %q", name, s)
		}
	}
}

// shortArgs shortens long arguments for messages.
func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:40] + "…"
		}
		out[i] = a
	}
	return out
}
