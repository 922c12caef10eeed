package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/jackson"
)

func TestSimJSON(t *testing.T) {
	out, _, err := fluid(t, "sim", "--servers", "100", "--load", "0.9", "--alpha", "0.7,0.3", "--policy", "jiq-blocking",
		"--jobs", "100000", "--reps", "4", "--seed", "3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	exact, err := jackson.Solve(&jackson.JIQ{Servers: 100, Load: 0.9, Alpha: []float64{0.7, 0.3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The exact finite-N blocking lies in the interval (1.5 half-widths:
	// see validate/sim's agrees).
	if rep.Dispatchers != 2 || rep.Reps != 4 || rep.Jobs != 400000 || rep.Blocking.Samples != 4 ||
		math.Abs(rep.Blocking.Mean-exact.Blocking) > 1.5*rep.Blocking.CI95 || rep.Mean != rep.Sojourn.Mean || rep.Tipped != nil {
		t.Errorf("%+v (exact blocking %.5f)", rep, exact.Blocking)
	}
	// Board runs report the board and whether they tipped.
	out, _, err = fluid(t, "sim", "--servers", "50", "--dispatchers", "5", "--policy", "tally", "--period", "50",
		"--jobs", "20000", "--reps", "2", "--json", "--series")
	if err != nil {
		t.Fatal(err)
	}
	rep = simReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.BoardMean == nil || rep.Tipped == nil || len(rep.Series) != 2 || len(rep.Series[0]) < 5 {
		t.Errorf("board run: %+v", rep)
	}
}

func TestSimText(t *testing.T) {
	out, _, err := fluid(t, "sim", "--servers", "10", "--jobs", "1000", "--reps", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mean time in system", "batch means", "seed 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

func TestSimBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--servers", "0"}, "--servers"},
		{[]string{"sim", "--load", "1"}, "--load"},
		{[]string{"sim", "--load", "-0.5"}, "--load"},
		{[]string{"sim", "--policy", "best"}, "--policy"},
		{[]string{"sim", "--policy", "partitioned", "--servers", "3", "--dispatchers", "5", "--period", "10"}, "--dispatchers"},
		{[]string{"sim", "--policy", "board-jsq"}, "--period"},
		{[]string{"sim", "--period", "-2"}, "--period"},
		{[]string{"sim", "--alpha", "0.5,0.6"}, "--alpha"},
		{[]string{"sim", "--sizes", "h2"}, "--sizes"},
		{[]string{"sim", "--discipline", "lifo"}, "--discipline"},
		{[]string{"sim", "--start", "hot"}, "--start"},
		{[]string{"sim", "--jobs", "0"}, "--jobs"},
		{[]string{"sim", "--reps", "0"}, "--reps"},
		{[]string{"sim", "--exchange", "1"}, "--exchange"},
		{[]string{"sim", "--policy", "jiq-queueing", "--alpha", "0.5,0.5", "--beta", "1"}, "--beta"},
	} {
		_, _, err := fluid(t, c.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %q", c.args, err, exitCode(err), c.want)
		}
	}
}
