package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/report"
)

// TestMapServers checks fluid map --servers: the partitioned farm's parts
// get N/k servers and the refined mean lies above the N = ∞ one by about
// the simulated 6% (the package tests compare it with the simulator);
// without --servers the field is null; and the refusals name the flag.
func TestMapServers(t *testing.T) {
	var rep report.Map
	if err := json.Unmarshal([]byte(mustRun(t, "map", "-k", "5", "--policy", "partitioned", "--period", "30", "--servers", "100", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Refined
	if r == nil || r.Servers != 100 || r.PartServers != 20 || r.Method != "refined_1_over_n" {
		t.Fatalf("refined = %+v", r)
	}
	if gap := r.SojournRefined/r.Sojourn - 1; gap < 0.03 || gap > 0.09 || math.Abs(r.Sojourn/rep.Sojourn-1) > 1e-6 {
		t.Errorf("refined %.4f against N = ∞ %.4f (map %.4f): want about 6%% above", r.SojournRefined, r.Sojourn, rep.Sojourn)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "map", "-k", "1", "--period", "30", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Refined != nil {
		t.Errorf("without --servers: refined = %+v", rep.Refined)
	}
	for _, args := range [][]string{
		{"map", "-k", "5", "--period", "50", "--servers", "100"},                            // the herd's cycle
		{"map", "-k", "5", "--policy", "partitioned", "--period", "30", "--servers", "101"}, // not a multiple of k
	} {
		var out, errb bytes.Buffer
		if code := runMain(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--servers") {
			t.Errorf("fluid %v: exit %d, %q", args, code, errb.String())
		}
	}
}
