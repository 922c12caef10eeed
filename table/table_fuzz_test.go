package table

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

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

// Read (CSV, JSON Lines, Parquet) and Of (a JSON report):
// whatever the bytes, a table or an error, never a panic; a table read
// has a cell of its column's type in every column of every row, writes
// in every format and reads back with the same shape.
func FuzzRead(f *testing.F) {
	for i, s := range tableSeeds {
		f.Add(uint8(i), []byte(s), "rows")
	}
	var pq bytes.Buffer
	tab := &Table{Columns: []Column{{Name: "a", Type: Int64}, {Name: "b", Type: Float64}, {Name: "c", Type: String}, {Name: "d", Type: Boolean}},
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
			tab, err = Of(data, rowsKey)
		}
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

// readParquetBytes reads a Parquet table from b, as Read does from
// a file.
func readParquetBytes(b []byte) (*Table, error) {
	return readParquet(bytes.NewReader(b), int64(len(b)))
}

// A Parquet file whose footer length exceeds the file is refused before
// anything the length asks for is allocated (the Parquet reader would
// allocate it: 4 GB for this file of a few hundred bytes).
func TestParquetFooterBound(t *testing.T) {
	var b bytes.Buffer
	tab := &Table{Columns: []Column{{Name: "a", Type: Int64}}, Rows: [][]any{{int64(1)}}}
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
