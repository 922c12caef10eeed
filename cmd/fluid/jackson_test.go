package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/report"
)

func TestJacksonJSON(t *testing.T) {
	out, _, err := fluid(t, "jackson", "--servers", "10..100000*10", "--load", "0.9", "--alpha", "0.5,0.5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Jackson
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 5 || rep.Limit != 0 {
		t.Fatalf("%d rows, limit %v", len(rep.Rows), rep.Limit)
	}
	// Equal loads: B·N → (R − 1)/(1 − λ) = 10 (closed Jackson network), within 2% at 10⁵.
	last := rep.Rows[4]
	if last.Servers != 100000 {
		t.Errorf("last row N = %d", last.Servers)
	}
	approx.Check(t, "N·B at N = 10⁵", last.Blocking*1e5, 10, 0, 0.02)
	out, _, err = fluid(t, "jackson", "--servers", "100000", "--load", "0.5", "--alpha", "0.7,0.3")
	if err != nil || !strings.Contains(out, "B∞ = 0.4") {
		t.Errorf("table: %v\n%s", err, out)
	}
}

func TestJacksonBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--servers", "0"}, "--servers"},
		{[]string{"--servers", "-5"}, "--servers"},
		{[]string{"--servers", "ten"}, "--servers"},
		{[]string{"--servers", "100..10"}, "--servers"},
		{[]string{"--load", "0"}, "--load"},
		{[]string{"--load", "-0.5"}, "--load"},
		{[]string{"--load", "NaN"}, "--load"},
		{[]string{"--alpha", "0.5,0.4"}, "--alpha: entries sum"},
		{[]string{"--alpha", "Inf,0"}, "--alpha"},
		{[]string{"--beta", "0.5"}, "--beta: 1 entries for 2 dispatchers"},
		{[]string{"--beta", "0.5,0.6"}, "--beta: entries sum"},
		{[]string{"--exchange", "1"}, "breaks the product form"},
		{[]string{"--exchange", "-1"}, "--exchange"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		_, _, err := fluid(t, append([]string{"jackson"}, c.args...)...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want a usage error mentioning %q", c.args, err, exitCode(err), c.want)
		}
	}
}
