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
	cols := r.Sweep.Grid.Columns()
	grid := map[string]bool{}
	for _, c := range cols {
		grid[c.Name] = true
	}
	// Vector columns' widths.
	width := map[string]int{}
	for _, t := range r.Sweep.Tasks {
		for _, q := range t.Point {
			if q.Value.Kind().Vector() {
				width[q.Name] = max(width[q.Name], len(q.Value.Vector()))
			}
		}
	}
	var names []string
	types := map[string]table.Type{}
	for _, c := range cols {
		names = append(names, c.Name)
		types[c.Name] = map[lists.Kind]table.Type{lists.Int: table.Int64, lists.Float: table.Float64, lists.Bool: table.Boolean}[c.Kind]
		for i := 1; i <= width[c.Name]; i++ {
			name := fmt.Sprintf("%s.%d", c.Name, i)
			names = append(names, name)
			types[name] = table.Int64
			if c.Kind == lists.FloatVector {
				types[name] = table.Float64
			}
			grid[name] = true
		}
	}
	nGrid := len(names)
	var result table.Builder
	type row struct {
		grid   []any
		status State
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
			g = append(g, cell(q.Value))
			for i := range width[q.Name] {
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
				if grid[f.Name] || (!o.Timings && table.IsTiming(f.Name)) {
					continue
				}
				kept = append(kept, f)
			}
			result.Add(kept)
			rows = append(rows, row{g, rec.State, rec.Error, rec.Seconds})
		}
	}
	// Columns and their types.
	res := result.Table()
	t := &table.Table{}
	for i, n := range names {
		t.Columns = append(t.Columns, table.Column{Name: n, Type: types[n], Grid: i < nGrid})
	}
	t.Columns = append(t.Columns, res.Columns...)
	t.Columns = append(t.Columns, table.Column{Name: "task_status", Type: table.String})
	if failed {
		t.Columns = append(t.Columns, table.Column{Name: "task_error", Type: table.String})
	}
	if o.Timings {
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
		if o.Timings {
			cells = append(cells, rw.secs)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t, nil
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
