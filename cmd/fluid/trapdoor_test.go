package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/report"
)

// fluid trapdoor: the critical half-loaded backlog at k = 5, λ = 0.9,
// T = 1,000 lies between 0.065·T (recovers) and 0.07·T (tips), where a
// hand bisection with fluid map puts it; the mechanism at the balanced
// state there drains a difference completely (factor within 0.05 of 0)
// and its board range at N = 100 times (1 − λ) is within the 2.1–2.8 of
// "The Cliff Was a Trap Door".
func TestTrapdoorCommand(t *testing.T) {
	out, _, err := fluid(t, "trapdoor", "--period", "1000", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.TrapDoor
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if len(rep.Rows) != 1 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	r := rep.Rows[0]
	if r.Status != "converged" || !(r.CriticalScaled > 0.065 && r.CriticalScaled < 0.07) || len(r.PushBracket) != 2 || r.PushBracket[0] > r.Critical || r.PushBracket[1] < r.Critical {
		t.Errorf("row %+v", r)
	}
	if m := r.Mechanism; m == nil || m.ScaledRange < 2.1 || m.ScaledRange > 2.8 || m.ResponseFactor < -0.05 || m.ResponseFactor > 0.05 || m.TopUp != -4 {
		t.Errorf("mechanism %+v", r.Mechanism)
	}
	for _, c := range []struct{ args, flag string }{
		{"--push warm", "--push"},
		{"--servers 1", "--servers"},
		{"--difference 0", "--difference"},
		{"--on-balanced --push half@3", "--on-balanced"},
		{"--rtol 0.9", "--rtol"},
	} {
		_, stderr, err := fluid(t, append([]string{"trapdoor", "--period", "1000"}, strings.Fields(c.args)...)...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(stderr+err.Error(), strings.TrimPrefix(c.flag, "--")) {
			t.Errorf("%s: exit %v, %q, %v", c.args, exitCode(err), stderr, err)
		}
	}
}

// One hot server of 100 never tips the map up to the top of the search
// range ("The Cliff Was a Trap Door": 3,200 extra jobs on one server
// tipped no run): the row is above_range with no bracket, b* the largest
// push tried (above 3,200), and the exit status 1; the CSV has one row
// per period, its columns named as the JSON fields.
func TestTrapdoorHotServer(t *testing.T) {
	// Exit status 1: the row shows a bound, not b*.
	out, _, err := fluid(t, "trapdoor", "--period", "1000", "--push", "hot", "--servers", "100", "--json")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "above_range") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	var rep report.TrapDoor
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if r := rep.Rows[0]; r.Status != "above_range" || r.PushBracket != nil || !(r.Critical > 3200) || rep.Push != "hot" {
		t.Errorf("row %+v (push %s)", r, rep.Push)
	}
	csv, _, err := fluid(t, "trapdoor", "--period", "1000", "--push", "hot", "--csv")
	if exitCode(err) != 1 {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "critical_scaled") || !strings.Contains(lines[0], "mechanism.scaled_range") || !strings.Contains(lines[1], "above_range") {
		t.Errorf("csv:\n%s", csv)
	}
}
