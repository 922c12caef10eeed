package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/validate"
)

func TestValidateCommand(t *testing.T) {
	out, _, err := fluid(t, "validate", "--quick", "--filter", "^jiq-product-form$", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep validate.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Cases != 1 || len(rep.Checks) != 3 || rep.Failed != 0 || !rep.Quick {
		t.Errorf("%+v", rep)
	}
	out, _, err = fluid(t, "validate", "--quick", "--filter", "^jiq-product-form$")
	if err != nil || !strings.Contains(out, "3 of 3 checks passed") || !strings.Contains(out, "pass") {
		t.Errorf("%v\n%s", err, out)
	}
	for _, c := range [][]string{{"validate", "--filter", "("}, {"validate", "--filter", "no-such-case"}} {
		if _, _, err := fluid(t, c...); exitCode(err) != 2 || !strings.Contains(err.Error(), "--filter") {
			t.Errorf("%v: %v", c, err)
		}
	}
}

// The table's interval column is the 99.9% half-width the verdict uses,
// and says so; the closing line states the same rule.
func TestValidateTextInterval(t *testing.T) {
	out, _, err := fluid(t, "validate", "--quick", "--filter", "^jiq-product-form$")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := validate.Run(&validate.Settings{Quick: true, Filter: regexp.MustCompile("^jiq-product-form$"), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[2], "± 99.9% (verdict)") || strings.Contains(out, "95%") ||
		!strings.Contains(out, "≤ the 99.9% half-width (column ± 99.9%) + the allowance") {
		t.Errorf("header or closing line:\n%s", out)
	}
	for i, c := range rep.Checks {
		row := lines[3+i]
		half, ci95 := fmt.Sprintf("  %.3g  ", c.Half), fmt.Sprintf("  %.3g  ", c.Sim.CI95)
		if !(c.Half > c.Sim.CI95) || !strings.Contains(row, half) || strings.Contains(row, ci95) {
			t.Errorf("row %d shows not the 99.9%% half-width %.3g (95%%: %.3g): %q", i, c.Half, c.Sim.CI95, row)
		}
	}
}
