package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fuzzSweep is the sweep whose shard files FuzzShardFile reads: 2 loads
// × 2 policies × 2 alphas, with a seed.
func fuzzSweep(t testing.TB) *Sweep {
	seed := uint64(7)
	g := Grid{Command: "fake", Dims: []Dim{
		{Name: "load", Kind: Float, Values: []Value{floatValue(0.5), floatValue(0.9)}},
		{Name: "policy", Kind: Word, Values: []Value{{kind: Word, text: "rr"}, {kind: Word, text: "jsqd:2"}}},
	}}
	alpha, err := ParseList("alpha", IntVector, "1,2;3,4,5")
	if err != nil {
		t.Fatal(err)
	}
	g.Dims = append(g.Dims, Dim{Name: "alpha", Kind: IntVector, Values: alpha})
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
		r := &Record{ID: task.ID, Point: task.Point, Args: task.Args, Seed: task.Seed, Status: OK, Seconds: 0.25,
			Result: json.RawMessage(fmt.Sprintf(`{"schema_version":1,"command":"fake","sojourn":{"mean":%d.5,"ci95":0.1},"rows":[{"n":%d,"x":"a"},{"n":2}],"ok":true,"none":null,"seconds":1}`, i, i))}
		if i%3 == 2 {
			r.Status, r.Error, r.Result = Failed, "invalid --load", nil
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
// of every row, and writes in every format; CSV and JSON Lines read back
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
			if r.ID == "" || (r.Status != OK && r.Status != Failed) {
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

// checkTable checks a table's cells against its columns, writes it in
// every format, and reads CSV and JSON Lines back.
func checkTable(t *testing.T, tab *Table) {
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
				ok = tab.Columns[j].Type == Int64
			case float64:
				ok = tab.Columns[j].Type == Float64
			case bool:
				ok = tab.Columns[j].Type == Boolean
			case string:
				ok = tab.Columns[j].Type == String
			default:
				ok = false
			}
			if !ok {
				t.Fatalf("row %d, column %q (%v): cell %#v", i, tab.Columns[j].Name, tab.Columns[j].Type, cell)
			}
		}
	}
	for _, format := range []string{CSV, JSONL, Parquet} {
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			if format != Parquet {
				t.Fatalf("writing %s: %v", format, err)
			}
			continue
		}
		var back *Table
		var err error
		switch format {
		case CSV:
			if len(tab.Columns) == 0 {
				continue // no header: CSV cannot tell an empty table
			}
			back, err = readCSV(&b)
		case JSONL:
			if len(tab.Rows) == 0 {
				continue // no lines: no columns either
			}
			back, err = readJSONL(&b)
		default:
			back, err = readParquetBytes(b.Bytes())
		}
		if err != nil {
			t.Fatalf("the %s written does not read back: %v", format, err)
		}
		if len(back.Rows) != len(tab.Rows) || format != JSONL && len(back.Columns) != len(tab.Columns) {
			t.Fatalf("the %s written reads back as %d rows of %d columns, want %d of %d",
				format, len(back.Rows), len(back.Columns), len(tab.Rows), len(tab.Columns))
		}
	}
}

// readParquetBytes reads a Parquet table from b, as ReadTable does from
// a file.
func readParquetBytes(b []byte) (*Table, error) {
	return readParquet(bytes.NewReader(b), int64(len(b)))
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
		{{"alpha", mustValue(f, FloatVector, "0.7,0.3")}, {"scenario", mustValue(f, Word, "blocking")}},
		{{"alpha", mustValue(f, FloatVector, "0.6,0.4")}, {"scenario", mustValue(f, Word, "queueing")}},
	}, Dims: []Dim{{Name: "load", Kind: Float, Values: []Value{floatValue(0.5)}}}}
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

