package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/table"
)

func mustList(t *testing.T, name string, k lists.Kind, s string) Dim {
	t.Helper()
	vs, err := lists.Parse(name, k, s)
	if err != nil {
		t.Fatal(err)
	}
	return Dim{Name: name, Kind: k, Values: vs}
}

// testGrid is 3 loads × 2 k × 2 policies, one of them failing at λ ≥ 1.
func testGrid(t *testing.T) Grid {
	return Grid{Command: "fake", Dims: []Dim{
		mustList(t, "load", lists.Float, "0.5..1:0.25"),
		mustList(t, "k", lists.Int, "2,3"),
		mustList(t, "policy", lists.Word, "rr,jsqd:2"),
	}}
}

// fakeExec computes a result from the point, as a command would: scalars,
// a nested object, an array, a timing, a null; it fails at load ≥ 1.
func fakeExec(t *Task) (json.RawMessage, error) {
	load, _ := t.Point.Get("load")
	k, _ := t.Point.Get("k")
	if load.Float() >= 1 {
		return nil, fmt.Errorf("invalid --load: λ = %s, want < 1", load)
	}
	seed := uint64(0)
	if t.Seed != nil {
		seed = *t.Seed % 1000
	}
	return json.RawMessage(fmt.Sprintf(`{"load": %s, "value": %s, "count": %d, "est": {"mean": %s, "ci95": 0.5}, "series": [1, 2], "seconds": 0.123, "none": null, "ok": true, "seed": %d}`,
		load, lists.FormatFloat(load.Float()*float64(k.Int())), k.Int()*10, lists.FormatFloat(load.Float()/3), seed)), nil
}

func runAll(t *testing.T, s *Sweep, dir string, shards int) {
	t.Helper()
	if err := s.Start(dir); err != nil {
		t.Fatal(err)
	}
	for i := range shards {
		if _, err := s.Run(dir, RunOptions{Shard: Shard{i, shards}, Exec: fakeExec}); err != nil {
			t.Fatal(err)
		}
	}
}

