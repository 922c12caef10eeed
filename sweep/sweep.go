package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluidlb/fluid/lists"
)

// ManifestName is the name of the sweep's description in its directory.
const ManifestName = "sweep.json"

// Sweep is a grid expanded into tasks.
type Sweep struct {
	Grid Grid
	// Seed is the sweep's seed for commands that take --seed (nil: the
	// command takes none). Each task's seed derives from it (TaskSeed).
	Seed *uint64
	// Version is the version of the program that started the sweep, as its
	// reports carry it (recorded in the manifest, not compared).
	Version string
	// Tasks in grid order.
	Tasks []Task
}

// New checks the grid and expands it into tasks.
func New(g Grid, seed *uint64) (*Sweep, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	tasks, err := g.tasks(seed)
	if err != nil {
		return nil, err
	}
	return &Sweep{Grid: g, Seed: seed, Tasks: tasks}, nil
}

// Describe is a one-line description: the command, the grid's shape and
// the number of tasks.
func (s *Sweep) Describe() string {
	var dims []string
	if n := len(s.Grid.Points); n > 0 {
		names := make([]string, len(s.Grid.Points[0]))
		for i, q := range s.Grid.Points[0] {
			names[i] = q.Name
		}
		dims = append(dims, fmt.Sprintf("%d points of (%s)", n, strings.Join(names, ", ")))
	}
	for _, d := range s.Grid.Dims {
		dims = append(dims, fmt.Sprintf("%d %s", len(d.Values), d.Name))
	}
	shape := "one point"
	if len(dims) > 0 {
		shape = strings.Join(dims, " × ")
	}
	tasks := fmt.Sprintf("%d tasks", len(s.Tasks))
	if len(s.Tasks) == 1 {
		tasks = "1 task"
	}
	desc := fmt.Sprintf("fluid %s over %s: %s", s.Grid.Command, shape, tasks)
	if s.Seed != nil {
		desc += fmt.Sprintf(", seed %d", *s.Seed)
	}
	return desc
}

// manifest is sweep.json: everything that defines the tasks, so that
// merge and status need only the directory, and a rerun into the
// directory can be checked against it.
type manifest struct {
	Format       int         `json:"format"`
	Command      string      `json:"command"`
	Seed         *uint64     `json:"seed,omitempty"`
	PointColumns []columnDef `json:"point_columns,omitempty"`
	Points       [][]string  `json:"points,omitempty"`
	Dims         []dimDef    `json:"dims"`
	Tasks        int         `json:"tasks"`
	Version      string      `json:"fluid,omitempty"`
}

type columnDef struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type dimDef struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Values []string `json:"values"`
}

func (s *Sweep) manifest() *manifest {
	m := &manifest{Format: 1, Command: s.Grid.Command, Seed: s.Seed, Tasks: len(s.Tasks), Version: s.Version, Dims: []dimDef{}}
	for i, p := range s.Grid.Points {
		row := make([]string, len(p))
		for j, q := range p {
			row[j] = q.Value.String()
			if i == 0 {
				m.PointColumns = append(m.PointColumns, columnDef{q.Name, q.Value.Kind().String()})
			}
		}
		m.Points = append(m.Points, row)
	}
	for _, d := range s.Grid.Dims {
		dd := dimDef{Name: d.Name, Kind: d.Kind.String(), Values: make([]string, len(d.Values))}
		for i, v := range d.Values {
			dd.Values[i] = v.String()
		}
		m.Dims = append(m.Dims, dd)
	}
	return m
}

// definition is the manifest without what does not define the tasks.
func (m *manifest) definition() []byte {
	c := *m
	c.Version = ""
	b, _ := json.Marshal(&c)
	return b
}

