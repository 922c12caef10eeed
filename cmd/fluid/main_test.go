package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/report"
)

// fluid runs the command in-process and returns stdout, stderr and error.
func fluid(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestJIQDefaultTable(t *testing.T) {
	out, _, err := fluid(t, "jiq")
	if err != nil {
		t.Fatal(err)
	}
	// Defaults λ = 0.9, α = (0.7, 0.3): Theorem 1 gives
	// B = max{1 − 2·0.3, 1 − 1/0.9} = 0.4, and ν* = (2·0.7 − 1)·0.9/0.1 = 3.6.
	for _, want := range []string{"blocking scenario", "blocking probability  0.4\n", "busy servers          0.54\n", "ν* = 3.6", "stable"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJIQJSON(t *testing.T) {
	out, _, err := fluid(t, "jiq", "--scenario", "queueing", "--load", "0.5", "--alpha", "0.6,0.2,0.2", "--json", "--verify")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.JIQ
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	// Queueing fixed point (docs/models.md): E[W] = 4/21 ≈ 0.1905; λ₂ = 0.16, so P(W > 0) = 0.16 and
	// the fraction sent at random is 0.32.
	// Closed forms evaluated in double precision: 1e-12 is rounding.
	if rep.MeanWait == nil || rep.ProbWait == nil || rep.FractionRandom == nil {
		t.Fatalf("mean_wait %v prob_wait %v fraction_random %v", rep.MeanWait, rep.ProbWait, rep.FractionRandom)
	}
	approx.Check(t, "mean_wait", *rep.MeanWait, 4.0/21, 1e-12, 0)
	approx.Check(t, "prob_wait", *rep.ProbWait, 0.16, 1e-12, 0)
	approx.Check(t, "fraction_random", *rep.FractionRandom, 0.32, 1e-12, 0)
	if rep.Blocking != nil || rep.ODE == nil || rep.ODE.MaxDiff > 1e-6 {
		t.Errorf("blocking %v, ode_check %+v", rep.Blocking, rep.ODE)
	}
	// Null for what does not apply; raw check of the field names scripts use.
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"blocking", "mean_wait", "prob_wait", "fraction_random", "sojourn", "busy", "tokens", "nu_star", "stability"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if raw["blocking"] != nil {
		t.Errorf("blocking should be null in the queueing scenario: %v", raw["blocking"])
	}
	// λ ≥ 1: no ν* exists, reported as null.
	out, _, err = fluid(t, "jiq", "--load", "1.5", "--alpha", "0.5,0.5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	raw = nil
	_ = json.Unmarshal([]byte(out), &raw)
	if raw["nu_star"] != nil {
		t.Errorf("λ = 1.5: nu_star %v", raw["nu_star"])
	}
	b, _ := raw["blocking"].(float64)
	approx.Check(t, "λ = 1.5: blocking", b, 1-1/1.5, 1e-12, 0) // Theorem 1's closed form, to rounding
}

func TestJIQTrajectoryCSV(t *testing.T) {
	out, _, err := fluid(t, "jiq", "--load", "0.5", "--alpha", "0.7,0.3", "--trajectory", "--until", "20", "--every", "1", "--csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "t,x0,x1,x2,blocking" || len(rows) != 22 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	// Phase 1 of the closed-form JIQ trajectory (docs/models.md): x₀ = λ(1 − e^{−t})
	// with λ = 0.5, until t₁ = 2.67.
	for _, row := range rows[1:4] {
		tt, _ := strconv.ParseFloat(row[0], 64)
		x0, _ := strconv.ParseFloat(row[1], 64)
		// The integrator's rtol 1e-10 on values of order 1, written
		// with 12 digits: 1e-8 is two orders above both.
		approx.Check(t, fmt.Sprintf("x0(%v)", tt), x0, 0.5*(1-math.Exp(-tt)), 1e-8, 0)
	}
	out, _, err = fluid(t, "jiq", "--scenario", "queueing", "--load", "0.5", "--alpha", "0.7,0.3", "--trajectory", "--until", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.JIQTrajectory
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) != 21 || rep.ConservationError > 1e-9 || rep.IMax == nil || len(rep.Switches) == 0 {
		t.Errorf("%d points, conservation %g, imax %v, switches %v", len(rep.Points), rep.ConservationError, rep.IMax, rep.Switches)
	}
	out, _, err = fluid(t, "jiq", "--scenario", "queueing", "--trajectory", "--until", "5")
	if err != nil || !strings.Contains(out, "mean queue") || !strings.Contains(out, "token pool empties") {
		t.Errorf("table trajectory: %v\n%s", err, out)
	}
}

func TestJIQBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string // part of the message
	}{
		{[]string{"--load", "0"}, "--load"},
		{[]string{"--load", "-1"}, "--load"},
		{[]string{"--load", "NaN"}, "--load"},
		{[]string{"--load", "Inf"}, "--load"},
		{[]string{"--load", "abc"}, "--load"},
		{[]string{"--scenario", "queueing", "--load", "1"}, "λ < 1"},
		{[]string{"--scenario", "queueing", "--load", "1.2"}, "--load"},
		{[]string{"--scenario", "both"}, "--scenario"},
		{[]string{"--alpha", "0.5,0.6"}, "--alpha: entries sum to 1.1"},
		{[]string{"--alpha", "-0.2,1.2"}, "--alpha: entry 1 is -0.2"},
		{[]string{"--alpha", "1,0"}, "--alpha: entry 2 is 0, want positive"},
		{[]string{"--alpha", "0.5,abc"}, "--alpha"},
		{[]string{"--alpha", "NaN,1"}, "--alpha"},
		{[]string{"--alpha", "0.5,0.5", "--beta", "1"}, "--beta: 1 entries for 2 dispatchers"},
		{[]string{"--beta", "0.7,0.7"}, "--beta: entries sum"},
		{[]string{"--beta", "-0.5,1.5"}, "--beta: entry 1"},
		{[]string{"--exchange", "-1"}, "--exchange"},
		{[]string{"--exchange", "NaN"}, "--exchange"},
		{[]string{"--imax", "-1"}, "--imax"},
		{[]string{"--scenario", "queueing", "--imax", "5"}, "--imax: 5 is too small"},
		{[]string{"--tail-tol", "0"}, "--tail-tol"},
		{[]string{"--tail-tol", "2"}, "--tail-tol"},
		{[]string{"--until", "5"}, "--until has no effect here: it applies to the trajectory: add --trajectory"},
		{[]string{"--scenario", "blocking", "--imax", "50"}, "--imax has no effect here"},
		{[]string{"--csv", "--json"}, "exclusive"},
		{[]string{"--trajectory", "--csv", "--json"}, "exclusive"},
		{[]string{"--trajectory", "--verify"}, "--verify"},
		{[]string{"--trajectory", "--until", "0"}, "--until"},
		{[]string{"--trajectory", "--until", "-3"}, "--until"},
		{[]string{"--trajectory", "--until", "NaN"}, "--until"},
		{[]string{"--trajectory", "--every", "-1"}, "--every"},
		{[]string{"--trajectory", "--until", "2", "--every", "5"}, "--every"},
		{[]string{"--trajectory", "--until", "1e9", "--every", "1"}, "--until: 1e+09, want a number in (0, 100000]"},
		{[]string{"--trajectory", "--until", "1e5", "--every", "0.01"}, "output rows"},
		{[]string{"--trajectory", "--every", "1e-18"}, "output rows"},
		{[]string{"--trajectory", "--every", "1e-300"}, "output rows"},
		{[]string{"--trajectory", "--rtol", "0"}, "--rtol: 0, want a number in [1e-15, 0.1]"},
		{[]string{"--trajectory", "--rtol", "1e-300"}, "--rtol: 1e-300, want a number in [1e-15, 0.1]"},
		{[]string{"--trajectory", "--json", "--scenario", "queueing", "--load", "0.5", "--imax", "100000", "--every", "0.1"}, "numbers"},
		{[]string{"--foo"}, "unknown flag: --foo"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		args := append([]string{"jiq"}, c.args...)
		_, _, err := fluid(t, args...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		if exitCode(err) != 2 {
			t.Errorf("%v: exit code %d, want 2 (usage): %v", c.args, exitCode(err), err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: message %q does not mention %q", c.args, err.Error(), c.want)
		}
		var buf bytes.Buffer
		reportError(&buf, err)
		if !strings.Contains(buf.String(), "fluid jiq --help") {
			t.Errorf("%v: no usage hint in %q", c.args, buf.String())
		}
	}
}

func TestRootAndExitCodes(t *testing.T) {
	out, _, err := fluid(t)
	if err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("bare fluid: %v\n%s", err, out)
	}
	_, _, err = fluid(t, "nonsense")
	if exitCode(err) != 2 {
		t.Errorf("unknown command: exit %d (%v)", exitCode(err), err)
	}
	if exitCode(nil) != 0 || exitCode(errors.New("numerical failure")) != 1 {
		t.Error("exit codes: want 0 for success, 1 for run errors")
	}
}
