package quantity_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/report"
)

// Every field of every JSON document fluid writes is a declared quantity,
// so its name, label, unit and domain come from one place.
func TestEveryReportFieldDeclared(t *testing.T) {
	for _, doc := range []any{
		report.Edge{}, report.Map{}, report.JIQ{}, report.JIQTrajectory{}, report.Jackson{},
		report.Meanfield{}, report.Sim{}, report.Validate{}, report.SweepStatus{}, report.BuildInfo{}, report.Refusal{},
	} {
		typ := reflect.TypeOf(doc)
		t.Run(typ.Name(), func(t *testing.T) {
			for _, name := range jsonNames(typ, map[reflect.Type]bool{}) {
				if _, ok := quantity.Lookup(name); !ok {
					t.Errorf("field %q is not declared in package quantity", name)
				}
			}
		})
	}
}

// jsonNames lists the JSON field names of typ and of the types it holds.
func jsonNames(typ reflect.Type, seen map[reflect.Type]bool) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] {
		return nil
	}
	seen[typ] = true
	var names []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if name != "" {
			names = append(names, name)
		} else if !f.Anonymous {
			names = append(names, f.Name)
		}
		names = append(names, jsonNames(f.Type, seen)...)
	}
	return names
}

func TestDeclarations(t *testing.T) {
	for _, name := range quantity.Names() {
		q, _ := quantity.Lookup(name)
		if q.Name != name || strings.ToLower(name) != name || strings.ContainsAny(name, " -") {
			t.Errorf("%q: names are snake_case and match their key", name)
		}
		if q.Domain != quantity.Text && (q.Label == "" || q.Doc == "") {
			t.Errorf("%q has no label or description", name)
		}
	}
	if got := quantity.Axis("sojourn"); got != "mean time in system (mean service times)" {
		t.Errorf("Axis(sojourn) = %q", got)
	}
	if got := quantity.Axis("blocking"); got != "blocking probability" {
		t.Errorf("Axis(blocking) = %q", got)
	}
	if got := quantity.Axis("nonesuch"); got != "nonesuch" {
		t.Errorf("Axis(nonesuch) = %q", got)
	}
}

// Documents that fluid wrote for correct results pass the guard: one per
// command and mode (testdata/good, written by the commands named in the
// file names).
func TestGoodDocumentsPass(t *testing.T) {
	files, err := filepath.Glob("testdata/good/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("testdata: %d files, %v", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := quantity.CheckJSON(b); err != nil {
				t.Error(err)
			}
		})
	}
}

// Answers fluid once printed with exit status 0 that were wrong: each is
// caught, by the invariant named.
func TestKnownWrongAnswersCaught(t *testing.T) {
	for _, c := range []struct {
		name, doc, invariant string
	}{
		// fluid jiq --exchange 1e-300: blocking 1 (the answer is ≈ 0.4)
		{"jiq exchange 1e-300", `{"command":"jiq","scenario":"blocking","load":0.9,"alpha":[0.7,0.3],"blocking":1,"busy":3.1e-61,"tokens":[0,0]}`, "busy + Σ tokens = 1"},
		// fluid edge -k 5 --load 1e-17: a mean time in system of −0.867
		{"edge load 1e-17", `{"command":"edge","rows":[{"load":1e-17,"sojourn":-0.8673617379884034,"board_mean":4.9e-19}]}`, "≥ 1 (the mean job size)"},
		// fluid map --load 1e-20: 0.0025
		{"map load 1e-20", `{"command":"map","load":1e-20,"sojourn":0.0025,"board_mean":1e-20}`, "≥ 1 (the mean job size)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := quantity.CheckJSON([]byte(c.doc))
			requireViolation(t, err, c.invariant)
		})
	}
}

func requireViolation(t *testing.T, err error, invariant string) {
	t.Helper()
	var qe *quantity.Error
	if !errors.As(err, &qe) {
		t.Fatalf("not caught: %v", err)
	}
	for _, v := range qe.Violations {
		if v.Invariant == invariant {
			return
		}
	}
	t.Fatalf("caught, but not by %q: %v", invariant, err)
}

