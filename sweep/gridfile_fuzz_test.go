package sweep

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/lists"
)

// fuzzFlags are the flags of the command the fuzzed grid files are for.
var fuzzFlags = map[string]lists.Kind{
	"load": lists.Float, "servers": lists.Int, "k": lists.Int, "policy": lists.Word, "replacement": lists.Bool,
	"alpha": lists.FloatVector, "beta": lists.FloatVector, "queues": lists.IntVector,
}

func fuzzKind(name string) (lists.Kind, bool) {
	k, ok := fuzzFlags[name]
	return k, ok
}

var gridFileSeeds = []string{
	"",
	"{}",
	"command: jiq\ngrid:\n  load: 0.5..0.95:0.05\n",
	"grid:\n  load: 0.5..0.95:0.05\n  policy: [rr, \"jsqd:2\"]\n  servers: 10..100000*10\n",
	"points:\n  - {alpha: [0.7, 0.3], beta: [0.7, 0.3]}\n  - {alpha: \"0.6,0.4\", beta: \"0.6,0.4\"}\ngrid:\n  load: [0.5, 0.9]\n",
	"grid:\n  alpha: [[0.5, 0.5], \"0.7,0.3\"]\n  queues: \"1,2;3..5\"\n  replacement: [true, false]\n",
	"grid:\n  load: NaN\n", "grid:\n  load: .inf\n", "grid:\n  load: [.nan, 1]\n",
	"grid:\n  load: 0..1:0\n", "grid:\n  servers: 0..100000\n", "grid:\n  load: []\n",
	"grid: [1, 2]\n", "grid:\n  nope: 1\n", "points: {load: 1}\n", "points:\n  - 1\n",
	"points:\n  - {load: 1}\n  - {servers: 2}\n", "points:\n  - {load: 1, load: 2}\n",
	"points:\n  - {load: [1, 2]}\n", "points:\n  - {alpha: [[1]]}\n",
	"command: [x]\n", "other: 1\n", "- a\n- b\n", "a: &x 1\ngrid: *x\n",
	"grid:\n  load: &l [0.5, 0.6]\n  k: *l\n", "grid:\n  <<: {load: 1}\n",
	"grid:\n  load: 1\ngrid:\n  load: 2\n", "grid:\n  load: !!binary aGVsbG8=\n",
	"grid:\n  ? [a, b]\n  : 1\n", "\t\x00", "%YAML 1.1\n---\ngrid: {}\n", "---\n---\n",
	"grid:\n  load: 1\n---\ngrid: x\n", "{{{{{{{{", "[[[[[[[[[[", "grid: {load: '1e400'}\n",
	"grid:\n  alpha: \"" + strings.Repeat("1..10000;", 3) + "1\"\n",
	"points:\n" + strings.Repeat("  - {load: 1}\n", 3),
}

// ParseGridFile: no panic; an error names the grid file (and a line);
// every dimension and point holds valid values of its flag's kind that
// parse back to themselves, within lists.MaxValues and MaxTasks; a small grid
// expands into tasks whose manifest rebuilds the same sweep.
func FuzzParseGridFile(f *testing.F) {
	for _, s := range gridFileSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gf, err := ParseGridFile(data, fuzzKind)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "grid file") {
				t.Fatalf("error %q does not name the grid file", err)
			}
			return
		}
		if len(gf.Points) > MaxTasks {
			t.Fatalf("%d points", len(gf.Points))
		}
		for _, d := range gf.Dims {
			if k, ok := fuzzKind(d.Name); !ok || k != d.Kind || len(d.Values) == 0 || len(d.Values) > lists.MaxValues {
				t.Fatalf("dimension %s (%v) of %d values", d.Name, d.Kind, len(d.Values))
			}
			for _, v := range d.Values {
				checkValue(t, d.Kind, v)
			}
		}
		for _, p := range gf.Points {
			if len(p) != len(gf.Points[0]) {
				t.Fatalf("points over different flags: %v, %v", gf.Points[0], p)
			}
			for j, q := range p {
				k, ok := fuzzKind(q.Name)
				if !ok || q.Name != gf.Points[0][j].Name {
					t.Fatalf("point %v", p)
				}
				checkValue(t, k, q.Value)
			}
		}
		g := Grid{Command: "fake", Points: gf.Points, Dims: gf.Dims}
		if n, err := g.Size(); err != nil || n > 2000 {
			return // New's work is linear in the tasks: keep the fuzzer fast
		}
		seed := uint64(len(data))
		s, err := New(g, &seed)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sweep: ") {
				t.Fatalf("New: error %q", err)
			}
			return
		}
		checkSweep(t, s)
	})
}

