package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/report"
)

func TestMeanfieldCommand(t *testing.T) {
	out, _, err := fluid(t, "meanfield", "--policy", "jsqd:2", "--discipline", "ps", "--sizes", "h2:30", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Meanfield
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Insensitivity: the exponential JSQ(2) mean time 2.614057 at λ = 0.9.
	if math.Abs(rep.Sojourn-2.614057) > 1e-6 || rep.Abscissa == nil || *rep.Abscissa >= 0 || rep.BoardMean != nil {
		t.Errorf("%+v", rep)
	}
	out, _, err = fluid(t, "meanfield", "--servers", "10,100", "--json")
	if err != nil {
		t.Fatal(err)
	}
	rep = report.Meanfield{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Refined) != 2 || !(rep.Refined[0].Sojourn > rep.Refined[1].Sojourn && rep.Refined[1].Sojourn > rep.Sojourn) {
		t.Errorf("refined %+v", rep.Refined)
	}
	out, _, err = fluid(t, "meanfield", "--policy", "board-jsqd:2", "--period", "10")
	if err != nil || !strings.Contains(out, "fixed point") || !strings.Contains(out, "mean board") {
		t.Errorf("%v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"meanfield", "--policy", "jsq"}, "--policy"},
		{[]string{"meanfield", "--policy", "jsqd:0"}, "--policy"},
		{[]string{"meanfield", "--load", "1"}, "--load"},
		{[]string{"meanfield", "--sizes", "h2:1"}, "--sizes"},
		{[]string{"meanfield", "--discipline", "lifo"}, "--discipline"},
		{[]string{"meanfield", "--policy", "board-jsq"}, "--period"},
		{[]string{"meanfield", "--period", "5"}, "--period"},
		{[]string{"meanfield", "--sizes", "h2:4", "--servers", "10"}, "--sizes"},
		{[]string{"meanfield", "--sizes", "pareto:2.5"}, "--sizes"},
		{[]string{"meanfield", "--iterations", "0", "--policy", "board-jsq", "--period", "5"}, "--iterations"},
	} {
		_, _, err := fluid(t, c.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %q", c.args, err, exitCode(err), c.want)
		}
	}
}
