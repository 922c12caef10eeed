package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/ordered"
	"github.com/fluidlb/fluid/lists"
)

// MaxTasks bounds the tasks of one sweep.
const MaxTasks = 100_000

// MaxArgBytes bounds the length of the command lines of all the tasks of
// one sweep together: without it a few bytes of grid (a vector of 10,000
// entries crossed with 100,000 points) would ask for gigabytes.
const MaxArgBytes = 128 << 20

// Dim is one dimension of a product grid: a flag and the values it takes.
type Dim struct {
	Name   string
	Kind   lists.Kind
	Values []lists.Value
}

// Param is a flag set to one value.
type Param struct {
	Name  string
	Value lists.Value
}

// Point is a grid point: flags and their values, in column order.
type Point []Param

// Get returns the value of the flag named name.
func (p Point) Get(name string) (lists.Value, bool) {
	for _, q := range p {
		if q.Name == name {
			return q.Value, true
		}
	}
	return lists.Value{}, false
}

// String prints the point as name=value pairs.
func (p Point) String() string {
	parts := make([]string, len(p))
	for i, q := range p {
		parts[i] = q.Name + "=" + q.Value.String()
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes the point as an object whose keys keep the column
// order: numbers and booleans as such, words and vectors as strings.
func (p Point) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, q := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(q.Name)
		b.Write(k)
		b.WriteByte(':')
		switch q.Value.Kind() {
		case lists.Int, lists.Float, lists.Bool:
			b.WriteString(q.Value.String())
		default:
			s, _ := json.Marshal(q.Value.String())
			b.Write(s)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a point written by MarshalJSON. Kinds are read back
// from the JSON: integers as lists.Int, other numbers as lists.Float, true and false
// as lists.Bool, strings as lists.Word.
func (p *Point) UnmarshalJSON(data []byte) error {
	o, err := ordered.Decode(data)
	if err != nil {
		return err
	}
	obj, ok := o.(ordered.Object)
	if !ok {
		return fmt.Errorf("sweep: a point must be a JSON object")
	}
	*p = (*p)[:0]
	for _, kv := range obj {
		var x any
		switch y := kv.Value.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(string(y), 10, 64); err == nil {
				x = i
			} else if f, err := y.Float64(); err == nil {
				x = f
			} else {
				return err
			}
		case bool, string:
			x = y
		default:
			return fmt.Errorf("sweep: point value %q is not a number, boolean or string", kv.Key)
		}
		v, err := lists.ValueOf(x)
		if err != nil {
			return fmt.Errorf("sweep: point value %q: %v", kv.Key, err)
		}
		*p = append(*p, Param{kv.Key, v})
	}
	return nil
}

// Grid is what a sweep runs: each explicit point (from a grid file; none
// means one empty point) crossed with the Cartesian product of Dims. Task
// order — the grid order — takes the explicit points outermost, then the
// dimensions in order, the first varying slowest.
type Grid struct {
	// Command is the fluid command each task runs (jiq, sim, edge, …).
	Command string
	// Points are explicit grid points, all over the same flags in the
	// same order (a grid that is not a product: a list of (α, λ) pairs).
	Points []Point
	// Dims are the dimensions of the product.
	Dims []Dim
}

// Column names a grid column and its kind.
type Column struct {
	Name string
	Kind lists.Kind
}

// Columns lists the grid's columns: the explicit points' flags, then the
// dimensions.
func (g *Grid) Columns() []Column {
	var cols []Column
	if len(g.Points) > 0 {
		for _, q := range g.Points[0] {
			cols = append(cols, Column{q.Name, q.Value.Kind()})
		}
	}
	for _, d := range g.Dims {
		cols = append(cols, Column{d.Name, d.Kind})
	}
	return cols
}

// Size is the number of tasks (the product of the dimensions' sizes and
// the number of explicit points), or an error above MaxTasks, or when the
// tasks' command lines would total more than MaxArgBytes.
func (g *Grid) Size() (int, error) {
	n := max(1, len(g.Points))
	var shape []string
	if len(g.Points) > 0 {
		shape = append(shape, fmt.Sprintf("%d points", len(g.Points)))
	}
	for _, d := range g.Dims {
		shape = append(shape, fmt.Sprintf("%d %s", len(d.Values), d.Name))
		if len(d.Values) == 0 {
			return 0, fmt.Errorf("sweep: --%s has no values", d.Name)
		}
		if n > MaxTasks/len(d.Values) {
			n = MaxTasks + 1
			continue
		}
		n *= len(d.Values)
	}
	if n > MaxTasks {
		return 0, fmt.Errorf("sweep: the grid (%s) has more than %d tasks; at most %d per sweep", strings.Join(shape, " × "), MaxTasks, MaxTasks)
	}
	// Each value of a dimension (each explicit point) is in n/len of the
	// tasks, as --name=text.
	var bytes float64
	arg := func(q Param) float64 { return float64(len(q.Name) + len("--=") + len(q.Value.String())) }
	for _, p := range g.Points {
		for _, q := range p {
			bytes += float64(n/len(g.Points)) * arg(q)
		}
	}
	for _, d := range g.Dims {
		for _, v := range d.Values {
			bytes += float64(n/len(d.Values)) * arg(Param{d.Name, v})
		}
	}
	if bytes > MaxArgBytes {
		return 0, fmt.Errorf("sweep: the grid (%s) gives %d tasks whose command lines total %.3g MB; at most %d MB per sweep (fewer or shorter values)",
			strings.Join(shape, " × "), n, bytes/(1<<20), MaxArgBytes>>20)
	}
	return n, nil
}

// validate checks names, kinds and values: every flag once, explicit
// points over the same flags, no value twice in a dimension.
func (g *Grid) validate() error {
	if g.Command == "" || strings.ContainsAny(g.Command, " \t\n/") {
		return fmt.Errorf("sweep: invalid command %q", g.Command)
	}
	seen := map[string]bool{}
	for _, c := range g.Columns() {
		if !validName(c.Name) {
			return fmt.Errorf("sweep: invalid flag name %q", c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("sweep: --%s is given twice (in the grid file and on the command line?)", c.Name)
		}
		seen[c.Name] = true
	}
	for i, p := range g.Points {
		if len(p) != len(g.Points[0]) {
			return fmt.Errorf("sweep: point %d sets %d flags, point 1 sets %d: every point must set the same flags", i+1, len(p), len(g.Points[0]))
		}
		for j, q := range p {
			if q.Name != g.Points[0][j].Name || q.Value.Kind() != g.Points[0][j].Value.Kind() {
				return fmt.Errorf("sweep: point %d sets --%s where point 1 sets --%s: every point must set the same flags", i+1, q.Name, g.Points[0][j].Name)
			}
		}
	}
	for _, d := range g.Dims {
		vals := map[string]bool{}
		for _, v := range d.Values {
			if v.Kind() != d.Kind {
				return fmt.Errorf("sweep: --%s: value %q is a %v, want %v", d.Name, v.String(), v.Kind(), d.Kind)
			}
			if vals[v.String()] {
				return fmt.Errorf("sweep: --%s: value %s is given twice", d.Name, v.String())
			}
			vals[v.String()] = true
		}
	}
	_, err := g.Size()
	return err
}

func validName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Task is one grid point of a sweep, ready to run.
type Task struct {
	// Index is the task's place in grid order.
	Index int
	// ID is derived from the command and the point only (see TaskID).
	ID    string
	Point Point
	// Args is the command line that runs the point, without the program
	// name: COMMAND --flag=value … [--seed=N].
	Args []string
	// Seed is the task's random seed (commands that take --seed), derived
	// from the sweep's seed and the task's ID (see TaskSeed).
	Seed *uint64
}

// TaskID is the stable identifier of the task running command at point:
// the first 16 hex digits of a SHA-256 of the command and the point's
// flags in name order, so it depends neither on flag order nor on the
// grid around the point.
func TaskID(command string, p Point) string {
	ps := append(Point(nil), p...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	h := sha256.New()
	fmt.Fprintf(h, "fluid sweep task v1\x00%s", command)
	for _, q := range ps {
		fmt.Fprintf(h, "\x00%s=%s", q.Name, q.Value.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// TaskSeed derives a task's random seed from the sweep's seed and the
// task's ID: SplitMix64's mixer over the seed and the ID's FNV-1a hash,
// cut to 53 bits (so that it is exact wherever JSON numbers are doubles).
// It depends on neither sharding nor order, and is never 0.
func TaskSeed(seed uint64, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	s := mix64(mix64(seed)^h.Sum64()) >> 11
	if s == 0 {
		s = 1
	}
	return s
}

// mix64 is SplitMix64's output function (one step from x).
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// tasks expands the grid in grid order. seed is the sweep's seed (nil: the
// command takes none).
func (g *Grid) tasks(seed *uint64) ([]Task, error) {
	n, err := g.Size()
	if err != nil {
		return nil, err
	}
	points := g.Points
	if len(points) == 0 {
		points = []Point{nil}
	}
	tasks := make([]Task, 0, n)
	ids := make(map[string]int, n)
	idx := make([]int, len(g.Dims))
	for _, base := range points {
		for {
			p := append(Point(nil), base...)
			for d, dim := range g.Dims {
				p = append(p, Param{dim.Name, dim.Values[idx[d]]})
			}
			t := Task{Index: len(tasks), ID: TaskID(g.Command, p), Point: p}
			if j, dup := ids[t.ID]; dup {
				return nil, fmt.Errorf("sweep: grid points %d and %d are the same (%s)", j+1, t.Index+1, p)
			}
			ids[t.ID] = t.Index
			t.Args = append(t.Args, g.Command)
			for _, q := range p {
				t.Args = append(t.Args, "--"+q.Name+"="+q.Value.String())
			}
			if seed != nil {
				s := TaskSeed(*seed, t.ID)
				t.Seed = &s
				t.Args = append(t.Args, "--seed="+strconv.FormatUint(s, 10))
			}
			tasks = append(tasks, t)
			// Odometer: the last dimension varies fastest.
			d := len(idx) - 1
			for ; d >= 0; d-- {
				idx[d]++
				if idx[d] < len(g.Dims[d].Values) {
					break
				}
				idx[d] = 0
			}
			if d < 0 {
				break
			}
		}
	}
	return tasks, nil
}