// checkSweep checks a sweep's tasks and that its manifest rebuilds it.
func checkSweep(t *testing.T, s *Sweep) {
	t.Helper()
	n, _ := s.Grid.Size()
	if len(s.Tasks) != n {
		t.Fatalf("%d tasks, Size %d", len(s.Tasks), n)
	}
	cols := s.Grid.Columns()
	for i, task := range s.Tasks {
		if task.Index != i || len(task.Point) != len(cols) || task.ID != TaskID(s.Grid.Command, task.Point) {
			t.Fatalf("task %d: %+v", i, task)
		}
		if task.Args[0] != s.Grid.Command || len(task.Args) != 1+len(cols)+btoi(s.Seed != nil) {
			t.Fatalf("task %d: args %q", i, task.Args)
		}
		for j, q := range task.Point {
			if q.Name != cols[j].Name || task.Args[1+j] != "--"+q.Name+"="+q.Value.String() {
				t.Fatalf("task %d: %v, args %q", i, task.Point, task.Args)
			}
		}
	}
	_ = s.Describe()
	b, err := json.Marshal(s.manifest())
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeManifest(b)
	if err != nil {
		t.Fatalf("the manifest %s does not read back: %v", b, err)
	}
	if !bytes.Equal(back.manifest().definition(), s.manifest().definition()) || len(back.Tasks) != len(s.Tasks) {
		t.Fatalf("the manifest %s reads back as another sweep", b)
	}
	for i := range s.Tasks {
		if back.Tasks[i].ID != s.Tasks[i].ID || strings.Join(back.Tasks[i].Args, " ") != strings.Join(s.Tasks[i].Args, " ") {
			t.Fatalf("task %d reads back as %v, want %v", i, back.Tasks[i].Args, s.Tasks[i].Args)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A few bytes of grid cannot ask for gigabytes: a vector of 10,000
// entries in each of 100,000 tasks is refused before any task is made.
func TestGridArgBytes(t *testing.T) {
	gf, err := ParseGridFile([]byte("grid:\n  alpha: 1..10000\n  servers: 1..10000\n  k: 1..10\n"), fuzzKind)
	if err != nil {
		t.Fatal(err)
	}
	g := Grid{Command: "jiq", Dims: gf.Dims}
	if _, err := g.Size(); err == nil || !strings.Contains(err.Error(), "command lines total") {
		t.Errorf("Size: %v, want an error about the command lines' length", err)
	}
	if _, err := New(g, nil); err == nil {
		t.Error("New: no error")
	}
	// The same grid with short values is fine.
	gf, err = ParseGridFile([]byte("grid:\n  alpha: \"0.5,0.5\"\n  servers: 1..10000\n  k: 1..10\n"), fuzzKind)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := (&Grid{Command: "jiq", Dims: gf.Dims}).Size(); err != nil || n != 100_000 {
		t.Errorf("Size = %d, %v", n, err)
	}
}

// checkValue checks that a value of kind k is in canonical form: its text
// trimmed and non-empty, and parsing it back gives the same value.
func checkValue(t *testing.T, k lists.Kind, v lists.Value) {
	t.Helper()
	if v.Kind() != k || v.String() == "" || strings.TrimSpace(v.String()) != v.String() {
		t.Fatalf("%v value %+v", k, v)
	}
	back, err := lists.ParseValue(k, v.String())
	if err != nil || back.String() != v.String() || back.Kind() != k || !slices.Equal(back.Vector(), v.Vector()) {
		t.Fatalf("%v %q parses back to %+v, %v", k, v, back, err)
	}
}
