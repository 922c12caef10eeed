package main

import (
	"encoding/json"
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
