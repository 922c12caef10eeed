package plots

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func labelsOf(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

// Axes are labelled at round numbers: integers on an integer axis, 1-2-5
// on log axes over a few decades, every decade beyond.
func TestTicks(t *testing.T) {
	for _, c := range []struct {
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{linTicks{integer: true}, 1.5, 10.5, "2 3 4 5 6 7 8 9 10"},
		{linTicks{integer: true}, 0, 40, "0 5 10 15 20 25 30 35 40"},
		{linTicks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{linTicks{}, -0.02, 0.73, "0.0 0.1 0.2 0.3 0.4 0.5 0.6 0.7"},
		{linTicks{}, 2.7, 3.95, "2.8 3.0 3.2 3.4 3.6 3.8"},
		{linTicks{}, 0, 100000, "0 20,000 40,000 60,000 80,000 100,000"},
		{logTicks{}, 40, 3700, "50 100 200 500 1000 2000"},
		{logTicks{}, 1.3, 1500, "2 5 10 20 50 100 200 500 1000"},
		{logTicks{}, 0.5, 200000, "1 10 100 1000 10,000 100,000"},
		{logTicks{}, 2.8, 3.9, "3"},
		{logTicks{}, 0.02, 0.9, "0.02 0.05 0.1 0.2 0.5"},
		{logTicksAt{values: []float64{1, 4, 10, 30}}, 0.9, 35, "1 4 10 30"},
	} {
		t.Run(fmt.Sprintf("%T [%v, %v]", c.ticker, c.lo, c.hi), func(t *testing.T) {
			if got := strings.Join(labelsOf(c.ticker.Ticks(c.lo, c.hi)), " "); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
	// Minor ticks between the labels, none on them.
	ts := linTicks{}.Ticks(0, 1)
	if len(ts) <= 6 {
		t.Errorf("no minor ticks: %v", ts)
	}
	if thousands(100000) != "100,000" || thousands(1000) != "1,000" || thousands(100) != "100" || vector([]float64{0.7, 0.3}) != "(0.7, 0.3)" {
		t.Error("number formats")
	}
}

// Axis ranges are padded so that markers at the ends clear the axes.
func TestPad(t *testing.T) {
	p := plot.New()
	p.X.Min, p.X.Max = 0, 10
	pad(&p.X, 0.05)
	if p.X.Min != -0.5 || p.X.Max != 10.5 {
		t.Errorf("linear: [%v, %v]", p.X.Min, p.X.Max)
	}
	logAxes(p, "y")
	p.Y.Min, p.Y.Max = 1, 100
	pad(&p.Y, 0.05)
	if !(p.Y.Min < 1 && p.Y.Min > 0.7 && p.Y.Max > 100 && p.Y.Max < 130) {
		t.Errorf("log: [%v, %v]", p.Y.Min, p.Y.Max)
	}
}

// Every figure's text names models, never internal file numbers or
// write-ups.
func TestFigureWords(t *testing.T) {
	dir := t.TempDir()
	f, err := Make("exchange", &Settings{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.WriteTo(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"seed 0", "SPEC", "[0.7 0.3]"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the figure shows %q", bad)
		}
	}
}

// The catalogue reports progress while it computes (done rises to the
// total), and nothing when it reads the cache.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	var calls [][2]int
	s := &Settings{DataDir: dir, Progress: func(done, total int64, _ string) { calls = append(calls, [2]int{int(done), int(total)}) }}
	if _, err := Make("exchange", s); err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatal("no progress reported")
	}
	last := calls[len(calls)-1]
	if last[0] != last[1] || last[1] == 0 {
		t.Errorf("last report %v", last)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] || calls[i][0] > calls[i][1] {
			t.Errorf("reports %v then %v", calls[i-1], calls[i])
		}
	}
	calls = nil
	if _, err := Make("exchange", s); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("%d reports reading the cache", len(calls))
	}
	var m *meter // a nil meter counts nothing
	m.grow(3)
	m.add(1)
	if m.arrivals() != nil {
		t.Error("a nil meter's arrivals counter")
	}
}

type checked struct{ OK bool }

func (c *checked) check() error {
	if !c.OK {
		return errors.New("incomplete")
	}
	return nil
}

// A cached file that fails its data's check (written before the data
// gained a field) is recomputed and overwritten; a good one is read.
func TestStaleCache(t *testing.T) {
	dir := t.TempDir()
	computed := 0
	mk := figureOf("fake", func(*Settings, *meter) (*checked, error) {
		computed++
		return &checked{OK: true}, nil
	}, func(*checked) (*Figure, error) { return &Figure{Name: "fake"}, nil })
	path := filepath.Join(dir, "fake.json")
	if err := os.WriteFile(path, []byte(`{"cache_version": 1, "figure": "fake", "quick": false, "seed": 0, "data": {"OK": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := mk(&Settings{DataDir: dir}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c cacheFile[checked]
	if err := json.Unmarshal(b, &c); err != nil || c.Data == nil || !c.Data.OK || computed != 1 {
		t.Errorf("computed %d times; the cache holds %s", computed, b)
	}
}

// A legend lays out its entries column by column, and its notes under
// them.
func TestLegendBox(t *testing.T) {
	lg := newLegend(2)
	for _, s := range []string{"a", "b", "c"} {
		lg.add(s)
	}
	lg.note("a longer note than the entries")
	w, h := lg.size()
	if lg.rows() != 2 || w < lg.style.Width("a longer note than the entries") || h < 3*lg.rowHeight() {
		t.Errorf("rows %d, size %v × %v", lg.rows(), w, h)
	}
	if cw := lg.colWidths(); len(cw) != 2 || cw[1] <= 0 {
		t.Errorf("column widths %v", cw)
	}
}
