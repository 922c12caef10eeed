package plots

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/outcome"
)

// renders checks that a figure has a title and axis labels on its first
// panel, renders to PNG and SVG, and that the SVG shows the legend (or
// colour bar) texts legend.
func renders(t *testing.T, f *Figure, legend ...string) {
	t.Helper()
	p := f.Plots[0]
	if p.Title.Text == "" || p.X.Label.Text == "" || p.Y.Label.Text == "" {
		t.Errorf("%s: title %q, axes %q / %q", f.Name, p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	if len(legend) == 0 {
		t.Fatalf("%s: the test names no legend entry", f.Name)
	}
	for _, format := range []string{"png", "svg"} {
		var b bytes.Buffer
		if err := f.WriteTo(&b, format); err != nil {
			t.Fatalf("%s: %s: %v", f.Name, format, err)
		}
		magic := map[string]string{"png": "\x89PNG", "svg": "<?xml"}[format]
		if !strings.HasPrefix(b.String(), magic) || b.Len() < 2000 {
			t.Errorf("%s: %s output of %d bytes starts %q", f.Name, format, b.Len(), b.String()[:min(8, b.Len())])
		}
		if format == "svg" {
			for _, l := range legend {
				if !strings.Contains(b.String(), l) {
					t.Errorf("%s: the SVG does not show %q", f.Name, l)
				}
			}
		}
	}
}

// The edge points are the solver's (fluid edge) numbers, and the figure
// renders.
func TestEdgeFigure(t *testing.T) {
	var res []*staleboard.EdgeResult
	for _, k := range []int{2, 3, 5} {
		r, err := staleboard.Edge(&staleboard.System{K: k, Load: 0.9}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	d, err := NewEdgeData(res, []EdgeBracket{{K: 5, Load: 0.9, N: 100, Horizon: 100, Edge: 3.2, Lo: 3.15, Hi: 3.25}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Points {
		if p.K != res[i].K || p.Scaled != res[i].Scaled || p.Found != (res[i].Status == outcome.EdgeFound) {
			t.Errorf("point %d: %+v, solver %+v", i, p, res[i])
		}
	}
	// Published model edges: k = 2 has no edge, k = 5 at 2.90.
	if d.Points[0].Found {
		t.Errorf("points %+v: k = 2 has an edge", d.Points)
	}
	// The published 2.90 is given to two decimals; 1% around it.
	approx.Check(t, "k = 5 edge T*(1−λ)²", d.Points[2].Scaled, 2.90, 0, 0.01)
	f, err := EdgeFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "map, λ = 0.9", "0.9·(k − 2)", "bistable: balanced or herd", "balanced only")
	if _, err := NewEdgeData(res, []EdgeBracket{{Edge: 3, Lo: math.NaN(), Hi: 3}}); err == nil {
		t.Error("NaN bracket accepted")
	}
}

// The map's points come from the refresh-period map (published: the
// herd's mean time is 0.40·T, the balanced state single digits).
func TestBistabilityFigure(t *testing.T) {
	pt, err := mapBistability(5, 0.9, 1100)
	if err != nil {
		t.Fatal(err)
	}
	// Published to two digits: 2% around 0.40.
	approx.Check(t, "T = 1100: herd mean time / T", pt.Herd/1100, 0.40, 0, 0.02)
	approx.Within(t, "T = 1100: balanced mean time", pt.Balanced, 0, 10)
	low := BistabilityPoint{Period: 100, Balanced: 70, Herd: 70}
	d, err := NewBistabilityData(5, 0.9, 100, []BistabilityPoint{low, pt}, []BistabilityPoint{{Period: 1100, Balanced: 6.4, Herd: 449, BalancedCI: 0.1, HerdCI: 5}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := BistabilityFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "map, empty start", "simulation N = 100, half-loaded start", "0.40·T")
	if _, err := NewBistabilityData(5, 0.9, 100, []BistabilityPoint{{Period: 1, Balanced: math.Inf(1), Herd: 1}}, nil); err == nil {
		t.Error("Inf accepted")
	}
	if _, err := NewBistabilityData(5, 0.9, 100, []BistabilityPoint{{Period: 1, Balanced: 0, Herd: 1}}, nil); err == nil {
		t.Error("zero on a log axis accepted")
	}
}

// Every cell of the blocking map is the product form's value; at the
// corners it matches Theorem 1 up to the finite-N gap.
func TestBlockingMap(t *testing.T) {
	d, err := computeBlockingMapData(true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range [][2]int{{0, 0}, {len(d.Load) - 1, len(d.Alpha1) - 1}, {12, 7}} {
		r, c := rc[0], rc[1]
		a := d.Alpha1[c]
		t.Run(fmt.Sprintf("λ=%v α₁=%v", d.Load[r], a), func(t *testing.T) {
			want, err := jackson.Solve(&jackson.JIQ{Servers: d.N, Load: d.Load[r], Alpha: []float64{a, 1 - a}})
			if err != nil {
				t.Fatal(err)
			}
			if d.Blocking[r][c] != want.Blocking {
				t.Errorf("%v, product form %v", d.Blocking[r][c], want.Blocking)
			}
			// Theorem 1: B → max{1 − 2α₂, 1 − 1/λ}; at N = 10⁴ within 0.01.
			approx.Check(t, "B against Theorem 1", d.Blocking[r][c], math.Max(1-2*(1-a), 1-1/d.Load[r]), 0.01, 0)
		})
	}
	f, err := BlockingMapFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "crossover", "blocking probability")
	// The colour bar says what the colours are once: a label, no title.
	var svg bytes.Buffer
	if err := f.WriteTo(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), ">blocking"); n != 1 {
		t.Errorf("the SVG shows \"blocking…\" %d times, want once (the colour bar's label)", n)
	}
	if _, err := NewBlockingMapData(10, []float64{0.5}, []float64{1}, [][]float64{{math.NaN()}}); err == nil {
		t.Error("NaN cell accepted")
	}
}

// The fluid curve follows the closed-form JIQ trajectory before x₁ empties
// (x₀ = λ(1 − e^{−t}), t₁ = 2.672669), and the simulated means lie within
// their spread of it.
func TestTrajectoryFigure(t *testing.T) {
	d, err := computeTrajectoryData(true, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range d.FluidT {
		// The figure's integration tolerance (1e-10) with room for the
		// output interpolation.
		if tt < 2.6 && !approx.Check(t, fmt.Sprintf("x₀(%v)", tt), d.Fluid[0][i], 0.5*(1-math.Exp(-tt)), 1e-8, 0) {
			t.FailNow()
		}
	}
	for j, tt := range d.SimT {
		i := int(math.Round(tt / 0.05))
		for q := range 3 {
			// The mean of 10 runs is within 2 standard deviations of one run
			// (≈ 6 standard errors) of the fluid value, plus 2/N.
			approx.Check(t, fmt.Sprintf("t=%v component %d: simulated mean", tt, q), d.Sim[q][j], d.Fluid[q][i], 2*d.Spread[q][j]+0.002, 0)
		}
	}
	f, err := TrajectoryFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "x₀: busy servers", "fluid limit", "simulation, N = 1,000")
}

// Token exchange: blocking 0.4 without exchange (Theorem 1), ν* = 3.6,
// zero blocking and wait from ν* on (docs/models.md#limits-and-the-two-enhancements).
func TestExchangeFigure(t *testing.T) {
	d, err := computeExchangeData(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Closed forms: rounding only (ν* is a ratio, 1e-9 leaves room for
	// its root solve).
	approx.Check(t, "B(0)", d.Blocking[0], 0.4, 1e-12, 0)
	approx.Check(t, "ν*", d.NuStar, 3.6, 1e-9, 0)
	for i, nu := range d.Nu {
		// Zero within rounding (1e-12) from ν* on, positive below.
		above := nu >= d.NuStar-1e-12
		if above != approx.Equal(d.Blocking[i], 0, 1e-12, 0) || above != approx.Equal(d.MeanWait[i], 0, 1e-12, 0) {
			t.Errorf("ν = %v: blocking %v, wait %v", nu, d.Blocking[i], d.MeanWait[i])
		}
	}
	f, err := ExchangeFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "blocking scenario", "queueing scenario", "ν* = 3.6")
}

// The theory curves of the size figure are the solvers' numbers: best of
// two under PS is 2.614 for every SCV (the mean field is insensitive), under
// FCFS 4.16, 6.75 and 14.79 at SCV 4, 10 and 30; random dispatch is the
// M/G/1 queue, 10 under PS and Pollaczek–Khinchine under FCFS, which the
// mean field with d = 1 reproduces; least loaded is 1.
func TestSizesTheory(t *testing.T) {
	scvs := []float64{1, 4, 10, 30}
	th, err := SizeTheoryBySCV(0.9, scvs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"jsqd:2/fcfs": {2.6141, 4.1629, 6.7513, 14.7937},
		"jsqd:2/ps":   {2.6141, 2.6141, 2.6141, 2.6141},
		"random/fcfs": {10, 23.5, 50.5, 140.5},
		"random/ps":   {10, 10, 10, 10},
		"jsq/fcfs":    {1, 1, 1, 1},
		"jsq/ps":      {1, 1, 1, 1},
	}
	if len(th) != len(want) {
		t.Fatalf("%d theory curves, want %d", len(th), len(want))
	}
	for _, c := range th {
		t.Run(c.Policy+"/"+c.Discipline, func(t *testing.T) {
			w, ok := want[c.Policy+"/"+c.Discipline]
			if !ok {
				t.Fatal("unexpected curve")
			}
			if !slices.Equal(c.X, scvs) {
				t.Errorf("SCVs %v, want %v", c.X, scvs)
			}
			// The published values are given to 5 significant digits.
			approx.Slices(t, "mean sojourn", c.Mean, w, 0, 1e-4)
			if c.Source == "" {
				t.Error("no source")
			}
		})
	}
	// The closed forms of random dispatch against the mean field with
	// d = 1 (where it is quick: with H2 sizes under PS it takes a minute),
	// and best of two against bestofd.FixedPoint.
	for _, c := range th {
		d := map[string]int{"random": 1, "jsqd:2": 2}[c.Policy]
		if d == 0 {
			continue
		}
		disc, err := farm.ParseDiscipline(c.Discipline)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range c.X[:3] {
			if d == 1 && (x == 4 || (x > 1 && disc == farm.PS)) {
				continue
			}
			fp, err := bestofd.FixedPoint(&bestofd.Model{D: d, Load: 0.9, Discipline: disc, Sizes: sizesOf(x)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Two solvers of one fixed point, each to 1e-8 or better.
			approx.Check(t, fmt.Sprintf("%s/%s at SCV %v against the mean field", c.Policy, c.Discipline, x), c.Mean[i], fp.Sojourn, 0, 1e-6)
		}
	}
	// The stale board: the attractor of the periodic-update map, above
	// the live mean field, and near the N = 100 simulations (5.11 and 3.68
	// at T = 10).
	ages, err := SizeTheoryByAge(0.9, []float64{1, 10})
	if err != nil {
		t.Fatal(err)
	}
	for i, c2 := range []float64{1, 30} {
		c := ages[i]
		res, err := bestofd.Attractor(&bestofd.PeriodicUpdate{D: 2, Load: 0.9, Period: 10, Discipline: farm.PS, Sizes: sizesOf(c2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Policy != "board-jsqd:2" || c.Mean[1] != res.Sojourn || c.Mean[0] <= 2.6141 || c.Mean[1] <= c.Mean[0] {
			t.Errorf("board, SCV %v: %+v, attractor at T = 10 %v", c2, c, res.Sojourn)
		}
		// The simulations' own error and the finite-N gap at N = 100: 3%.
		approx.Check(t, fmt.Sprintf("board, SCV %v, T = 10: mean field against simulation", c2), c.Mean[1], []float64{5.11, 3.68}[i], 0, 0.03)
	}
}

func TestSizesFigure(t *testing.T) {
	ser := func(pol, disc string) SizeSeries {
		return SizeSeries{Policy: pol, Discipline: disc, X: []float64{1, 4, 10, 30}, Mean: []float64{10, 23, 51, 140}, CI95: []float64{0.1, 0.3, 1, 4}}
	}
	th := func(pol, disc string) SizeTheory {
		return SizeTheory{Policy: pol, Discipline: disc, Source: SourceMG1, X: []float64{1, 30}, Mean: []float64{10, 140.5}}
	}
	age := SizeTheory{Policy: "board-jsqd:2", Discipline: "ps", Sizes: "exp", Source: SourceMeanField, X: []float64{1, 10}, Mean: []float64{2.9, 5.1}}
	d, err := NewSizesData(100, 0.9, 1000, 8, []SizeSeries{ser("random", "fcfs"), ser("random", "ps")},
		[]SizeSeries{{Policy: "board-jsq", Discipline: "ps", Sizes: "exp", X: []float64{1, 10}, Mean: []float64{3, 20}, CI95: []float64{0.1, 1}},
			{Policy: "board-jsqd:2", Discipline: "ps", Sizes: "exp", X: []float64{1, 10}, Mean: []float64{3, 5}, CI95: []float64{0.1, 1}}},
		[]SizeTheory{th("random", "fcfs"), th("random", "ps")}, []SizeTheory{age})
	if err != nil {
		t.Fatal(err)
	}
	f, err := SizesFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "random, FCFS", "random, PS", "least loaded, exp sizes", "best of two, exp sizes", "lines: N → ∞ theory", "markers: simulation")
	bad := ser("random", "fcfs")
	bad.Mean[2] = math.NaN()
	if _, err := NewSizesData(100, 0.9, 1000, 8, []SizeSeries{bad}, nil, []SizeTheory{th("random", "fcfs")}, nil); err == nil {
		t.Error("NaN mean accepted")
	}
	if _, err := NewSizesData(100, 0.9, 1000, 8, []SizeSeries{{Policy: "x", X: []float64{1}}}, nil, []SizeTheory{th("random", "fcfs")}, nil); err == nil {
		t.Error("ragged series accepted")
	}
	badTh := th("random", "fcfs")
	badTh.Mean = []float64{10, math.Inf(1)}
	if _, err := NewSizesData(100, 0.9, 1000, 8, nil, nil, []SizeTheory{badTh}, nil); err == nil {
		t.Error("infinite theory accepted")
	}
	if _, err := NewSizesData(100, 0.9, 1000, 8, []SizeSeries{ser("random", "fcfs")}, nil, nil, nil); err == nil {
		t.Error("data without theory accepted (a stale cache)")
	}
}

// The catalogue caches data: the second Make reads the JSON written by
// the first, and draws the same figure.
func TestCatalogueCache(t *testing.T) {
	dir := t.TempDir()
	f1, err := Make("exchange", &Settings{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "exchange.json")); err != nil {
		t.Fatal(err)
	}
	f2, err := Make("exchange", &Settings{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := f1.WriteTo(&a, "svg"); err != nil {
		t.Fatal(err)
	}
	if err := f2.WriteTo(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the cached figure differs")
	}
	if _, err := Make("nope", nil); err == nil {
		t.Error("unknown figure accepted")
	}
	if err := f1.Save(filepath.Join(dir, "x.gif")); err == nil {
		t.Error("unknown format accepted")
	}
}

// The finite-N figure draws what it is given: two panels, a curve and
// points per N, and it refuses ragged or non-finite data.
func TestFiniteEdgeFigure(t *testing.T) {
	e := 3.2
	d := &FiniteEdgeData{K: 5, Load: 0.9, Horizon: 100, Infinite: 2.9, EdgeN: []int{25, 100, 800}, Edge: []float64{3.6, 3.13, 2.99},
		Curves: []TipCurveData{{N: 100, Scaled: []float64{3, 3.2, 3.4}, Theory: []float64{1, 0.4, 0},
			SimScaled: []float64{3.1, 3.3}, SimFraction: []float64{0.9, 0.1}, SimLo: []float64{0.7, 0.02}, SimHi: []float64{0.98, 0.3},
			SimEdge: &e, SimEdgeLo: &e, SimEdgeHi: &e}}}
	f, err := FiniteEdgeFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Plots) != 2 || f.Plots[1].X.Label.Text != "servers N" {
		t.Errorf("panels %d", len(f.Plots))
	}
	if err := f.Save(filepath.Join(t.TempDir(), "finite.png")); err != nil {
		t.Fatal(err)
	}
	d.Curves[0].SimLo = d.Curves[0].SimLo[:1]
	if _, err := FiniteEdgeFigure(d); err == nil {
		t.Error("ragged data drawn")
	}
}

// The trap-door figure draws what its data says and refuses data that
// contradicts itself: a b* outside its own bracket, a NaN.
func TestTrapDoorFigure(t *testing.T) {
	// Values as fluid trapdoor prints them at k = 5, λ = 0.9 (T = 320,
	// 1,000); the figure only draws them.
	empty := []TrapDoorPoint{{Period: 320, Critical: 0.047, Lo: 0.0469, Hi: 0.0471}, {Period: 1000, Critical: 0.0663, Lo: 0.0662, Hi: 0.0664}}
	onBal := []TrapDoorPoint{{Period: 320, Critical: 0.0329, Lo: 0.0328, Hi: 0.0330}, {Period: 1000, Critical: 0.0634, Lo: 0.0633, Hi: 0.0635}}
	d := &TrapDoorData{K: 5, Load: 0.9, Edge: 289.93, N: 100, Empty: empty, OnBalanced: onBal, Sim: []TrapDoorSimPoint{{Period: 1000, Edge: 0.066, Lo: 0.064, Hi: 0.068}}}
	if err := d.check(); err != nil {
		t.Fatal(err)
	}
	f, err := TrapDoorFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	renders(t, f, "map, pushed from the empty start", "map, pushed on the balanced state", "simulation N = 100", "edge T* = 290")
	bad := []func(d *TrapDoorData){
		func(d *TrapDoorData) { d.Empty = []TrapDoorPoint{{Period: 500, Critical: 0.07, Lo: 0.05, Hi: 0.06}} },
		func(d *TrapDoorData) {
			d.OnBalanced = []TrapDoorPoint{{Period: 500, Critical: math.NaN(), Lo: 0.05, Hi: 0.06}}
		},
		func(d *TrapDoorData) { d.Sim = []TrapDoorSimPoint{{Period: 500, Edge: 0.1, Lo: 0.05, Hi: 0.06}} },
		func(d *TrapDoorData) { d.Empty = nil },
	}
	for i, change := range bad {
		c := *d
		change(&c)
		if err := c.check(); err == nil {
			t.Errorf("bad data %d accepted", i)
		}
	}
}

// The best-of-d figure draws from its data (synthetic here: the map
// points cost minutes), and its data check refuses what the log axes
// cannot show.
func TestBestdFigure(t *testing.T) {
	pt := []BistabilityPoint{{Period: 100, Balanced: 20, Herd: 20}, {Period: 2000, Balanced: 6, Herd: 330}}
	d := &BestdData{K: 5, Load: 0.9, N: 100, Curves: []BestdCurve{
		{Policy: "tally", Map: pt},
		{Policy: "tally-jsqd:2", Map: pt, Sim: []BistabilityPoint{{Period: 2000, Balanced: 6.9, Herd: 337, BalancedCI: 0.1, HerdCI: 2}}},
	}}
	if err := d.check(); err != nil {
		t.Fatal(err)
	}
	f, err := BestdFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	// Data without a tally model predate the projection: the rounding's.
	renders(t, f, "map tally-jsqd:2, half-loaded start", "simulation N = 100, tally-jsqd:2, empty start", "by the regular-superposition approximation")
	d.TallyModel = bestdTallyModel
	if f, err = BestdFigure(d); err != nil {
		t.Fatal(err)
	}
	renders(t, f, "by the projected-superposition approximation")
	d.Curves[0].Map = []BistabilityPoint{{Period: 100, Balanced: 0, Herd: 1}}
	if err := d.check(); err == nil {
		t.Error("zero on a log axis accepted")
	}
}