func mustValue(t testing.TB, k Kind, s string) Value {
	v, err := ParseValue(k, s)
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

// tableSeeds are tables as files: CSV, JSON Lines and JSON reports.
var tableSeeds = []string{
	"a,b,c\n1,2.5,x\n2,,true\n",
	"load,policy,sojourn.mean\n0.5,rr,1.25\n0.9,jsqd:2,NaN\n",
	"a,a\n1,2\n",
	"\"a\nb\",c\n\"1,2\",3\n",
	"a\n1e400\n-Inf\n0x10\n1_0\n",
	"a,b\n1\n",
	"",
	"\n\n",
	"\xff\n\x00\n",
	`{"a":1,"b":"x","c":{"d":[1,2]},"e":null}` + "\n" + `{"b":2,"f":true}`,
	`{"a":1}` + "\n" + `[1]` + "\n",
	`{"a":1e400,"b":123456789012345678901234567890}`,
	`{"":1,"a,b":2,"a\"b":3}`,
	`{"a":1,"a":"x"}`,
	`{"schema_version":1,"fluid":"v","command":"edge","k":5,"rows":[{"servers":100,"edge":0.5},{"servers":200,"k":3}]}`,
	`{"rows":[1,"x",{"a":{"b":{"c":1}}}],"rows.a":2}`,
	`[{"a":1}]`,
	"PAR1",
	"PAR1\x15\x00PAR1",
}

// ReadTable (CSV, JSON Lines, Parquet) and TableOf (a JSON report):
// whatever the bytes, a table or an error, never a panic; a table read
// has a cell of its column's type in every column of every row, writes
// in every format and reads back with the same shape.
func FuzzReadTable(f *testing.F) {
	for i, s := range tableSeeds {
		f.Add(uint8(i), []byte(s), "rows")
	}
	var pq bytes.Buffer
	tab := &Table{Columns: []TableColumn{{Name: "a", Type: Int64}, {Name: "b", Type: Float64}, {Name: "c", Type: String}, {Name: "d", Type: Boolean}},
		Rows: [][]any{{int64(1), 2.5, "x", true}, {nil, nil, nil, nil}}}
	if err := tab.Write(&pq, Parquet); err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(2), pq.Bytes(), "")
	f.Add(uint8(2), pq.Bytes()[:len(pq.Bytes())-9], "")
	f.Fuzz(func(t *testing.T, format uint8, data []byte, rowsKey string) {
		var tab *Table
		var err error
		switch format % 4 {
		case 0:
			tab, err = readCSV(bytes.NewReader(data))
		case 1:
			tab, err = readJSONL(bytes.NewReader(data))
		case 2:
			tab, err = readParquetBytes(data)
		case 3:
			tab, err = TableOf(data, rowsKey)
		}
		if err != nil {
			return
		}
		checkTable(t, tab)
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
	}
}

// A Parquet file whose footer length exceeds the file is refused before
// anything the length asks for is allocated (the Parquet reader would
// allocate it: 4 GB for this file of a few hundred bytes).
func TestParquetFooterBound(t *testing.T) {
	var b bytes.Buffer
	tab := &Table{Columns: []TableColumn{{Name: "a", Type: Int64}}, Rows: [][]any{{int64(1)}}}
	if err := tab.Write(&b, Parquet); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	if _, err := readParquetBytes(data); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
	copy(data[len(data)-8:], []byte{0, 0, 0, 0xf0})
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := readParquetBytes(data)
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "footer") {
		t.Errorf("a footer of 4 GB: %v, want an error about the footer", err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing the file allocated %d bytes", alloc)
	}
}

// An integer vector's entries reach the table exactly, also beyond 2⁵³
// (they were once converted through float64: 2⁶³−1 became −2⁶³).
func TestIntVectorTableExact(t *testing.T) {
	v := mustValue(t, IntVector, "9007199254740993,9223372036854775807")
	s, err := New(Grid{Command: "fake", Dims: []Dim{{Name: "q", Kind: IntVector, Values: []Value{v}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := &Results{Sweep: s, Records: map[string]*Record{s.Tasks[0].ID: {ID: s.Tasks[0].ID, Status: OK, Result: json.RawMessage(`{"x":1}`)}}}
	tab, err := res.Table(TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"q.1": 9007199254740993, "q.2": 9223372036854775807} {
		if j := tab.Index(name); j < 0 || tab.Rows[0][j] != want {
			t.Errorf("%s: %v, want %d", name, tab.Rows[0], want)
		}
	}
}