func merged(t *testing.T, dir string, format string) []byte {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := res.Table(TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tab.Write(&b, format); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTaskIDs(t *testing.T) {
	s, err := New(testGrid(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 12 {
		t.Fatalf("%d tasks", len(s.Tasks))
	}
	// Grid order: the first dimension varies slowest.
	if got := s.Tasks[1].Point.String(); got != "load=0.5 k=2 policy=jsqd:2" {
		t.Errorf("task 1: %s", got)
	}
	if got := s.Tasks[11].Point.String(); got != "load=1 k=3 policy=jsqd:2" {
		t.Errorf("task 11: %s", got)
	}
	// Ids depend on the point only: not on flag order, not on the grid
	// around it, and are stable across versions (a golden value).
	g := testGrid(t)
	g.Dims[0], g.Dims[2] = g.Dims[2], g.Dims[0]
	g.Dims[1].Values = g.Dims[1].Values[1:]
	s2, err := New(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, tk := range s.Tasks {
		ids[tk.ID] = tk.Point.String()
	}
	for _, tk := range s2.Tasks {
		if _, ok := ids[tk.ID]; !ok {
			t.Errorf("task %s (%s) has another id when the flags come in another order", tk.ID, tk.Point)
		}
	}
	if id := s.Tasks[0].ID; id != TaskID("fake", Point{{"k", mustValue(t, lists.Int, "2")}, {"policy", mustValue(t, lists.Word, "rr")}, {"load", mustValue(t, lists.Float, "0.5")}}) || id != "c7e4b39df1c1fa63" {
		t.Errorf("id of the first task: %s", id)
	}
	if TaskSeed(1, "c7e4b39df1c1fa63") != 7976832355055131 || TaskSeed(1, "a") == TaskSeed(2, "a") || TaskSeed(1, "a") == TaskSeed(1, "b") || TaskSeed(9, "x") >= 1<<53 {
		t.Error("task seeds must be a function of the sweep seed and the id")
	}
	// Args: the command line of the point, with the derived seed.
	seed := uint64(7)
	s3, err := New(testGrid(t), &seed)
	if err != nil {
		t.Fatal(err)
	}
	tk := s3.Tasks[2]
	want := []string{"fake", "--load=0.5", "--k=3", "--policy=rr", fmt.Sprintf("--seed=%d", TaskSeed(7, tk.ID))}
	if !reflect.DeepEqual(tk.Args, want) || *tk.Seed != TaskSeed(7, tk.ID) {
		t.Errorf("args %q, want %q", tk.Args, want)
	}
}

func TestGridErrors(t *testing.T) {
	dup := testGrid(t)
	dup.Dims = append(dup.Dims, mustList(t, "load", lists.Float, "0.3"))
	twice := testGrid(t)
	twice.Dims[1] = mustList(t, "k", lists.Int, "2,2")
	huge := Grid{Command: "x", Dims: []Dim{mustList(t, "a", lists.Int, "1..1000"), mustList(t, "b", lists.Int, "1..1000")}}
	pts := Grid{Command: "x", Points: []Point{{{"a", mustValue(t, lists.Int, "1")}}, {{"b", mustValue(t, lists.Int, "1")}}}}
	same := Grid{Command: "x", Points: []Point{{{"a", mustValue(t, lists.Int, "1")}}, {{"a", mustValue(t, lists.Int, "1")}}}}
	for _, c := range []struct {
		g    Grid
		want string
	}{
		{dup, "--load is given twice"},
		{twice, "--k: value 2 is given twice"},
		{huge, "more than 100000 tasks"},
		{pts, "every point must set the same flags"},
		{same, "grid points 1 and 2 are the same"},
		{Grid{Command: ""}, "invalid command"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if _, err := New(c.g, nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// Unsharded, 2 and 4 shards give byte-identical tables in every format.
func TestShardsMergeIdentically(t *testing.T) {
	seed := uint64(3)
	var want map[string][]byte
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			s, err := New(testGrid(t), &seed)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			runAll(t, s, dir, n)
			got := map[string][]byte{}
			for _, f := range []string{table.CSV, table.JSONL, table.Parquet} {
				got[f] = merged(t, dir, f)
			}
			if want == nil {
				want = got
				return
			}
			for f := range got {
				if !bytes.Equal(got[f], want[f]) {
					t.Errorf("%d shards: the %s table differs from the unsharded one:\n%s\n%s", n, f, got[f], want[f])
				}
			}
		})
	}
	// Tasks run at once: the same table.
	s, _ := New(testGrid(t), &seed)
	dir := t.TempDir()
	if err := s.Start(dir); err != nil {
		t.Fatal(err)
	}
	if sum, err := s.Run(dir, RunOptions{Run: outcome.Run{Workers: 5}, Exec: fakeExec}); err != nil || sum.Ran != 12 || sum.Failed != 4 {
		t.Fatalf("%+v %v", sum, err)
	}
	if got := merged(t, dir, table.CSV); !bytes.Equal(got, want[table.CSV]) {
		t.Errorf("parallel run:\n%s", got)
	}
	csv := string(want[table.CSV])
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 13 {
		t.Fatalf("%d lines:\n%s", len(lines), csv)
	}
	// Grid columns first, then the result's scalars in order (nested with
	// dots; no arrays, nulls, timings or echo of the grid), then the task.
	if lines[0] != "load,k,policy,value,count,est.mean,est.ci95,ok,seed,task_status,task_error" {
		t.Errorf("header %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], "0.5,2,rr,1,20,0.16666666666666666,0.5,true,") || !strings.HasSuffix(lines[12], `,,,,,,,failed,"invalid --load: λ = 1, want < 1"`) {
		t.Errorf("rows:\n%s", csv)
	}
}

func TestResumeAcrossShardings(t *testing.T) {
	s, err := New(testGrid(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	runAll(t, s, ref, 1)
	dir := t.TempDir()
	if err := s.Start(dir); err != nil {
		t.Fatal(err)
	}
	// Shard 1/4 runs two tasks and stops; shard 3/4 finishes.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	sum, err := s.Run(dir, RunOptions{Shard: Shard{1, 4}, Run: outcome.Run{Context: ctx}, Exec: func(tk *Task) (json.RawMessage, error) {
		if calls++; calls == 2 {
			cancel()
		}
		return fakeExec(tk)
	}})
	if err != nil || sum.Status != outcome.Interrupted || sum.Ran != 2 || sum.Counts.Remaining != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	if _, err := s.Run(dir, RunOptions{Shard: Shard{3, 4}, Exec: fakeExec}); err != nil {
		t.Fatal(err)
	}
	// A crash in the middle of a line of shard 1/4.
	f, err := os.OpenFile(filepath.Join(dir, "shard-01-of-04.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"0123","point":{"lo`)
	f.Close()
	res, err := s.Load(dir)
	if err != nil || len(res.Records) != 5 || !res.Files[0].Partial {
		t.Fatalf("%v records, files %+v, %v", len(res.Records), res.Files, err)
	}
	// Resume unsharded: only the 7 others run.
	ran := 0
	sum, err = s.Run(dir, RunOptions{Exec: func(tk *Task) (json.RawMessage, error) { ran++; return fakeExec(tk) }})
	if err != nil || ran != 7 || sum.Before != 5 || sum.Counts.Failed != 4 || sum.Counts.Remaining != 0 {
		t.Fatalf("ran %d, %+v, %v", ran, sum, err)
	}
	if got, want := merged(t, dir, table.CSV), merged(t, ref, table.CSV); !bytes.Equal(got, want) {
		t.Errorf("resumed table differs:\n%s\n%s", got, want)
	}
	// Rerunning shard 1/4 cuts its partial line; failed tasks are left
	// alone unless retried, and a retry that succeeds replaces them.
	if _, err := s.Run(dir, RunOptions{Shard: Shard{1, 4}, Exec: fakeExec}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "shard-01-of-04.jsonl"))
	if !bytes.HasSuffix(b, []byte("}\n")) {
		t.Errorf("partial line not cut: %q", b[len(b)-20:])
	}
	sum, err = s.Run(dir, RunOptions{RetryFailed: true, Exec: func(tk *Task) (json.RawMessage, error) {
		return json.RawMessage(`{"value": 0}`), nil
	}})
	if err != nil || sum.Ran != 4 || sum.Counts.Failed != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	res, err = s.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := res.Table(TableOptions{Timings: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 12 || tab.Index("task_error") >= 0 || tab.Index("seconds") < 0 || tab.Index("task_seconds") < 0 {
		t.Errorf("%d rows, columns %v", len(tab.Rows), tab.Columns)
	}
}

func TestManifest(t *testing.T) {
	s, err := New(testGrid(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Start(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(dir); err != nil {
		t.Fatalf("the same sweep again: %v", err)
	}
	o, err := Open(dir)
	if err != nil || len(o.Tasks) != 12 || o.Tasks[5].ID != s.Tasks[5].ID {
		t.Fatalf("%v", err)
	}
	g := testGrid(t)
	g.Dims[0] = mustList(t, "load", lists.Float, "0.5..1:0.5")
	other, _ := New(g, nil)
	var me *MismatchError
	if err := other.Start(dir); !errors.As(err, &me) || !strings.Contains(err.Error(), "holds another sweep") {
		t.Errorf("another grid into the same directory: %v", err)
	}
	seed := uint64(1)
	seeded, _ := New(testGrid(t), &seed)
	if err := seeded.Start(dir); !errors.As(err, &me) {
		t.Errorf("another seed: %v", err)
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNoSweep) {
		t.Errorf("empty directory: %v", err)
	}
}

func TestShardFileIsLocked(t *testing.T) {
	dir := t.TempDir()
	w, err := openShard(dir, Shard{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	if _, err := openShard(dir, Shard{0, 2}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second writer of shard 0/2: %v", err)
	}
	if w2, err := openShard(dir, Shard{1, 2}); err != nil {
		t.Errorf("shard 1/2: %v", err)
	} else {
		w2.close()
	}
}

func TestShards(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		file string
	}{{"0/1", Shard{0, 1}, "shard-00-of-01.jsonl"}, {"3/4", Shard{3, 4}, "shard-03-of-04.jsonl"}, {"7/120", Shard{7, 120}, "shard-007-of-120.jsonl"}} {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseShard(c.in)
			if err != nil || s != c.want || s.FileName() != c.file {
				t.Errorf("%q: %v %v %s", c.in, s, err, s.FileName())
			}
			if back, ok := shardOfFile(c.file); !ok || back != c.want {
				t.Errorf("%s: %v", c.file, back)
			}
		})
	}
	for _, in := range []string{"", "1", "4/4", "-1/4", "0/0", "a/b", "1/200000"} {
		t.Run("refuses "+strconv.Quote(in), func(t *testing.T) {
			if _, err := ParseShard(in); err == nil {
				t.Errorf("%q accepted", in)
			}
		})
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		env  func(string) string
		want Shard
		err  string
	}{
		{env(), Unsharded, ""},
		{env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{2, 4}, ""},
		{env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "4"), Shard{2, 4}, ""},
		{env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "5"), Shard{}, "not a contiguous range"},
		{env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{}, "not an integer"},
		{env("JOB_COMPLETION_INDEX", "1", "JOB_COMPLETIONS", "4"), Shard{1, 4}, ""},
		{env("JOB_COMPLETION_INDEX", "1"), Shard{}, "JOB_COMPLETIONS"},
		{env("JOB_COMPLETION_INDEX", "4", "JOB_COMPLETIONS", "4"), Shard{}, "not a shard"},
	} {
		t.Run(fmt.Sprintf("%v %q", c.want, c.err), func(t *testing.T) {
			s, _, err := ShardFromEnv(c.env)
			if (c.err == "" && (err != nil || s != c.want)) || (c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err))) {
				t.Errorf("%v %v, want %v %q", s, err, c.want, c.err)
			}
		})
	}
}

func TestTableRowsAndVectors(t *testing.T) {
	vec := mustList(t, "alpha", lists.FloatVector, "0.7,0.3;0.5,0.3,0.2")
	g := Grid{Command: "fake", Dims: []Dim{vec, mustList(t, "servers", lists.Int, "10,100")}}
	s, err := New(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Start(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(dir, RunOptions{Exec: func(tk *Task) (json.RawMessage, error) {
		n, _ := tk.Point.Get("servers")
		return json.RawMessage(fmt.Sprintf(`{"limit": 0.25, "rows": [{"servers": %d, "blocking": 0.5, "n": 1}, {"servers": %d, "blocking": 0.25, "n": 2}]}`, n.Int(), n.Int())), nil
	}}); err != nil {
		t.Fatal(err)
	}
	got := string(merged(t, dir, table.CSV))
	want := `alpha,alpha.1,alpha.2,alpha.3,servers,limit,blocking,n,task_status
"0.7,0.3",0.7,0.3,,10,0.25,0.5,1,ok
"0.7,0.3",0.7,0.3,,10,0.25,0.25,2,ok
"0.7,0.3",0.7,0.3,,100,0.25,0.5,1,ok
"0.7,0.3",0.7,0.3,,100,0.25,0.25,2,ok
"0.5,0.3,0.2",0.5,0.3,0.2,10,0.25,0.5,1,ok
"0.5,0.3,0.2",0.5,0.3,0.2,10,0.25,0.25,2,ok
"0.5,0.3,0.2",0.5,0.3,0.2,100,0.25,0.5,1,ok
"0.5,0.3,0.2",0.5,0.3,0.2,100,0.25,0.25,2,ok
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Tables read back from every format with their types.
func TestReadTable(t *testing.T) {
	seed := uint64(3)
	s, err := New(testGrid(t), &seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runAll(t, s, dir, 1)
	res, err := s.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := res.Table(TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]table.Type{"load": table.Float64, "k": table.Int64, "policy": table.String, "value": table.Float64, "count": table.Int64,
		"est.mean": table.Float64, "est.ci95": table.Float64, "ok": table.Boolean, "seed": table.Int64, "task_status": table.String, "task_error": table.String}
	for _, f := range []string{"t.csv", "t.jsonl", "t.parquet"} {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join(dir, f)
			if err := tab.WriteFile(path); err != nil {
				t.Fatal(err)
			}
			back, err := table.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(back.Columns) != len(tab.Columns) || len(back.Rows) != len(tab.Rows) {
				t.Fatalf("%s: %d columns, %d rows", f, len(back.Columns), len(back.Rows))
			}
			for i, c := range back.Columns {
				if c.Name != tab.Columns[i].Name || c.Type != wantTypes[c.Name] {
					t.Errorf("%s: column %d %s %v, want %s %v", f, i, c.Name, c.Type, tab.Columns[i].Name, wantTypes[c.Name])
				}
			}
			if !reflect.DeepEqual(back.Rows, tab.Rows) {
				t.Errorf("%s: rows differ:\n%v\n%v", f, back.Rows[0], tab.Rows[0])
			}
		})
	}
	if _, err := table.FormatOf("x.xlsx"); err == nil {
		t.Error("xlsx accepted")
	}
}

func TestGridFile(t *testing.T) {
	kinds := map[string]lists.Kind{"load": lists.Float, "alpha": lists.FloatVector, "beta": lists.FloatVector, "scenario": lists.Word, "servers": lists.Int}
	kind := func(n string) (lists.Kind, bool) { k, ok := kinds[n]; return k, ok }
	gf, err := ParseGridFile([]byte(`
command: jiq
grid:
  load: 0.50..0.60:0.05
  scenario: [blocking, queueing]
  servers: [10, 20..40:10]
points:
  - {alpha: [0.7, 0.3], beta: "0.7,0.3"}
  - {beta: [0.6, 0.4], alpha: [0.6, 0.4]}
`), kind)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Grid{Command: gf.Command, Points: gf.Points, Dims: gf.Dims}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gf.Command != "jiq" || len(s.Tasks) != 2*3*2*4 {
		t.Fatalf("%q, %d tasks", gf.Command, len(s.Tasks))
	}
	if got := s.Tasks[len(s.Tasks)-1].Point.String(); got != "alpha=0.6,0.4 beta=0.6,0.4 load=0.6 scenario=queueing servers=40" {
		t.Errorf("last point %s", got)
	}
	vec, _ := lists.Parse("alpha", lists.FloatVector, "0.7,0.3;0.6,0.4")
	gf2, err := ParseGridFile([]byte("grid:\n  alpha: [[0.7, 0.3], \"0.6,0.4\"]\n"), kind)
	if err != nil || len(gf2.Dims) != 1 || texts(gf2.Dims[0].Values) != texts(vec) {
		t.Errorf("vector list: %+v %v", gf2, err)
	}
	for _, c := range []struct{ in, want string }{
		{"grid: [1, 2]", "line 1: grid: want a mapping"},
		{"grid:\n  nope: 1", "line 2: unknown flag --nope"},
		{"grid:\n  load: 0.9..0.5", "line 2: invalid --load"},
		{"points:\n  - {load: 0.5}\n  - {alpha: [0.5, 0.5]}", "line 3: every point must set the same flags"},
		{"points:\n  - {load: [0.5, 0.6]}", "a point takes one value"},
		{"colour: red", "unknown key"},
		{"grid: {load: [", "grid file:"},
	} {
		t.Run(strconv.Quote(c.in), func(t *testing.T) {
			if _, err := ParseGridFile([]byte(c.in), kind); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: %v, want %q", c.in, err, c.want)
			}
		})
	}
}

// texts joins the values' texts with "|".
func texts(vs []lists.Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.String())
	}
	return strings.Join(s, "|")
}
