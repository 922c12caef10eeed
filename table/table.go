package table

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/ordered"
	"github.com/fluidlb/fluid/lists"
)

// Type is the type of a table column.
type Type int

const (
	// String columns hold text (and mixed values, as their JSON text).
	String Type = iota
	// Int64 columns hold integers.
	Int64
	// Float64 columns hold numbers.
	Float64
	// Boolean columns hold true or false.
	Boolean
)

var typeNames = [...]string{"string", "int64", "float64", "bool"}

func (t Type) String() string {
	if t < 0 || int(t) >= len(typeNames) {
		return fmt.Sprintf("Type(%d)", int(t))
	}
	return typeNames[t]
}

// Column is a column of a Table.
type Column struct {
	Name string
	Type Type
	// Grid is set for the grid's columns (the flags swept).
	Grid bool
}

// Table is a tidy table: a row per task (or per row of a task's result),
// columns typed. A cell is nil (missing), int64, float64, bool or string,
// as the column's Type says.
type Table struct {
	Columns []Column
	Rows    [][]any
}

// Index returns the position of the column named name, or -1.
func (t *Table) Index(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Of flattens one JSON report into a table: nested objects with dots
// (sojourn.mean), arrays and the header fields (schema_version, fluid,
// command) left out, and one row per element of the array of objects
// named rowsKey, the report's other scalar fields repeated in each ("" or
// no such array: one row). An element's field named like one of the
// report's is named rowsKey.name. Columns are typed as Builder types them.
func Of(raw json.RawMessage, rowsKey string) (*Table, error) {
	rows, err := flattenRows(raw, rowsKey, true)
	if err != nil {
		return nil, err
	}
	var b Builder
	for _, r := range rows {
		b.Add(r)
	}
	t := b.Table()
	if len(t.Columns) == 0 {
		// Rows without cells carry nothing, and no format but CSV could
		// even hold them (Parquet reads them back as no rows).
		return &Table{}, nil
	}
	return t, nil
}

// Flatten turns a JSON report into rows of its scalar fields, as Of does,
// except that an element of the rowsKey array that has a field named like
// one of the report's replaces it (a sweep's table, where each task's
// report is one or more rows beside the grid's columns).
func Flatten(raw json.RawMessage, rowsKey string) ([][]Field, error) {
	return flattenRows(raw, rowsKey, false)
}

// Builder gathers rows of fields into typed columns, in the order their
// names are first seen, each of the narrowest type that holds its values:
// Int64 when every value is an integer, Float64 when they are numbers,
// Boolean for true and false, String otherwise (also for a column with no
// value). A field a row lacks is a missing (nil) cell. The zero value is
// ready to use.
type Builder struct {
	cols columnSet
	rows [][]Field
}

// Add adds a row. A field's Value is a json.Number, a string, a bool or
// nil (missing).
func (b *Builder) Add(row []Field) {
	if b.cols.index == nil {
		b.cols.index = map[string]int{}
	}
	for _, f := range row {
		b.cols.add(f.Name)
	}
	b.rows = append(b.rows, row)
}

// Table returns the rows added, one table row each, their cells converted
// to the columns' types.
func (b *Builder) Table() *Table {
	values := make([][]any, len(b.cols.names))
	for _, fs := range b.rows {
		cells := make([]any, len(b.cols.names))
		for _, f := range fs {
			cells[b.cols.index[f.Name]] = f.Value
		}
		for j, c := range cells {
			values[j] = append(values[j], c)
		}
	}
	t := &Table{Rows: make([][]any, len(b.rows))}
	for i := range t.Rows {
		t.Rows[i] = make([]any, 0, len(b.cols.names))
	}
	for j, n := range b.cols.names {
		typ := columnType(values[j])
		t.Columns = append(t.Columns, Column{Name: n, Type: typ})
		for i := range b.rows {
			t.Rows[i] = append(t.Rows[i], convert(values[j][i], typ))
		}
	}
	return t
}

// IsTiming reports whether a field measures wall time or speed (seconds,
// …_seconds, …_per_second): fields that differ between two runs of the
// same computation.
func IsTiming(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	return last == "seconds" || strings.HasSuffix(last, "_seconds") || strings.HasSuffix(last, "_per_second")
}

// columnSet keeps column names in first-seen order.
type columnSet struct {
	names []string
	index map[string]int
}

func (c *columnSet) add(name string) {
	if _, ok := c.index[name]; !ok {
		c.index[name] = len(c.names)
		c.names = append(c.names, name)
	}
}

// Field is a flattened scalar of a report: its dotted name and its value,
// a json.Number, a string or a bool.
type Field struct {
	Name  string
	Value any
}

// headerKeys are the fields every report opens with (the schema version,
// the fluid version, the command): the same in every row of a sweep, so
// they are left out of its table.
var headerKeys = map[string]bool{"schema_version": true, "fluid": true, "command": true}

// flattenRows turns a report into rows of scalar fields: one row, or one
// per element of the array of objects under key. With keepTop, a field of
// an element named like one of the report's is renamed key.name instead
// of replacing it.
func flattenRows(raw json.RawMessage, key string, keepTop bool) ([][]Field, error) {
	v, err := ordered.Decode(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(ordered.Object)
	if !ok {
		return nil, fmt.Errorf("the result is not a JSON object")
	}
	var top []Field
	var elems []ordered.Object
	hasRows := false
	for _, f := range obj {
		if headerKeys[f.Key] {
			continue
		}
		if f.Key == key {
			if arr, ok := f.Value.([]any); ok {
				hasRows = true
				for _, e := range arr {
					if o, ok := e.(ordered.Object); ok {
						elems = append(elems, o)
					}
				}
				continue
			}
		}
		flatten(f.Key, f.Value, &top)
	}
	if !hasRows || len(elems) == 0 {
		return [][]Field{top}, nil
	}
	var out [][]Field
	for _, e := range elems {
		var fs []Field
		flatten("", e, &fs)
		if keepTop {
			names := map[string]bool{}
			for _, f := range top {
				names[f.Name] = true
			}
			for i := range fs {
				if names[fs[i].Name] {
					fs[i].Name = key + "." + fs[i].Name
				}
			}
		}
		// The element's fields win over the result's of the same name.
		own := map[string]bool{}
		for _, f := range fs {
			own[f.Name] = true
		}
		var r []Field
		for _, f := range top {
			if !own[f.Name] {
				r = append(r, f)
			}
		}
		out = append(out, append(r, fs...))
	}
	return out, nil
}

func flatten(prefix string, v any, out *[]Field) {
	switch x := v.(type) {
	case ordered.Object:
		for _, f := range x {
			name := f.Key
			if prefix != "" {
				name = prefix + "." + f.Key
			}
			flatten(name, f.Value, out)
		}
	case []any, nil:
		// Arrays are left out; null is a missing value.
	default:
		*out = append(*out, Field{prefix, x})
	}
}

// columnType is the narrowest type holding every value: json.Number,
// string, bool or nil.
func columnType(vals []any) Type {
	t, seen := Int64, false
	for _, v := range vals {
		var vt Type
		switch x := v.(type) {
		case nil:
			continue
		case json.Number:
			vt = Float64
			if isIntLiteral(string(x)) {
				vt = Int64
			}
		case bool:
			vt = Boolean
		default:
			return String
		}
		switch {
		case !seen:
			t, seen = vt, true
		case t == vt:
		case (t == Int64 || t == Float64) && (vt == Int64 || vt == Float64):
			t = Float64
		default:
			return String
		}
	}
	if !seen {
		return String
	}
	return t
}

func isIntLiteral(s string) bool {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return true
	}
	return false
}

// convert turns a flattened value into a cell of type t.
func convert(v any, t Type) any {
	switch x := v.(type) {
	case nil:
		return nil
	case json.Number:
		switch t {
		case Int64:
			i, _ := strconv.ParseInt(string(x), 10, 64)
			return i
		case Float64:
			f, _ := x.Float64()
			return f
		}
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return lists.FormatFloat(f)
	case bool:
		if t == Boolean {
			return x
		}
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// formatCell prints a cell for CSV.
func formatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return lists.FormatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}
