package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/report"
)

func TestEdgeJSON(t *testing.T) {
	out, _, err := fluid(t, "edge", "-k", "2,5", "--load", "0.9", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Edge
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Dispatchers != 2 || rep.Rows[1].Dispatchers != 5 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	// The table says it ran to its end (interrupted, with the rows that
	// finished, when a signal stops it: TestSignals).
	if rep.Status != "completed" {
		t.Errorf("status %q, want completed", rep.Status)
	}
	// k = 2 never tips: null edge and a clear status (docs/models.md#stale-board-with-k-dispatchers).
	var raw map[string][]map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	if raw["rows"][0]["scaled"] != nil || rep.Rows[0].Status != "no_edge" {
		t.Errorf("k=2: scaled %v status %q", raw["rows"][0]["scaled"], rep.Rows[0].Status)
	}
	// k = 5: the published model edge 2.90 ("The Cliff Was a Trap Door") within 1%.
	r5 := rep.Rows[1]
	if r5.Scaled == nil || math.Abs(*r5.Scaled-2.90) > 0.029 || r5.Mechanism == nil || *r5.Mechanism != "border collision" || r5.Method == nil || *r5.Method != "root" || r5.Evals > 100 || len(r5.Bracket) != 2 {
		t.Errorf("k=5: %+v", r5)
	}
}

func TestMapCommand(t *testing.T) {
	out, _, err := fluid(t, "map", "-k", "5", "--load", "0.9", "--period", "400", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Map
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Published model value: mean board 5.49 at k = 5, T = 400.
	if rep.Attractor != "fixed_point" || math.Abs(rep.BoardMean-5.49) > 0.055 || rep.Branch == nil || rep.Radius == nil || *rep.Radius >= 1 {
		t.Errorf("%+v", rep)
	}
	out, _, err = fluid(t, "map", "-k", "1", "--period", "600")
	if err != nil || !strings.Contains(out, "fixed point") {
		t.Errorf("%v\n%s", err, out)
	}
	// A shared tally and partitioned dispatchers are the k = 1 map: the
	// same numbers as -k 1 (published model: board mean 4.73 at T = 600).
	var one report.Map
	out, _, err = fluid(t, "map", "-k", "1", "--period", "600", "--json")
	if err != nil || json.Unmarshal([]byte(out), &one) != nil {
		t.Fatal(err, out)
	}
	for _, tally := range []string{"shared", "partitioned"} {
		var r report.Map
		out, _, err = fluid(t, "map", "-k", "5", "--tally", tally, "--period", "600", "--json")
		if err != nil || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatal(err, out)
		}
		if r.Dispatchers != 5 || r.MapDispatchers != 1 || r.Tally != tally || r.BoardMean != one.BoardMean || math.Abs(r.BoardMean-4.73) > 0.047 {
			t.Errorf("--tally %s: %+v, want the k = 1 map (%v)", tally, r, one.BoardMean)
		}
	}
}

func TestEdgeMapBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"edge", "-k", "0"}, "-k"},
		{[]string{"edge", "-k", "x"}, "--dispatchers"},
		{[]string{"edge", "--load", "1"}, "--load"},
		{[]string{"edge", "--load", "0"}, "--load"},
		{[]string{"edge", "--load", "NaN"}, "--load"},
		{[]string{"edge", "--floor", "-1"}, "--floor"},
		{[]string{"map", "-k", "0"}, "-k"},
		{[]string{"map", "--load", "1.5"}, "--load"},
		{[]string{"map", "--load", "Inf"}, "--load"},
		{[]string{"map", "--period", "0"}, "--period"},
		{[]string{"map", "--period", "-3"}, "--period"},
		{[]string{"map", "--period", "NaN"}, "--period"},
		{[]string{"map", "--start", "wobbly"}, "--start"},
		{[]string{"map", "--start", "half"}, "--start"},
		{[]string{"map", "--iterations", "0"}, "--iterations"},
		{[]string{"map", "--tol", "0"}, "--tol"},
		{[]string{"map", "--tally", "mine"}, "--tally"},
	} {
		_, _, err := fluid(t, c.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %q", c.args, err, exitCode(err), c.want)
		}
	}
}