// Each invariant can fail: a good document corrupted in one place is
// caught by that invariant and no other passes it.
func TestEachInvariantCanFail(t *testing.T) {
	for _, c := range []struct {
		name, doc, invariant string
	}{
		{"probability above 1", `{"blocking":1.5}`, "in [0, 1]"},
		{"negative probability", `{"rows":[{"prob_wait":-0.1}]}`, "in [0, 1]"},
		{"negative wait", `{"mean_wait":-1e-3}`, "≥ 0"},
		{"negative board mean", `{"board_mean":-2}`, "≥ 0"},
		{"fractional count", `{"servers":2.5}`, "a whole number ≥ 0"},
		{"level 1", `{"sim":{"mean":1,"ci95":0,"samples":2,"level":1}}`, "in (0, 1)"},
		{"zero load", `{"load":0}`, "> 0"},
		{"correlation above 1", `{"correlation":{"mean":1.2,"ci95":0.1,"samples":8}}`, "in [−1, 1]"},
		{"sojourn below 1", `{"sojourn":0.99}`, "≥ 1 (the mean job size)"},
		{"simulated sojourn ≤ 0", `{"sojourn":{"mean":-1,"ci95":0.1,"samples":8}}`, "> 0 (a mean of times in system)"},
		{"servers not conserved", `{"busy":0.5,"tokens":[0.2,0.2]}`, "busy + Σ tokens = 1"},
		{"jobs not conserved", `{"scenario":"blocking","load":0.9,"blocking":0.3,"busy":0.54,"tokens":[0,0.46]}`, "blocking + carried = 1, carried = busy/λ"},
		{"jackson blocking not Σ α·P(none)", `{"command":"jackson","alpha":[0.7,0.3],"load":0.9,"rows":[{"blocking":0.4,"no_tokens":[0.5,0],"busy":0.54,"tokens":[0.2,0.26]}]}`, "blocking = Σ α_r·P(no token at r)"},
		{"shares not summing to 1", `{"alpha":[0.7,0.2]}`, "Σ = 1"},
		{"occupancy not summing to 1", `{"points":[{"t":1,"occupancy":[0.5,0.4]}]}`, "Σ = 1"},
		{"sojourn ≠ 1 + wait", `{"sojourn":2,"mean_wait":0.5}`, "sojourn = 1 + mean wait"},
		{"simulated delay ≥ time in system", `{"sojourn":{"mean":2,"ci95":0.1,"samples":8},"mean_delay":{"mean":2.5,"ci95":0.1,"samples":8}}`, "mean time in system > mean delay (sizes are positive)"},
		{"mean ≠ sojourn.mean", `{"mean":3,"sojourn":{"mean":2,"ci95":0.1,"samples":8}}`, "mean = sojourn.mean"},
		{"Little's law", `{"load":0.9,"sojourn":2.61406,"mean_queue":2.5}`, "Little's law: mean jobs = λ × mean time in system"},
		{"tail does not start at 1", `{"load":0.9,"tail":[0.9,0.9],"lost":0}`, "P(count ≥ 0) = 1"},
		{"tail increases", `{"load":0.9,"tail":[1,0.9,0.95],"lost":0}`, "P(count ≥ n) does not increase"},
		{"busy ≠ λ", `{"load":0.9,"tail":[1,0.8],"lost":0}`, "P(count ≥ 1) = λ (work conservation)"},
		{"scaled ≠ T(1−λ)²", `{"load":0.9,"rows":[{"period":289.93,"scaled":2.8}]}`, "scaled = period·(1 − λ)²"},
		{"phase mean outside its range", `{"phases":[{"sojourn":5,"min":6,"max":7}]}`, "min ≤ mean ≤ max"},
		{"more tipped than runs", `{"points":[{"tipped":17,"reps":16}]}`, "tipped ≤ reps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireViolation(t, quantity.CheckJSON([]byte(c.doc)), c.invariant)
		})
	}
}

// Check reads Go values as encoding/json would write them: tags,
// omitempty, embedded structs, pointers and nil.
func TestCheckGoValues(t *testing.T) {
	type inner struct {
		Blocking float64 `json:"blocking"`
	}
	type Header struct {
		Command string `json:"command"`
	}
	type doc struct {
		Header
		Load    float64  `json:"load"`
		Wait    *float64 `json:"mean_wait"`
		Skip    float64  `json:"-"`
		Omit    float64  `json:"board_mean,omitempty"`
		Rows    []inner  `json:"rows"`
		private float64
	}
	neg := -1.0
	good := doc{Header: Header{"x"}, Load: 0.5, Skip: -5, Rows: []inner{{0.2}}, private: -1}
	if err := quantity.Check(good); err != nil {
		t.Errorf("good document: %v", err)
	}
	if err := quantity.Check(&good); err != nil {
		t.Errorf("pointer to a good document: %v", err)
	}
	bad := good
	bad.Wait = &neg
	bad.Rows = []inner{{0.2}, {1.2}}
	var qe *quantity.Error
	if !errors.As(quantity.Check(bad), &qe) || len(qe.Violations) != 2 ||
		qe.Violations[0].Path != "mean_wait" || qe.Violations[1].Path != "rows[1].blocking" {
		t.Errorf("bad document: %v", quantity.Check(bad))
	}
	// encoding/json cannot write a NaN; the guard sees it in the Go value.
	requireViolation(t, quantity.Check(map[string]any{"a": map[string]any{"board_mean": math.NaN()}}), "a finite number")
	if err := quantity.CheckJSON([]byte(`{"a":`)); err == nil || errors.As(err, &qe) {
		t.Errorf("malformed JSON: %v", err)
	}
}
