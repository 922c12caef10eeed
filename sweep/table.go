package sweep

import (
	"fmt"

	"github.com/fluidlb/fluid/lists"
	"github.com/fluidlb/fluid/table"
)

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
func (r *Results) Table(o TableOptions) (*table.Table, error) {
	gc := r.gridColumns()
	var result table.Builder
	var rows []taskRow
	failed := false
	for _, t := range r.Sweep.Tasks {
		rec := r.Records[t.ID]
		if rec == nil {
			continue
		}
		g := gc.cells(t.Point)
		failed = failed || rec.State != OK
		var sub [][]table.Field
		if len(rec.Result) > 0 {
			var err error
			if sub, err = table.Flatten(rec.Result, "rows"); err != nil {
				return nil, fmt.Errorf("sweep: task %s (%s): %v", t.ID, t.Point, err)
			}
		}
		if len(sub) == 0 {
			sub = [][]table.Field{nil}
		}
		for _, fs := range sub {
			var kept []table.Field
			for _, f := range fs {
				if gc.grid[f.Name] || (!o.Timings && table.IsTiming(f.Name)) {
					continue
				}
				kept = append(kept, f)
			}
			result.Add(kept)
			rows = append(rows, taskRow{g, rec.State, rec.Error, rec.Seconds})
		}
	}
	return gc.assemble(result.Table(), rows, failed, o.Timings), nil
}

// taskRow is what a table row takes from its task besides the result.
type taskRow struct {
	grid   []any
	status State
	err    string
	secs   float64
}

// gridColumns are the table's grid columns: names and types in order
// (vector entries after their vector), every name that is a grid column,
// and each vector flag's width.
type gridColumns struct {
	names []string
	types map[string]table.Type
	grid  map[string]bool
	width map[string]int
}

func (r *Results) gridColumns() *gridColumns {
	cols := r.Sweep.Grid.Columns()
	gc := &gridColumns{types: map[string]table.Type{}, grid: map[string]bool{}, width: map[string]int{}}
	for _, c := range cols {
		gc.grid[c.Name] = true
	}
	for _, t := range r.Sweep.Tasks {
		for _, q := range t.Point {
			if q.Value.Kind().Vector() {
				gc.width[q.Name] = max(gc.width[q.Name], len(q.Value.Vector()))
			}
		}
	}
	for _, c := range cols {
		gc.names = append(gc.names, c.Name)
		gc.types[c.Name] = map[lists.Kind]table.Type{lists.Int: table.Int64, lists.Float: table.Float64, lists.Bool: table.Boolean}[c.Kind]
		for i := 1; i <= gc.width[c.Name]; i++ {
			name := fmt.Sprintf("%s.%d", c.Name, i)
			gc.names = append(gc.names, name)
			gc.types[name] = table.Int64
			if c.Kind == lists.FloatVector {
				gc.types[name] = table.Float64
			}
			gc.grid[name] = true
		}
	}
	return gc
}

// cells returns a point's grid cells (nil for the entries a shorter
// vector lacks).
func (gc *gridColumns) cells(p Point) []any {
	g := make([]any, 0, len(gc.names))
	for _, q := range p {
		g = append(g, cell(q.Value))
		for i := range gc.width[q.Name] {
			if vec := q.Value.Vector(); i < len(vec) {
				if q.Value.Kind() == lists.IntVector {
					g = append(g, q.Value.Ints()[i]) // exact beyond 2⁵³
				} else {
					g = append(g, vec[i])
				}
			} else {
				g = append(g, nil)
			}
		}
	}
	return g
}

// assemble puts the grid columns, the results' columns res and the task
// columns together, one row per element of rows.
func (gc *gridColumns) assemble(res *table.Table, rows []taskRow, failed, timings bool) *table.Table {
	t := &table.Table{}
	for i, n := range gc.names {
		t.Columns = append(t.Columns, table.Column{Name: n, Type: gc.types[n], Grid: i < len(gc.names)})
	}
	t.Columns = append(t.Columns, res.Columns...)
	t.Columns = append(t.Columns, table.Column{Name: "task_status", Type: table.String})
	if failed {
		t.Columns = append(t.Columns, table.Column{Name: "task_error", Type: table.String})
	}
	if timings {
		t.Columns = append(t.Columns, table.Column{Name: "task_seconds", Type: table.Float64})
	}
	for i, rw := range rows {
		cells := append(append([]any(nil), rw.grid...), res.Rows[i]...)
		cells = append(cells, string(rw.status))
		if failed {
			var e any
			if rw.err != "" {
				e = rw.err
			}
			cells = append(cells, e)
		}
		if timings {
			cells = append(cells, rw.secs)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// cell is a grid value as a table cell: int64, float64, bool or string.
func cell(v lists.Value) any {
	switch v.Kind() {
	case lists.Int:
		return v.Int()
	case lists.Float:
		return v.Float()
	case lists.Bool:
		return v.Bool()
	}
	return v.String()
}
