package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// TableColumn is a column of a Table.
type TableColumn struct {
	Name string
	Type Type
	// Grid is set for the grid's columns (the flags swept).
	Grid bool
}

// Table is a tidy table: a row per task (or per row of a task's result),
// columns typed. A cell is nil (missing), int64, float64, bool or string,
// as the column's Type says.
type Table struct {
	Columns []TableColumn
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

// TableOptions control Results.Table.
type TableOptions struct {
	// Timings keeps wall-time fields (seconds, events_per_second, …) and
	// adds the task's wall time as task_seconds. Without it the table is a
	// pure function of the grid and the seeds, whatever the sharding.
	Timings bool
}

// Table flattens the finished tasks into one table, in grid order.
//
// Columns: the grid's columns first (a vector flag such as alpha also
// gives its entries as alpha.1, alpha.2, …), then the result's scalar
// fields in the order the command writes them, nested objects flattened
// with dots (sojourn.mean), then task_status and, if a task failed,
// task_error. Arrays are left out (they stay in the shard files), and so
// are fields named like a grid column (the grid's value is the column) and
// null fields. A result with a "rows" array of objects (fluid edge, fluid
// jackson) gives one table row per element: the result's other scalar
// fields, then the element's. A column's type is int64 when every value in
// it is an integer, float64 when they are numbers, bool for true/false and
// string otherwise.
func (r *Results) Table(o TableOptions) (*Table, error) {
	cols := r.Sweep.Grid.Columns()
	grid := map[string]bool{}
	for _, c := range cols {
		grid[c.Name] = true
	}
	// Vector columns' widths.
	width := map[string]int{}
	for _, t := range r.Sweep.Tasks {
		for _, q := range t.Point {
			if q.Value.kind.Vector() {
				width[q.Name] = max(width[q.Name], len(q.Value.vec))
			}
		}
	}
	var names []string
	types := map[string]Type{}
	for _, c := range cols {
		names = append(names, c.Name)
		types[c.Name] = map[Kind]Type{Int: Int64, Float: Float64, Bool: Boolean}[c.Kind]
		for i := 1; i <= width[c.Name]; i++ {
			name := fmt.Sprintf("%s.%d", c.Name, i)
			names = append(names, name)
			types[name] = Int64
			if c.Kind == FloatVector {
				types[name] = Float64
			}
			grid[name] = true
		}
	}
	nGrid := len(names)
	result := &columnSet{index: map[string]int{}}
	type row struct {
		grid   []any
		fields []field
		status Status
		err    string
		secs   float64
	}
	var rows []row
	failed := false
	for _, t := range r.Sweep.Tasks {
		rec := r.Records[t.ID]
		if rec == nil {
			continue
		}
		g := make([]any, 0, nGrid)
		for _, q := range t.Point {
			g = append(g, q.Value.cell())
			for i := range width[q.Name] {
				if i < len(q.Value.vec) {
					if q.Value.kind == IntVector {
						g = append(g, q.Value.ivec[i]) // exact beyond 2⁵³
					} else {
						g = append(g, q.Value.vec[i])
					}
				} else {
					g = append(g, nil)
				}
			}
		}
		failed = failed || rec.Status != OK
		var sub [][]field
		if len(rec.Result) > 0 {
			var err error
			if sub, err = flattenResult(rec.Result); err != nil {
				return nil, fmt.Errorf("sweep: task %s (%s): %v", t.ID, t.Point, err)
			}
		}
		if len(sub) == 0 {
			sub = [][]field{nil}
		}
		for _, fs := range sub {
			var kept []field
			for _, f := range fs {
				if grid[f.name] || (!o.Timings && isTiming(f.name)) {
					continue
				}
				kept = append(kept, f)
				result.add(f.name)
			}
			rows = append(rows, row{g, kept, rec.Status, rec.Error, rec.Seconds})
		}
	}
	// Columns and their types.
	t := &Table{}
	for i, n := range names {
		t.Columns = append(t.Columns, TableColumn{Name: n, Type: types[n], Grid: i < nGrid})
	}
	values := make([][]any, len(result.names))
	for _, rw := range rows {
		cells := make([]any, len(result.names))
		for _, f := range rw.fields {
			cells[result.index[f.name]] = f.val
		}
		for j, c := range cells {
			values[j] = append(values[j], c)
		}
	}
	rtypes := make([]Type, len(result.names))
	for j, n := range result.names {
		rtypes[j] = columnType(values[j])
		t.Columns = append(t.Columns, TableColumn{Name: n, Type: rtypes[j]})
	}
	t.Columns = append(t.Columns, TableColumn{Name: "task_status", Type: String})
	if failed {
		t.Columns = append(t.Columns, TableColumn{Name: "task_error", Type: String})
	}
	if o.Timings {
		t.Columns = append(t.Columns, TableColumn{Name: "task_seconds", Type: Float64})
	}
	for i, rw := range rows {
		cells := append([]any(nil), rw.grid...)
		for j := range result.names {
			cells = append(cells, convert(values[j][i], rtypes[j]))
		}
		cells = append(cells, string(rw.status))
		if failed {
			var e any
			if rw.err != "" {
				e = rw.err
			}
			cells = append(cells, e)
		}
		if o.Timings {
			cells = append(cells, rw.secs)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t, nil
}

// TableOf flattens one JSON report into a table, the way a sweep's table
// flattens each task's result: nested objects with dots, arrays and the
// header fields (schema_version, fluid, command) left out, and one row per
// element of the array of objects named rowsKey, the report's other scalar
// fields repeated in each ("" or no such array: one row). An element's
// field named like one of the report's is named rowsKey.name.
func TableOf(raw json.RawMessage, rowsKey string) (*Table, error) {
	sub, err := flattenRows(raw, rowsKey, true)
	if err != nil {
		return nil, err
	}
	cols := &columnSet{index: map[string]int{}}
	for _, fs := range sub {
		for _, f := range fs {
			cols.add(f.name)
		}
	}
	if len(cols.names) == 0 {
		// Rows without cells carry nothing, and no format but CSV could
		// even hold them (Parquet reads them back as no rows).
		return &Table{}, nil
	}
	values := make([][]any, len(cols.names))
	for _, fs := range sub {
		cells := make([]any, len(cols.names))
		for _, f := range fs {
			cells[cols.index[f.name]] = f.val
		}
		for j, c := range cells {
			values[j] = append(values[j], c)
		}
	}
	t := &Table{Rows: make([][]any, len(sub))}
	for j, n := range cols.names {
		typ := columnType(values[j])
		t.Columns = append(t.Columns, TableColumn{Name: n, Type: typ})
		for i := range sub {
			t.Rows[i] = append(t.Rows[i], convert(values[j][i], typ))
		}
	}
	return t, nil
}

// isTiming reports whether a field measures wall time or speed.
func isTiming(name string) bool {
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

// field is a flattened scalar of a result: json.Number, string or bool.
type field struct {
	name string
	val  any
}

// headerKeys are the fields every report opens with (the schema version,
// the fluid version, the command): the same in every row of a sweep, so
// they are left out of its table.
var headerKeys = map[string]bool{"schema_version": true, "fluid": true, "command": true}

// flattenResult turns a command's JSON object into table rows of scalar
// fields (one row, or one per element of a "rows" array of objects).
func flattenResult(raw json.RawMessage) ([][]field, error) {
	return flattenRows(raw, "rows", false)
}

// flattenRows is flattenResult with the array of rows under key; with
// keepTop, a field of an element named like one of the result's is
// renamed key.name instead of replacing it.
func flattenRows(raw json.RawMessage, key string, keepTop bool) ([][]field, error) {
	v, err := decodeOrdered(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("the result is not a JSON object")
	}
	var top []field
	var elems []object
	hasRows := false
	for _, f := range obj {
		if headerKeys[f.key] {
			continue
		}
		if f.key == key {
			if arr, ok := f.val.([]any); ok {
				hasRows = true
				for _, e := range arr {
					if o, ok := e.(object); ok {
						elems = append(elems, o)
					}
				}
				continue
			}
		}
		flatten(f.key, f.val, &top)
	}
	if !hasRows || len(elems) == 0 {
		return [][]field{top}, nil
	}
	var out [][]field
	for _, e := range elems {
		var fs []field
		flatten("", e, &fs)
		if keepTop {
			names := map[string]bool{}
			for _, f := range top {
				names[f.name] = true
			}
			for i := range fs {
				if names[fs[i].name] {
					fs[i].name = key + "." + fs[i].name
				}
			}
		}
		// The element's fields win over the result's of the same name.
		own := map[string]bool{}
		for _, f := range fs {
			own[f.name] = true
		}
		var r []field
		for _, f := range top {
			if !own[f.name] {
				r = append(r, f)
			}
		}
		out = append(out, append(r, fs...))
	}
	return out, nil
}

func flatten(prefix string, v any, out *[]field) {
	switch x := v.(type) {
	case object:
		for _, f := range x {
			name := f.key
			if prefix != "" {
				name = prefix + "." + f.key
			}
			flatten(name, f.val, out)
		}
	case []any, nil:
		// Arrays are left out; null is a missing value.
	default:
		*out = append(*out, field{prefix, x})
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
		return FormatFloat(f)
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
		return FormatFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}
