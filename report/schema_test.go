package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/fluidlb/fluid/report"
)

var update = flag.Bool("update", false, "rewrite docs/schema from the report types")

// documents are the reports, by the schema file they are published as.
var documents = map[string]any{
	"edge":           report.Edge{},
	"map":            report.Map{},
	"trapdoor":       report.TrapDoor{},
	"jiq":            report.JIQ{},
	"jiq-trajectory": report.JIQTrajectory{},
	"jackson":        report.Jackson{},
	"meanfield":      report.Meanfield{},
	"sim":            report.Sim{},
	"validate":       report.Validate{},
	"sweep-status":   report.SweepStatus{},
	"version":        report.BuildInfo{},
	"refusal":        report.Refusal{},
}

// schema generates the JSON Schema of v: every field required and no
// others allowed (a renamed or dropped field breaks validation), pointers,
// slices and maps nullable (Go writes nil ones as null).
func schema(t *testing.T, name string, v any) []byte {
	r := &jsonschema.Reflector{}
	// Field comments become descriptions (paths relative to this
	// package's directory, where go test runs).
	for base, dir := range map[string]string{"github.com/fluidlb/fluid/report": "."} {
		if err := r.AddGoComments(base, dir); err != nil {
			t.Fatal(err)
		}
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://github.com/fluidlb/fluid/docs/schema/" + name + ".json")
	s.Title = "fluid " + strings.ReplaceAll(name, "-", " ") + " report"
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		def := s.Definitions[ty.Name()]
		for i := range ty.NumField() {
			f := ty.Field(i)
			walk(f.Type)
			if f.Anonymous || def == nil {
				continue
			}
			jname, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if jname == "" || jname == "-" {
				jname = f.Name
			}
			switch f.Type.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map:
			default:
				continue
			}
			if p, ok := def.Properties.Get(jname); ok {
				def.Properties.Set(jname, &jsonschema.Schema{Description: p.Description, OneOf: []*jsonschema.Schema{{Type: "null"}, p}})
				p.Description = ""
			}
		}
	}
	walk(reflect.TypeOf(v))
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestSchemaPublished checks that docs/schema holds the schemas of the
// report types as they are now; go test ./report -update rewrites them.
func TestSchemaPublished(t *testing.T) {
	for name, v := range documents {
		got := schema(t, name, v)
		path := filepath.Join("..", "docs", "schema", name+".json")
		if *update {
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, got, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./report -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go test ./report -update", path)
		}
	}
}
