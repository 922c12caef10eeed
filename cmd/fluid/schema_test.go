package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fluidlb/fluid/report"
)

// compileSchema loads a published schema from docs/schema.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "docs", "schema", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestJSONMatchesSchema runs every command with --json on a fast input and
// validates the output against the schema published for it in
// docs/schema (every field present, no other field, the right types), and
// checks the header.
func TestJSONMatchesSchema(t *testing.T) {
	sweepDir := t.TempDir()
	if _, _, err := fluid(t, "sweep", "jackson", "--servers", "10,20", "--out", sweepDir); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		schema string
		args   []string
	}{
		{"edge", []string{"edge", "-k", "2,3"}},
		{"edge", []string{"edge", "-k", "3", "--confirm"}},
		{"map", []string{"map"}},
		{"trapdoor", []string{"trapdoor", "--period", "1000"}},
		{"trapdoor", []string{"trapdoor", "--period", "100,1000", "--push", "hot", "--rtol", "0.1"}},
		{"map", []string{"map", "--period", "1100", "--start", "half:110", "--iterations", "30"}},
		{"jiq", []string{"jiq", "--verify"}},
		{"jiq", []string{"jiq", "--scenario", "queueing", "--load", "0.5"}},
		{"jiq-trajectory", []string{"jiq", "--trajectory", "--until", "2"}},
		{"jiq-trajectory", []string{"jiq", "--trajectory", "--until", "2", "--scenario", "queueing", "--load", "0.5"}},
		{"jackson", []string{"jackson", "--servers", "10,100"}},
		{"meanfield", []string{"meanfield", "--servers", "10"}},
		{"meanfield", []string{"meanfield", "--policy", "board-jsqd:2", "--period", "2"}},
		{"sim", []string{"sim", "--servers", "10", "--load", "0.5"}},
		{"sim", []string{"sim", "--servers", "10", "--jobs", "2000", "--reps", "2", "--transient"}},
		{"sim", []string{"sim", "--servers", "10", "--jobs", "20000", "--reps", "2", "--discipline", "ps", "--policy", "jsqd:2", "--rel-precision", "0.5"}},
		{"sim", []string{"sim", "--servers", "10", "--jobs", "2000", "--reps", "2", "--policy", "jiq-queueing", "--alpha", "0.7,0.3", "--exchange", "1", "--transient"}},
		{"sim", []string{"sim", "--servers", "20", "-k", "5", "--jobs", "5000", "--reps", "2", "--policy", "tally", "--period", "5", "--series", "--correlation-age", "1", "--transient"}},
		{"meanfield", []string{"meanfield", "--policy", "rr", "--servers", "10,100", "--discipline", "ps"}},
		{"meanfield", []string{"meanfield", "--correlation-age", "1,10"}},
		{"meanfield", []string{"meanfield", "--crossing", "board-jsq,rr", "--servers", "100"}},
		{"validate", []string{"validate", "--quick", "--filter", "^jiq-theorem1$"}},
		{"sweep-status", []string{"sweep", "status", sweepDir}},
		{"version", []string{"version"}},
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, c := range cases {
		s := schemas[c.schema]
		if s == nil {
			s = compileSchema(t, c.schema)
			schemas[c.schema] = s
		}
		args := append(append([]string(nil), c.args...), "--json")
		out, _, err := fluid(t, args...)
		if err != nil && (out == "" || exitCode(err) != 1) {
			// A solve that does not converge exits 1 after its report.
			t.Errorf("%v: %v", args, err)
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Errorf("%v: %v", args, err)
			continue
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%v: output does not match docs/schema/%s.json:\n%v", args, c.schema, err)
		}
		if bad := forbidden(out); len(bad) > 0 {
			t.Errorf("%v: JSON mentions %q", args, bad)
		}
		if c.schema == "version" {
			continue
		}
		var h report.Header
		if err := json.Unmarshal([]byte(out), &h); err != nil || h.SchemaVersion != report.SchemaVersion || h.Fluid == "" || h.Command != strings.Join(c.args[:min(2, len(c.args))], " ") && h.Command != c.args[0] {
			t.Errorf("%v: header %+v", args, h)
		}
	}
}

// TestSchemaCanFail: a report with a field renamed, or a number where a
// string belongs, fails validation.
func TestSchemaCanFail(t *testing.T) {
	s := compileSchema(t, "jackson")
	out, _, err := fluid(t, "jackson", "--servers", "10", "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, mutate := range []func(string) string{
		func(s string) string { return strings.Replace(s, `"blocking"`, `"block"`, 1) },
		func(s string) string { return strings.Replace(s, `"status": "exact"`, `"status": 1`, 1) },
		func(s string) string { return strings.Replace(s, `"load"`, `"load": 1, "extra"`, 1) },
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(mutate(out)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(doc) == nil {
			t.Errorf("a mutated report validates:\n%s", mutate(out))
		}
	}
}

// TestSharedNames: one quantity has one name in every report. The retired
// spellings must appear in no report type, and each shared name, where it
// appears, has one Go type.
func TestSharedNames(t *testing.T) {
	retired := map[string]string{
		"wait_prob":       "prob_wait",
		"random_fraction": "fraction_random",
		"k":               "dispatchers",
		"model_k":         "map_dispatchers",
		"n":               "servers",
		"lambda":          "load",
		"time_in_system":  "sojourn",
		"mean_sojourn":    "sojourn",
		"nu":              "exchange",
		"refresh_period":  "period",
		"scaled_edge":     "scaled",
	}
	types := map[string]reflect.Type{}
	var walk func(path string, ty reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(path string, ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				walk(path, f.Type)
				continue
			}
			if want, ok := retired[name]; ok {
				t.Errorf("%s.%s is named %q: the shared name is %q", path, f.Name, name, want)
			}
			base := f.Type
			for base.Kind() == reflect.Pointer {
				base = base.Elem()
			}
			switch name {
			case "load", "servers", "dispatchers", "period", "scaled", "blocking", "sojourn", "board_mean", "mean_wait", "prob_wait", "fraction_random", "exchange", "seed":
				if prev, ok := types[name]; ok && prev != base && !(isNumber(prev) && isNumber(base)) {
					t.Errorf("%s.%s: %q is %v here and %v elsewhere", path, f.Name, name, base, prev)
				}
				types[name] = base
			}
			walk(path+"."+f.Name, f.Type)
		}
	}
	for _, v := range []any{report.Edge{}, report.Map{}, report.JIQ{}, report.JIQTrajectory{}, report.Jackson{}, report.Meanfield{}, report.Sim{}, report.Validate{}, report.SweepStatus{}} {
		walk(reflect.TypeOf(v).Name(), reflect.TypeOf(v))
	}
	for _, name := range []string{"load", "servers", "dispatchers", "period", "blocking", "sojourn", "board_mean", "mean_wait", "prob_wait", "fraction_random"} {
		if _, ok := types[name]; !ok {
			t.Errorf("no report has %q", name)
		}
	}
}

// isNumber: a scalar number or an estimate of one may share a name
// (sojourn is a number in the mean field and an estimate in the simulator).
func isNumber(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Float64, reflect.Int, reflect.Int64, reflect.Uint64:
		return true
	}
	return t.Name() == "Estimate"
}
