package table

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/fluidlb/fluid/internal/atomicfile"
	"github.com/fluidlb/fluid/internal/ordered"
	"github.com/fluidlb/fluid/lists"
)

// Table file formats.
const (
	CSV     = "csv"
	JSONL   = "jsonl"
	Parquet = "parquet"
)

// FormatOf is the table format a file name asks for: .csv, .jsonl (or
// .ndjson) or .parquet.
func FormatOf(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	case ".parquet":
		return Parquet, nil
	}
	return "", fmt.Errorf("%q: the file name must end in .csv, .jsonl or .parquet", path)
}

// Write writes the table in format (CSV, JSONL or Parquet). CSV has a
// header row, numbers printed canonically (FormatFloat) and empty cells
// for missing values; JSON Lines has one object per row with the columns
// in order and null for missing values; Parquet has one optional column
// per table column (DOUBLE, INT64, BOOLEAN or STRING).
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case CSV:
		return t.writeCSV(w)
	case JSONL:
		return t.writeJSONL(w)
	case Parquet:
		return t.writeParquet(w)
	}
	return fmt.Errorf("table: unknown format %q", format)
}

// WriteFile writes the table to path atomically (a temporary file renamed
// into place), in the format of its extension.
func (t *Table) WriteFile(path string) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return t.Write(w, format) })
}

