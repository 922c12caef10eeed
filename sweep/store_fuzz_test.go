package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/table"
)

// fuzzSweep is the sweep whose shard files FuzzShardFile reads: 2 loads
// × 2 policies × 2 alphas, with a seed.
func fuzzSweep(t testing.TB) *Sweep {
	seed := uint64(7)
	g := Grid{Command: "fake", Dims: []Dim{
		{Name: "load", Kind: lists.Float, Values: []lists.Value{mustValue(t, lists.Float, "0.5"), mustValue(t, lists.Float, "0.9")}},
		{Name: "policy", Kind: lists.Word, Values: []lists.Value{mustValue(t, lists.Word, "rr"), mustValue(t, lists.Word, "jsqd:2")}},
	}}
	alpha, err := lists.Parse("alpha", lists.IntVector, "1,2;3,4,5")
	if err != nil {
		t.Fatal(err)
	}
	g.Dims = append(g.Dims, Dim{Name: "alpha", Kind: lists.IntVector, Values: alpha})
	s, err := New(g, &seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// shardFileSeeds are shard files: records as the runner writes them,
// then damaged ones.
func shardFileSeeds(t testing.TB) []string {
	s := fuzzSweep(t)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, task := range s.Tasks {
		r := &Record{ID: task.ID, Point: task.Point, Args: task.Args, Seed: task.Seed, State: OK, Seconds: 0.25,
			Result: json.RawMessage(fmt.Sprintf(`{"schema_version":1,"command":"fake","sojourn":{"mean":%d.5,"ci95":0.1},"rows":[{"n":%d,"x":"a"},{"n":2}],"ok":true,"none":null,"seconds":1}`, i, i))}
		if i%3 == 2 {
			r.State, r.Error, r.Result = Failed, "invalid --load", nil
		}
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	good := b.String()
	lines := strings.SplitAfter(good, "\n")
	return []string{
		good,
		lines[0],
		lines[0] + lines[1][:len(lines[1])/2], // a crash in the middle of a write
		"",
		"\n",
		"{}\n",
		"null\n",
		"[]\n",
		`{"id":"x","status":"ok"}` + "\n",
		`{"id":"x","status":"maybe"}` + "\n",
		`{"id":"","status":"ok"}` + "\n",
		`{"id":"x","status":"ok","point":[1]}` + "\n",
		`{"id":"x","status":"ok","point":{"a":1e400}}` + "\n",
		`{"id":"x","status":"ok","point":{"a":{"b":1}}}` + "\n",
		`{"id":"x","status":"ok","point":{"a":1,"a":"b","c":true,"d":-0,"e":0.0,"f":1e-7}}` + "\n",
		`{"id":"x","status":"ok","seed":-1}` + "\n",
		`{"id":"x","status":"ok","result":[1,2]}` + "\n",
		`{"id":"x","status":"ok","result":{"task_status":1,"load":"x","alpha.1":2,"":3,"a,b":4,"rows":[1,{"rows":2}]}}` + "\n",
		strings.Replace(lines[0], `"result":{`, `"result":{"task_error":"x","task_seconds":"y","seconds":[],`, 1),
		strings.Replace(lines[0], `"status":"ok"`, `"status":"failed"`, 1) + lines[0],
		lines[0] + strings.Replace(lines[0], `"status":"ok"`, `"status":"failed"`, 1),
		strings.Replace(lines[0], `"sojourn":{"mean":0.5`, `"sojourn":{"mean":"x"`, 1) + lines[1],
		strings.Replace(lines[0], `"n":0`, `"n":1e999`, 1),
		strings.Replace(lines[0], `"n":0`, `"n":123456789012345678901234567890`, 1),
		"\xff\xfe\n",
		`{"id":"x","status":"ok","result":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n",
	}
}

// A shard file, however damaged, loads or is an error: never a panic.
// Loaded records are counted right (a trailing partial line ignored),
// each has an ID and a status, its point reads back as written, and the
// table of the results has a cell of the column's type in every column
// of every row, and writes in every format; table.CSV and JSON Lines read back
// with the same shape.
func FuzzShardFile(f *testing.F) {
	for _, s := range shardFileSeeds(f) {
		f.Add([]byte(s), false)
	}
	s := fuzzSweep(f)
	f.Fuzz(func(t *testing.T, data []byte, timings bool) {
		// As Load does for each file, without the file system (which would
		// slow the fuzzer down).
		name := Unsharded.FileName()
		ld := s.newLoader()
		var got []*Record
		st := FileStat{Name: name, Shard: Unsharded}
		add := ld.add(&st)
		err := scanRecords(bytes.NewReader(data), name, &st, func(r *Record) { got = append(got, r); add(r) })
		if err != nil {
			if !strings.Contains(err.Error(), name+":") || !strings.Contains(err.Error(), "not a task record") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		res := ld.res
		res.Files = append(res.Files, st)
		lines := bytes.Count(data, []byte("\n"))
		partial := len(data) > 0 && data[len(data)-1] != '\n'
		if st.Lines != lines || st.Lines != len(got) || st.OK+st.Failed != st.Lines || st.Partial != partial {
			t.Fatalf("%d lines (partial %v) read as %+v", lines, partial, st)
		}
		if len(res.Files) != 1 || res.Files[0].Lines != st.Lines || res.Files[0].Unknown+len(res.Records) > st.Lines {
			t.Fatalf("Load: %+v, %d records", res.Files, len(res.Records))
		}
		for _, r := range got {
			if r.ID == "" || (r.State != OK && r.State != Failed) {
				t.Fatalf("record %+v", r)
			}
			b1, err := json.Marshal(r.Point)
			if err != nil {
				t.Fatalf("point %v: %v", r.Point, err)
			}
			var p Point
			if err := json.Unmarshal(b1, &p); err != nil {
				t.Fatalf("point %s does not read back: %v", b1, err)
			}
			if b2, _ := json.Marshal(p); !bytes.Equal(b1, b2) {
				t.Fatalf("point %s reads back as %s", b1, b2)
			}
		}
		c := res.Count(Unsharded)
		if c.Tasks != len(s.Tasks) || c.OK+c.Failed+c.Remaining != c.Tasks || c.OK+c.Failed != len(res.Records) {
			t.Fatalf("counts %+v for %d records", c, len(res.Records))
		}
		tab, err := res.Table(TableOptions{Timings: timings})
		if err != nil {
			return
		}
		checkTable(t, tab)
	})
}

// checkTable checks a results table's cells against its columns and
// writes it in every format (package table's FuzzRead reads every format
// back).
func checkTable(t *testing.T, tab *table.Table) {
	t.Helper()
	for i, row := range tab.Rows {
		if len(row) != len(tab.Columns) {
			t.Fatalf("row %d has %d cells for %d columns", i, len(row), len(tab.Columns))
		}
		for j, cell := range row {
			ok := true
			switch cell.(type) {
			case nil:
			case int64:
				ok = tab.Columns[j].Type == table.Int64
			case float64:
				ok = tab.Columns[j].Type == table.Float64
			case bool:
				ok = tab.Columns[j].Type == table.Boolean
			case string:
				ok = tab.Columns[j].Type == table.String
			default:
				ok = false
			}
			if !ok {
				t.Fatalf("row %d, column %q (%v): cell %#v", i, tab.Columns[j].Name, tab.Columns[j].Type, cell)
			}
		}
	}
	for _, format := range []string{table.CSV, table.JSONL} {
		if err := tab.Write(io.Discard, format); err != nil {
			t.Fatalf("writing %s: %v", format, err)
		}
	}
}

// A manifest (sweep.json), however damaged, rebuilds a sweep or is an
// error: never a panic. A sweep rebuilt writes a manifest that rebuilds
// it again, and its difference from another sweep can be told.
func FuzzManifest(f *testing.F) {
	s := fuzzSweep(f)
	good, err := json.MarshalIndent(s.manifest(), "", "  ")
	if err != nil {
		f.Fatal(err)
	}
	pts := Grid{Command: "jiq", Points: []Point{
		{{"alpha", mustValue(f, lists.FloatVector, "0.7,0.3")}, {"scenario", mustValue(f, lists.Word, "blocking")}},
		{{"alpha", mustValue(f, lists.FloatVector, "0.6,0.4")}, {"scenario", mustValue(f, lists.Word, "queueing")}},
	}, Dims: []Dim{{Name: "load", Kind: lists.Float, Values: []lists.Value{mustValue(f, lists.Float, "0.5")}}}}
	ps, err := New(pts, nil)
	if err != nil {
		f.Fatal(err)
	}
	withPoints, _ := json.Marshal(ps.manifest())
	for _, m := range []string{
		string(good), string(withPoints), "", "{}", "null", "[]", `{"format":1}`,
		`{"format":1,"command":"x","dims":[],"tasks":1}`,
		`{"format":1,"command":"x","dims":[{"name":"a","kind":"float","values":["0.50","5e-1"]}],"tasks":2}`,
		`{"format":1,"command":"x","dims":[{"name":"a","kind":"float","values":["NaN"]}],"tasks":1}`,
		`{"format":1,"command":"x","dims":[{"name":"a","kind":"float","values":[]}],"tasks":0}`,
		`{"format":1,"command":"x","dims":[{"name":"a","kind":"nope","values":["1"]}],"tasks":1}`,
		`{"format":1,"command":"x","dims":[{"name":"a","kind":"int","values":["1"]},{"name":"a","kind":"int","values":["2"]}],"tasks":1}`,
		`{"format":1,"command":"x","point_columns":[{"name":"a","kind":"int"}],"points":[["1"],["1","2"]],"dims":[],"tasks":2}`,
		`{"format":1,"command":"x","point_columns":[{"name":"a","kind":"int"}],"points":[["1"],["1"]],"dims":[],"tasks":2}`,
		`{"format":1,"command":"x","point_columns":[{"name":"a","kind":"int"}],"dims":[],"tasks":1}`,
		`{"format":1,"command":"a b","dims":[],"tasks":1}`,
		`{"format":1,"command":"x","seed":-1,"dims":[],"tasks":1}`,
		`{"format":2,"command":"x","dims":[],"tasks":1}`,
		`{"format":1,"command":"x","dims":[{"name":"-a","kind":"int","values":["1"]}],"tasks":1}`,
	} {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m manifest
		if json.Unmarshal(data, &m) == nil {
			n := max(1, len(m.Points))
			for _, d := range m.Dims {
				n *= max(1, len(d.Values))
				if n > 2000 {
					return // New's work is linear in the tasks: keep the fuzzer fast
				}
			}
		}
		got, err := decodeManifest(data)
		if err != nil {
			return
		}
		checkSweep(t, got)
		for _, other := range []*Sweep{s, ps} {
			a, b := other.manifest(), got.manifest()
			if !bytes.Equal(a.definition(), b.definition()) {
				e := &MismatchError{Dir: "d", Have: other.Describe(), Diff: difference(a, b)}
				if e.Diff == "" || e.Error() == "" {
					t.Fatalf("no difference between %s and %s", a.definition(), b.definition())
				}
			}
		}
	})
}

func mustValue(t testing.TB, k lists.Kind, s string) lists.Value {
	v, err := lists.ParseValue(k, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ParseShard, shard file names and the job-array environment: no panic;
// a shard found is valid, and its text and file name read back to it.
func FuzzShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", " 1 / 2 ", "4/4", "-1/4", "0/0", "0/100000", "0/100001", "1/",
		"/", "", "a/b", "9223372036854775807/9223372036854775807", "0/-9223372036854775808",
		"shard-00-of-01.jsonl", "shard-003-of-100.jsonl", "shard-3-of-100.jsonl", "shard-00-of-00.jsonl",
		"shard-99999-of-100000.jsonl", "shard-0-of-9999999999999999999999.jsonl"} {
		f.Add(s, s, "4", "", "", "")
	}
	f.Add("", "3", "4", "", "", "")
	f.Add("", "7", "4", "5", "8", "")
	f.Add("", "", "", "", "", "2")
	f.Add("", "-9223372036854775808", "2", "9223372036854775807", "", "")
	f.Add("", "1", "2", "0", "-9223372036854775808", "")
	f.Fuzz(func(t *testing.T, s, id, count, lo, hi, completions string) {
		if sh, err := ParseShard(s); err == nil {
			back, err := ParseShard(sh.String())
			if !sh.Valid() || err != nil || back != sh {
				t.Fatalf("ParseShard(%q) = %v; its text reads back as %v, %v", s, sh, back, err)
			}
			if got, ok := shardOfFile(sh.FileName()); !ok || got != sh {
				t.Fatalf("%v: file %q reads back as %v, %v", sh, sh.FileName(), got, ok)
			}
		}
		if sh, ok := shardOfFile(s); ok && (!sh.Valid() || sh.FileName() != s) {
			t.Fatalf("shardOfFile(%q) = %v", s, sh)
		}
		for _, env := range []map[string]string{
			{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MIN": lo, "SLURM_ARRAY_TASK_MAX": hi},
			{"JOB_COMPLETION_INDEX": id, "JOB_COMPLETIONS": completions},
		} {
			sh, src, err := ShardFromEnv(func(k string) string { return env[k] })
			if err == nil && !sh.Valid() {
				t.Fatalf("ShardFromEnv(%v) = %v from %s", env, sh, src)
			}
			if err != nil && src == "" {
				t.Fatalf("ShardFromEnv(%v): %v names no variables", env, err)
			}
		}
	})
}

// A corrupt complete line of a shard file is an error naming the file and
// the line, never a panic; a trailing partial line is ignored.
func TestLoadCorruptLine(t *testing.T) {
	s := fuzzSweep(t)
	seeds := shardFileSeeds(t)
	for _, c := range []struct {
		data, want string // want: part of the error, "" for none
	}{
		{seeds[0], ""},
		{seeds[2], ""},
		{seeds[0] + "{\"id\":\"x\",\"status\":\"ok\",\"point\":[1]}\n", ":9: not a task record"},
		{"\n" + seeds[0], ":1: not a task record"},
		{strings.SplitAfter(seeds[0], "\n")[0] + "{\"id\":\"x\",\"status\":\"maybe\"}\n", ":2: not a task record"},
	} {
		t.Run(fmt.Sprintf("%.40q", c.data), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "shard-00-of-01.jsonl"), []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := s.Load(dir)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%.60q: %v", c.data, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), "shard-00-of-01.jsonl"+c.want)):
				t.Errorf("%.60q: %v, want an error with %q", c.data, err, c.want)
			case err == nil && len(res.Records) == 0:
				t.Errorf("%.60q: no records", c.data)
			}
		})
	}
}

// An integer vector's entries reach the table exactly, also beyond 2⁵³
// (they were once converted through float64: 2⁶³−1 became −2⁶³).
func TestIntVectorTableExact(t *testing.T) {
	v := mustValue(t, lists.IntVector, "9007199254740993,9223372036854775807")
	s, err := New(Grid{Command: "fake", Dims: []Dim{{Name: "q", Kind: lists.IntVector, Values: []lists.Value{v}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := &Results{Sweep: s, Records: map[string]*Record{s.Tasks[0].ID: {ID: s.Tasks[0].ID, State: OK, Result: json.RawMessage(`{"x":1}`)}}}
	tab, err := res.Table(TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"q.1": 9007199254740993, "q.2": 9223372036854775807} {
		t.Run(name, func(t *testing.T) {
			if j := tab.Index(name); j < 0 || tab.Rows[0][j] != want {
				t.Errorf("%s: %v, want %d", name, tab.Rows[0], want)
			}
		})
	}
}