// sweep rebuilds the sweep a manifest describes.
func (m *manifest) sweep() (*Sweep, error) {
	if m.Format != 1 {
		return nil, fmt.Errorf("format %d, want 1", m.Format)
	}
	g := Grid{Command: m.Command}
	var kinds []lists.Kind
	for _, c := range m.PointColumns {
		k, err := lists.ParseKind(c.Kind)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, k)
	}
	for _, row := range m.Points {
		if len(row) != len(kinds) {
			return nil, fmt.Errorf("a point of %d values for %d columns", len(row), len(kinds))
		}
		var p Point
		for j, text := range row {
			v, err := lists.ParseValue(kinds[j], text)
			if err != nil {
				return nil, fmt.Errorf("--%s: %v", m.PointColumns[j].Name, err)
			}
			p = append(p, Param{m.PointColumns[j].Name, v})
		}
		g.Points = append(g.Points, p)
	}
	for _, dd := range m.Dims {
		k, err := lists.ParseKind(dd.Kind)
		if err != nil {
			return nil, err
		}
		d := Dim{Name: dd.Name, Kind: k}
		for _, text := range dd.Values {
			v, err := lists.ParseValue(k, text)
			if err != nil {
				return nil, fmt.Errorf("--%s: %v", dd.Name, err)
			}
			d.Values = append(d.Values, v)
		}
		g.Dims = append(g.Dims, d)
	}
	s, err := New(g, m.Seed)
	if err != nil {
		return nil, err
	}
	if len(s.Tasks) != m.Tasks {
		return nil, fmt.Errorf("%d tasks recorded, the grid has %d", m.Tasks, len(s.Tasks))
	}
	s.Version = m.Version
	return s, nil
}

// ErrNoSweep is returned by Open for a directory without a manifest.
var ErrNoSweep = errors.New("no sweep")

// Open reads the sweep described in dir's manifest.
func Open(dir string) (*Sweep, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %s holds %w (no %s)", dir, ErrNoSweep, ManifestName)
	}
	if err != nil {
		return nil, err
	}
	s, err := decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: %v", path, err)
	}
	return s, nil
}

// decodeManifest rebuilds the sweep from the text of its manifest.
func decodeManifest(b []byte) (*Sweep, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m.sweep()
}

// Start prepares dir for the sweep: it creates the directory and writes
// the manifest atomically (a temporary file linked into place, so that of
// several shards starting at once exactly one writes it), or checks that
// the manifest already there describes the same sweep.
func (s *Sweep) Start(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, ManifestName)
	want := s.manifest()
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(dir, ".sweep-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	switch err := os.Link(tmp.Name(), path); {
	case err == nil:
		return syncDir(dir)
	case !errors.Is(err, fs.ErrExist):
		return err
	}
	old, err := Open(dir)
	if err != nil {
		return err
	}
	if have := old.manifest(); !bytes.Equal(have.definition(), want.definition()) {
		return &MismatchError{Dir: dir, Have: old.Describe(), Diff: difference(have, want)}
	}
	return nil
}

// MismatchError is a run into a directory that holds another sweep.
type MismatchError struct {
	Dir  string
	Have string // the sweep in Dir
	Diff string // what differs
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s holds another sweep (%s): %s; give another --out, or delete %s to start over",
		e.Dir, e.Have, e.Diff, e.Dir)
}

// difference says how the sweep in a directory (a) differs from b.
func difference(a, b *manifest) string {
	if a.Command != b.Command {
		return fmt.Sprintf("it runs fluid %s, this one fluid %s", a.Command, b.Command)
	}
	seed := func(s *uint64) string {
		if s == nil {
			return "none"
		}
		return fmt.Sprint(*s)
	}
	if seed(a.Seed) != seed(b.Seed) {
		return fmt.Sprintf("its seed is %s, this one's %s", seed(a.Seed), seed(b.Seed))
	}
	cols := func(m *manifest) string {
		var names []string
		for _, c := range m.PointColumns {
			names = append(names, c.Name)
		}
		if len(m.Points) > 0 {
			names = append(names, fmt.Sprintf("(%d points)", len(m.Points)))
		}
		for _, d := range m.Dims {
			names = append(names, d.Name)
		}
		return strings.Join(names, ", ")
	}
	if ca, cb := cols(a), cols(b); ca != cb {
		return fmt.Sprintf("its grid is over %s, this one over %s", orNone(ca), orNone(cb))
	}
	list := func(vs []string) string {
		if len(vs) > 6 {
			return strings.Join(vs[:3], ",") + ",…," + strings.Join(vs[len(vs)-2:], ",") + fmt.Sprintf(" (%d values)", len(vs))
		}
		return strings.Join(vs, ",")
	}
	for i, d := range a.Dims {
		if list(d.Values) != list(b.Dims[i].Values) || d.Kind != b.Dims[i].Kind {
			return fmt.Sprintf("--%s is %s there, %s here", d.Name, list(d.Values), list(b.Dims[i].Values))
		}
	}
	return "its explicit points differ"
}

func orNone(s string) string {
	if s == "" {
		return "no flags"
	}
	return s
}

// syncDir makes a directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