func (t *Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	write := func(rec []string) error {
		if len(rec) == 1 && rec[0] == "" {
			// One empty field would be an empty line, which readers skip:
			// quote it.
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			_, err := io.WriteString(w, "\"\"\n")
			return err
		}
		return cw.Write(rec)
	}
	rec := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		rec[i] = c.Name
	}
	if err := write(rec); err != nil {
		return err
	}
	for _, row := range t.Rows {
		for i, v := range row {
			rec[i] = formatCell(v)
		}
		if err := write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func (t *Table) writeJSONL(w io.Writer) error {
	var b bytes.Buffer
	for _, row := range t.Rows {
		b.Reset()
		b.WriteByte('{')
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(t.Columns[i].Name)
			b.Write(k)
			b.WriteByte(':')
			switch x := v.(type) {
			case nil:
				b.WriteString("null")
			case float64:
				if math.IsNaN(x) || math.IsInf(x, 0) {
					b.WriteString("null")
				} else {
					b.WriteString(lists.FormatFloat(x))
				}
			case int64, bool:
				b.WriteString(formatCell(x))
			default:
				s, _ := json.Marshal(formatCell(x))
				b.Write(s)
			}
		}
		b.WriteString("}\n")
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

var parquetTypes = map[Type]reflect.Type{
	String:  reflect.TypeFor[*string](),
	Int64:   reflect.TypeFor[*int64](),
	Float64: reflect.TypeFor[*float64](),
	Boolean: reflect.TypeFor[*bool](),
}

func (t *Table) writeParquet(w io.Writer) error {
	// A struct type built for the columns keeps their order in the schema.
	fields := make([]reflect.StructField, len(t.Columns))
	for i, c := range t.Columns {
		if c.Name == "" || strings.ContainsAny(c.Name, ",\"`") {
			return fmt.Errorf("table: column name %q cannot be written to Parquet", c.Name)
		}
		fields[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: parquetTypes[c.Type],
			Tag:  reflect.StructTag(fmt.Sprintf(`parquet:"%s,optional"`, c.Name)),
		}
	}
	st := reflect.StructOf(fields)
	pw := parquet.NewWriter(w, parquet.SchemaOf(reflect.New(st).Interface()))
	for _, row := range t.Rows {
		v := reflect.New(st)
		for i, cell := range row {
			if cell == nil {
				continue
			}
			p := reflect.New(fields[i].Type.Elem())
			switch t.Columns[i].Type {
			case String:
				p.Elem().SetString(formatCell(cell))
			case Int64:
				p.Elem().SetInt(cell.(int64))
			case Float64:
				p.Elem().SetFloat(cell.(float64))
			case Boolean:
				p.Elem().SetBool(cell.(bool))
			}
			v.Elem().Field(i).Set(p)
		}
		if err := pw.Write(v.Interface()); err != nil {
			return err
		}
	}
	return pw.Close()
}

// Read reads a table written by Write (or any CSV with a header row,
// JSON Lines of flat objects, or flat Parquet file), in the format of the
// file's extension. CSV and JSON Lines columns get the narrowest type that
// holds their values; Parquet columns keep theirs.
func Read(path string) (*Table, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var t *Table
	switch format {
	case CSV:
		t, err = readCSV(f)
	case JSONL:
		t, err = readJSONL(f)
	default:
		var st os.FileInfo
		if st, err = f.Stat(); err == nil {
			t, err = readParquet(f, st.Size())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func readCSV(r io.Reader) (*Table, error) {
	// A byte-order mark (spreadsheets write one) is not part of the first
	// column's name.
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	recs, err := csv.NewReader(br).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errors.New("no header row")
	}
	t := &Table{}
	for _, name := range recs[0] {
		t.Columns = append(t.Columns, Column{Name: name})
	}
	for j := range t.Columns {
		vals := make([]any, 0, len(recs)-1)
		for _, rec := range recs[1:] {
			vals = append(vals, textValue(rec[j]))
		}
		t.Columns[j].Type = columnType(vals)
	}
	for _, rec := range recs[1:] {
		row := make([]any, len(rec))
		for j, s := range rec {
			row[j] = convert(textValue(s), t.Columns[j].Type)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// textValue reads a CSV cell as readCSV types it: empty is missing,
// numbers and true/false as such.
func textValue(s string) any {
	switch {
	case s == "":
		return nil
	case s == "true" || s == "false":
		return s == "true"
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") {
		return json.Number(s)
	}
	return s
}

func readJSONL(r io.Reader) (*Table, error) {
	cols := &columnSet{index: map[string]int{}}
	var objs []ordered.Object
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			v, derr := ordered.Decode(b)
			o, ok := v.(ordered.Object)
			if derr != nil || !ok {
				return nil, fmt.Errorf("line %d: not a JSON object", line)
			}
			for _, f := range o {
				cols.add(f.Key)
			}
			objs = append(objs, o)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	t := &Table{}
	cells := make([][]any, len(objs))
	for i, o := range objs {
		cells[i] = make([]any, len(cols.names))
		for _, f := range o {
			switch f.Value.(type) {
			case ordered.Object, []any:
				b, _ := json.Marshal(ordered.Plain(f.Value))
				cells[i][cols.index[f.Key]] = string(b)
			default:
				cells[i][cols.index[f.Key]] = f.Value
			}
		}
	}
	for j, name := range cols.names {
		vals := make([]any, len(objs))
		for i := range objs {
			vals[i] = cells[i][j]
		}
		t.Columns = append(t.Columns, Column{Name: name, Type: columnType(vals)})
	}
	if len(cols.names) == 0 {
		return t, nil // objects without fields: no table rows (as Of)
	}
	for i := range objs {
		row := make([]any, len(cols.names))
		for j := range cols.names {
			row[j] = convert(cells[i][j], t.Columns[j].Type)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// readParquet reads a Parquet table of size bytes from f. A corrupt file
// is an error: the Parquet reader panics on some (a page index out of
// bounds), and the panic is turned into the error.
func readParquet(f io.ReaderAt, size int64) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("corrupt Parquet file: %v", p)
		}
	}()
	if err := checkParquetFooter(f, size); err != nil {
		return nil, err
	}
	// The rows are all it reads: no page index, no Bloom filters.
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	t = &Table{}
	for _, fl := range pf.Schema().Fields() {
		c, err := parquetColumn(fl)
		if err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, c)
	}
	r := parquet.NewReader(pf, pf.Schema()) // pf, not f: no second open (which panics on errors)
	defer r.Close()
	buf := make([]parquet.Row, 256)
	for {
		n, err := r.ReadRows(buf)
		for _, pr := range buf[:n] {
			t.Rows = append(t.Rows, t.parquetRow(pr))
		}
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// checkParquetFooter checks the file's end: the footer's length and PAR1,
// and that the footer fits the file, before the Parquet reader allocates
// it (an 861-byte file could otherwise ask for 4 GB).
func checkParquetFooter(f io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < 12 {
		return errors.New("not a Parquet file (too short)")
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("not a Parquet file (it does not end in PAR1)")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("corrupt Parquet file: a footer of %d bytes in a file of %d", n, size)
	}
	return nil
}

// parquetColumn is the column of a flat Parquet field.
func parquetColumn(fl parquet.Field) (Column, error) {
	if !fl.Leaf() || fl.Repeated() {
		return Column{}, fmt.Errorf("column %q is not a flat column", fl.Name())
	}
	var typ Type
	switch fl.Type().Kind() {
	case parquet.Double, parquet.Float:
		typ = Float64
	case parquet.Int32, parquet.Int64:
		typ = Int64
	case parquet.Boolean:
		typ = Boolean
	case parquet.ByteArray, parquet.FixedLenByteArray:
		typ = String
	default:
		return Column{}, fmt.Errorf("column %q has type %v", fl.Name(), fl.Type())
	}
	return Column{Name: fl.Name(), Type: typ}, nil
}

// parquetRow converts a Parquet row to cells of t's column types (nil for
// a null, and for a value of no column).
func (t *Table) parquetRow(pr parquet.Row) []any {
	row := make([]any, len(t.Columns))
	for _, v := range pr {
		j := v.Column()
		if j < 0 || j >= len(row) || v.IsNull() {
			continue
		}
		switch t.Columns[j].Type {
		case Float64:
			if v.Kind() == parquet.Float {
				row[j] = float64(v.Float())
			} else {
				row[j] = v.Double()
			}
		case Int64:
			if v.Kind() == parquet.Int32 {
				row[j] = int64(v.Int32())
			} else {
				row[j] = v.Int64()
			}
		case Boolean:
			row[j] = v.Boolean()
		default:
			row[j] = string(v.ByteArray())
		}
	}
	return row
}
