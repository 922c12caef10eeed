package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fluidlb/fluid/quantity"
)

// allCommands is every command under root, root included.
func allCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		out = append(out, allCommands(c)...)
	}
	return out
}

// TestOneVocabulary walks every command's flags: a flag that reads a
// shared input (quantity.Concepts) has the concept's name, one-letter
// synonym, definition and unit, and no other flag claims the concept's
// label or synonym.
func TestOneVocabulary(t *testing.T) {
	seen := map[string]int{}
	for _, cmd := range allCommands(newRoot()) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			name := cmd.CommandPath() + " --" + f.Name
			c, isConcept := quantity.ConceptOf(f.Name)
			if isConcept {
				seen[f.Name]++
				if !strings.Contains(f.Usage, c.Usage()) {
					t.Errorf("%s: usage %q does not state the concept as %q", name, f.Usage, c.Usage())
				}
				if f.Shorthand != c.Short {
					t.Errorf("%s: synonym -%s, want %q", name, f.Shorthand, c.Short)
				}
				return
			}
			for _, c := range quantity.Concepts {
				q, _ := quantity.Lookup(c.Quantity)
				if strings.HasPrefix(f.Usage, q.Label) {
					t.Errorf("%s: usage %q names the concept %q, which is --%s", name, f.Usage, q.Label, c.Flag)
				}
				if c.Short != "" && f.Shorthand == c.Short {
					t.Errorf("%s: synonym -%s belongs to --%s", name, f.Shorthand, c.Flag)
				}
			}
		})
	}
	for _, c := range quantity.Concepts {
		if seen[c.Flag] == 0 {
			t.Errorf("concept --%s is read by no command", c.Flag)
		}
	}
}

// TestCSVHeadersDeclared runs every command that writes CSV on a small
// input and holds each column of its header to the declared quantities:
// a column is a JSON field name, nested fields joined by dots and array
// elements numbered (tokens.1 is dispatcher 1's).
func TestCSVHeadersDeclared(t *testing.T) {
	for _, args := range outputCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if err := run(append(args, "--csv"), &out, &errb); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			header, err := csv.NewReader(&out).Read()
			if err != nil {
				t.Fatalf("no CSV header: %v", err)
			}
			for _, col := range header {
				for _, part := range strings.Split(col, ".") {
					if isIndex(part) {
						continue
					}
					if _, ok := quantity.Lookup(part); !ok {
						t.Errorf("column %q: %q is not a declared quantity", col, part)
					}
				}
			}
		})
	}
}

// TestJSONKeysDeclared runs the same commands with --json: every key of
// every document is a declared quantity.
func TestJSONKeysDeclared(t *testing.T) {
	for _, args := range append(outputCases, []string{"version"}) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if err := run(append(args, "--json"), &out, &errb); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			var doc any
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			var walk func(path string, v any)
			walk = func(path string, v any) {
				switch x := v.(type) {
				case map[string]any:
					for k, e := range x {
						if _, ok := quantity.Lookup(k); !ok {
							t.Errorf("%s.%s: not a declared quantity", path, k)
						}
						walk(path+"."+k, e)
					}
				case []any:
					for _, e := range x {
						walk(path+"[]", e)
					}
				}
			}
			walk("", doc)
		})
	}
}

// outputCases are small runs of every command that writes JSON and CSV.
var outputCases = [][]string{
	{"jiq"},
	{"jiq", "--scenario", "queueing", "--load", "0.5"},
	{"jiq", "--trajectory", "--until", "1"},
	{"jiq", "--trajectory", "--scenario", "queueing", "--load", "0.5", "--until", "1"},
	{"jackson", "--servers", "10,100"},
	{"map", "--period", "100", "-k", "3"},
	{"edge", "-k", "3"},
	{"sim", "--load", "0.5", "--jobs", "2000", "--reps", "2", "--transient"},
	{"meanfield"},
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// TestSweepOffersNoOutputFlags: a sweep runs each task with --json and
// stores that; a sweep subcommand offering --csv (or --json) lets every
// task fail.
func TestSweepOffersNoOutputFlags(t *testing.T) {
	for _, cmd := range allCommands(newRoot()) {
		if cmd.Parent() == nil || cmd.Parent().Name() != "sweep" || !strings.Contains(cmd.Use, "--out DIR") {
			continue
		}
		for _, name := range []string{"csv", "json"} {
			if cmd.Flags().Lookup(name) != nil {
				t.Errorf("%s offers --%s", cmd.CommandPath(), name)
			}
		}
	}
}

// TestDispatchersCounted: a JIQ simulation's dispatchers are its shares,
// and the text counts them as such (it said "k = 1" for three shares).
func TestDispatchersCounted(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"sim", "--policy", "jiq-blocking", "--alpha", "0.5,0.3,0.2", "--load", "0.5", "--jobs", "2000", "--reps", "2", "--transient"}
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), ", 3 dispatchers,") {
		t.Errorf("fluid %s:\n%s", strings.Join(args, " "), out.String())
	}
}
