package plots

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// SizeSeries is one simulated curve: a policy under a discipline (and, for
// the board-age panel, a size law) against SCV or board age.
type SizeSeries struct {
	Policy     string    `json:"policy"`
	Discipline string    `json:"discipline"`
	Sizes      string    `json:"sizes,omitempty"`
	X          []float64 `json:"x"` // SCV, or board age T
	Mean       []float64 `json:"mean"`
	CI95       []float64 `json:"ci95"`
}

// SizeTheory is one theory curve: the N → ∞ mean time in system of a
// policy under a discipline (and, for the board-age panel, a size law)
// against SCV or board age.
type SizeTheory struct {
	Policy     string `json:"policy"`
	Discipline string `json:"discipline"`
	Sizes      string `json:"sizes,omitempty"`
	// Source names the theory: SourceMeanField, SourceMG1 or SourceIdle.
	Source string    `json:"source"`
	X      []float64 `json:"x"`
	Mean   []float64 `json:"mean"`
}

// Sources of the theory curves.
const (
	// SourceMeanField is the mean field of package meanfield/bestofd: best
	// of d on live counts (FixedPoint), or on a board of age T
	// (Attractor of the periodic-update map).
	SourceMeanField = "mean field"
	// SourceMG1 is random dispatch, each server an M/G/1 queue: E[T] =
	// 1 + λ(1 + c²)/(2(1 − λ)) under FCFS (Pollaczek–Khinchine) and
	// 1/(1 − λ) under PS.
	SourceMG1 = "M/G/1"
	// SourceIdle is least loaded as N → ∞ at λ < 1: every job finds an idle
	// server, E[T] = 1 under either discipline.
	SourceIdle = "idle server"
)

// SizesData is the data of the size-spread figure, N = 100,
// λ = 0.9: simulated curves and the theory's N → ∞ curves where there is
// a theory (none for round robin, nor for least loaded on a board, whose
// period map does not settle).
type SizesData struct {
	N           int          `json:"servers"`
	Load        float64      `json:"load"`
	Jobs        int          `json:"jobs"` // per replication
	Reps        int          `json:"reps"`
	BySCV       []SizeSeries `json:"by_scv"`
	ByAge       []SizeSeries `json:"by_age"`
	TheoryBySCV []SizeTheory `json:"theory_by_scv"`
	TheoryByAge []SizeTheory `json:"theory_by_age"`
}

// NewSizesData checks every series (finite, positive means) and theory
// curve (finite, positive; at least one against the SCV).
func NewSizesData(n int, load float64, jobs, reps int, byscv, byage []SizeSeries, thscv, thage []SizeTheory) (*SizesData, error) {
	d := &SizesData{N: n, Load: load, Jobs: jobs, Reps: reps, BySCV: byscv, ByAge: byage, TheoryBySCV: thscv, TheoryByAge: thage}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// check rejects data the figure cannot draw, and data cached before the
// theory curves were added.
func (d *SizesData) check() error {
	for _, set := range [][]SizeSeries{d.BySCV, d.ByAge} {
		for _, s := range set {
			if len(s.X) != len(s.Mean) || len(s.X) != len(s.CI95) || len(s.X) == 0 {
				return fmt.Errorf("plots: sizes: series %s/%s has ragged data", s.Policy, s.Discipline)
			}
			if err := finite("sizes "+s.Policy, slices.Concat(s.X, s.Mean, s.CI95)...); err != nil {
				return err
			}
			if err := positive("sizes "+s.Policy, slices.Concat(s.X, s.Mean)...); err != nil {
				return err
			}
		}
	}
	if len(d.TheoryBySCV) == 0 {
		return fmt.Errorf("plots: sizes: no theory curves")
	}
	for _, set := range [][]SizeTheory{d.TheoryBySCV, d.TheoryByAge} {
		for _, s := range set {
			if len(s.X) != len(s.Mean) || len(s.X) == 0 {
				return fmt.Errorf("plots: sizes: theory %s/%s has ragged data", s.Policy, s.Discipline)
			}
			if err := finite("sizes theory "+s.Policy, slices.Concat(s.X, s.Mean)...); err != nil {
				return err
			}
			if err := positive("sizes theory "+s.Policy, slices.Concat(s.X, s.Mean)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// positive checks that every value is positive (log axes).
func positive(what string, xs ...float64) error {
	for _, x := range xs {
		if !(x > 0) {
			return fmt.Errorf("plots: %s: non-positive value %v (log axis)", what, x)
		}
	}
	return nil
}

// sizesOf is the job-size law of SCV c²: exponential for 1, the
// balanced-means H2 otherwise.
func sizesOf(c2 float64) farm.Sizes {
	if c2 == 1 {
		return farm.Sizes{}
	}
	return farm.Sizes{Kind: farm.H2, SCV: c2}
}

// SizeTheoryBySCV computes the N → ∞ mean time in system at load λ
// against the SCV of H2 sizes, at each of scvs, under FCFS and PS: random
// (M/G/1), best of two (the mean field, bestofd.FixedPoint) and least
// loaded (1: every job finds an idle server).
func SizeTheoryBySCV(load float64, scvs []float64) ([]SizeTheory, error) {
	var out []SizeTheory
	for _, disc := range []farm.Discipline{farm.FCFS, farm.PS} {
		rnd := SizeTheory{Policy: "random", Discipline: disc.String(), Source: SourceMG1, X: scvs}
		bo2 := SizeTheory{Policy: "jsqd:2", Discipline: disc.String(), Source: SourceMeanField, X: scvs}
		jsq := SizeTheory{Policy: "jsq", Discipline: disc.String(), Source: SourceIdle, X: scvs}
		for _, c2 := range scvs {
			if disc == farm.FCFS {
				rnd.Mean = append(rnd.Mean, 1+load*(1+c2)/(2*(1-load)))
			} else {
				rnd.Mean = append(rnd.Mean, 1/(1-load))
			}
			fp, err := bestofd.FixedPoint(&bestofd.Model{D: 2, Load: load, Discipline: disc, Sizes: sizesOf(c2)}, nil)
			if err != nil {
				return nil, err
			}
			if fp.Status != outcome.Converged {
				return nil, fmt.Errorf("plots: best of two, %v, SCV %v: the mean field did not converge (%v)", disc, c2, fp.Status)
			}
			bo2.Mean = append(bo2.Mean, fp.Sojourn)
			jsq.Mean = append(jsq.Mean, 1)
		}
		out = append(out, rnd, bo2, jsq)
	}
	return out, nil
}

// SizeTheoryByAge computes the N → ∞ mean time in system of best of two
// on a board of age T under PS (the attractor of the periodic-update
// map, bestofd.Attractor) at load λ, for exponential and SCV-30 sizes, at
// each of ages. The catalogue's sizes figure computes the same curves
// with progress reports; this is its form for library callers (and the
// tests).
func SizeTheoryByAge(load float64, ages []float64) ([]SizeTheory, error) {
	return sizeTheoryByAge(load, ages, nil)
}

// Progress units of the board theory: about 0.01 s of two cores, a point
// costing about 0.02·T^1.5 s of one core with H2 sizes and 0.003·T^1.5 s
// with exponential ones.
func boardWeight(c2, T float64) int {
	c := 0.003
	if c2 != 1 {
		c = 0.02
	}
	return max(1, int(50*c*math.Pow(T, 1.5)))
}

func sizeTheoryByAge(load float64, ages []float64, m *meter) ([]SizeTheory, error) {
	scvs := []float64{1, 30}
	type job struct{ s, a int }
	var jobs []job
	for s := range scvs {
		for a := range ages {
			jobs = append(jobs, job{s, a})
		}
	}
	// The costliest first, for better packing.
	sort.SliceStable(jobs, func(i, j int) bool {
		return boardWeight(scvs[jobs[i].s], ages[jobs[i].a]) > boardWeight(scvs[jobs[j].s], ages[jobs[j].a])
	})
	mean := make([][]float64, len(scvs))
	for s := range mean {
		mean[s] = make([]float64, len(ages))
	}
	for _, j := range jobs {
		m.grow(boardWeight(scvs[j.s], ages[j.a]))
	}
	err := parallel.For(len(jobs), 0, nil, func(i int) error {
		j := jobs[i]
		c2, T := scvs[j.s], ages[j.a]
		res, err := bestofd.Attractor(&bestofd.PeriodicUpdate{D: 2, Load: load, Period: T, Discipline: farm.PS, Sizes: sizesOf(c2)}, nil)
		if err != nil {
			return err
		}
		if !res.Status.OK() {
			return fmt.Errorf("plots: best of two on a board of age %v, SCV %v: the period map did not settle (%v)", T, c2, res.Status)
		}
		mean[j.s][j.a] = res.Sojourn
		m.add(boardWeight(c2, T))
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []SizeTheory
	for s, c2 := range scvs {
		out = append(out, SizeTheory{Policy: "board-jsqd:2", Discipline: "ps", Sizes: sizesOf(c2).String(), Source: SourceMeanField,
			X: slices.Clone(ages), Mean: mean[s]})
	}
	return out, nil
}

// computeSizesData simulates N = 100 servers at λ = 0.9: random, round
// robin, best of two and least loaded under FCFS and PS for SCV 1, 4, 10,
// 30 (H2 sizes); and best of two and least loaded on a board of age T
// under PS for exponential and SCV-30 sizes. 8 replications of 2 million
// jobs as in the published runs (quick: 4 of 100,000, which visibly underestimates
// the heavy-tailed SCV-30 means: a giant stays about 300 time units under
// PS). The theory curves: SizeTheoryBySCV on a grid of SCVs from 1 to 30,
// and SizeTheoryByAge for board ages up to 200 (quick: 50).
//
// Progress units: 65,536 simulated arrivals (about 0.01 s on two cores),
// and the board theory's (boardWeight).
func computeSizesData(quick bool, seed uint64, m *meter) (*SizesData, error) {
	const n, load = 100, 0.9
	jobs, reps := 2_000_000, 8
	if quick {
		jobs, reps = 100_000, 4
	}
	scvs := []float64{1, 4, 10, 30}
	ages := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500}
	maxTheoryAge := 200.0
	if quick {
		maxTheoryAge = 50
	}
	simUnits := reps * (jobs + jobs/10) / 0x10000
	m.grow(simUnits * (2*4*len(scvs) + 2*2*len(ages)))
	thscv, err := SizeTheoryBySCV(load, theorySCVs(scvs))
	if err != nil {
		return nil, err
	}
	var theoryAges []float64
	for _, T := range ages {
		if T <= maxTheoryAge {
			theoryAges = append(theoryAges, T)
		}
	}
	thage, err := sizeTheoryByAge(load, theoryAges, m)
	if err != nil {
		return nil, err
	}
	run := func(pol string, d farm.Discipline, z farm.Sizes, period float64, s uint64) (sim.Estimate, error) {
		p, err := farm.ParsePolicy(pol)
		if err != nil {
			return sim.Estimate{}, err
		}
		res, err := sim.Run(&sim.Model{Servers: n, Load: load, Policy: p, Discipline: d, Sizes: z, Period: period}, &sim.Settings{Jobs: jobs, Reps: reps, Seed: s, Run: outcome.Run{Progress: m.arrivals()}})
		if err != nil {
			return sim.Estimate{}, err
		}
		return res.Sojourn, nil
	}
	var byscv, byage []SizeSeries
	s := seed
	for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
		for _, pol := range []string{"random", "rr", "jsqd:2", "jsq"} {
			ser := SizeSeries{Policy: pol, Discipline: d.String()}
			for _, c2 := range scvs {
				s++
				e, err := run(pol, d, sizesOf(c2), 0, s)
				if err != nil {
					return nil, err
				}
				ser.X, ser.Mean, ser.CI95 = append(ser.X, c2), append(ser.Mean, e.Mean), append(ser.CI95, e.CI95)
			}
			byscv = append(byscv, ser)
		}
	}
	for _, c2 := range []float64{1, 30} {
		for _, pol := range []string{"board-jsqd:2", "board-jsq"} {
			ser := SizeSeries{Policy: pol, Discipline: "ps", Sizes: sizesOf(c2).String()}
			for _, T := range ages {
				s++
				e, err := run(pol, farm.PS, sizesOf(c2), T, s)
				if err != nil {
					return nil, err
				}
				ser.X, ser.Mean, ser.CI95 = append(ser.X, T), append(ser.Mean, e.Mean), append(ser.CI95, e.CI95)
			}
			byage = append(byage, ser)
		}
	}
	return NewSizesData(n, load, jobs, reps, byscv, byage, thscv, thage)
}

// theorySCVs is a grid of 24 SCVs, equally spaced in log from the first to
// the last of scvs, with scvs themselves.
func theorySCVs(scvs []float64) []float64 {
	g := append(logGrid(scvs[0], scvs[len(scvs)-1], 24), scvs...)
	sort.Float64s(g)
	return slices.CompactFunc(g, func(a, b float64) bool { return math.Abs(a-b) < 1e-9*b })
}

// policyStyle is how a policy is drawn in both panels: its name, colour
// (index into palette) and markers (filled, open).
var policyStyle = map[string]struct {
	name         string
	colour       int
	filled, open draw.GlyphDrawer
}{
	"random":       {"random", 0, draw.CircleGlyph{}, draw.RingGlyph{}},
	"rr":           {"round robin", 1, draw.BoxGlyph{}, draw.SquareGlyph{}},
	"jsqd:2":       {"best of two", 2, draw.PyramidGlyph{}, draw.TriangleGlyph{}},
	"jsq":          {"least loaded", 3, diamondGlyph{filled: true}, diamondGlyph{}},
	"board-jsqd:2": {"best of two", 2, draw.PyramidGlyph{}, draw.TriangleGlyph{}},
	"board-jsq":    {"least loaded", 3, diamondGlyph{filled: true}, diamondGlyph{}},
}

// sizesName names a size law for the legend.
func sizesName(s string) string {
	z, err := farm.ParseSizes(s)
	switch {
	case err != nil:
		return s + " sizes"
	case z.Kind == farm.Exponential:
		return "exp sizes"
	case z.Kind == farm.H2:
		return fmt.Sprintf("H2 sizes, SCV %g", z.SCV)
	}
	return z.String() + " sizes"
}

// SizesFigure draws, side by side, the mean time in system against the
// SCV (FCFS: filled markers and solid lines; PS: open markers and dashed
// lines) and against the board age T (PS; exponential sizes filled and
// solid, SCV 30 open and dashed): simulated points with 95% intervals,
// and the N → ∞ theory as lines where there is one.
func SizesFigure(d *SizesData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	left := newPlot(fmt.Sprintf("Size spread: N = %d servers, λ = %g", d.N, d.Load),
		"squared coefficient of variation c² of the job size (H2 sizes; exponential at 1)", "mean time in system (service times)")
	right := newPlot(fmt.Sprintf("Stale board of age T, processor sharing: N = %d, λ = %g", d.N, d.Load),
		"board age T (refresh period, service times)", "mean time in system (service times)")
	for _, p := range []*plot.Plot{left, right} {
		logAxes(p, "xy")
	}
	left.X.Tick.Marker = logTicksAt{values: []float64{1, 2, 4, 10, 20, 30}}
	var err error
	var lleg, rleg *legendBox
	if lleg, err = sizesPanel(left, d.BySCV, d.TheoryBySCV, func(s string) bool { return s == "ps" }, func(s SizeSeries) string {
		return fmt.Sprintf("%s, %s", policyStyle[s.Policy].name, map[string]string{"fcfs": "FCFS", "ps": "PS"}[s.Discipline])
	}, func(s SizeSeries) string { return s.Discipline }); err != nil {
		return nil, err
	}
	if rleg, err = sizesPanel(right, d.ByAge, d.TheoryByAge, func(s string) bool { return s != "exp" }, func(s SizeSeries) string {
		return fmt.Sprintf("%s, %s", policyStyle[s.Policy].name, sizesName(s.Sizes))
	}, func(s SizeSeries) string { return s.Sizes }); err != nil {
		return nil, err
	}
	sims := fmt.Sprintf("markers: simulation, N = %d, %d runs of %s jobs, 95%% intervals", d.N, d.Reps, jobCount(d.Jobs))
	lleg.note(sims)
	lleg.note("lines: N → ∞ theory: M/G/1 (random), mean field (best of two),")
	lleg.note("  every job to an idle server (least loaded); none for round robin")
	rleg.note(sims)
	maxAge := 0.0
	for _, s := range d.TheoryByAge {
		maxAge = math.Max(maxAge, s.X[len(s.X)-1])
	}
	if len(d.TheoryByAge) > 0 {
		rleg.note(fmt.Sprintf("lines: N → ∞ mean field of the board (periodic update, T ≤ %g)", maxAge))
		rleg.note("  none for least loaded, whose period map does not settle")
	}
	for _, p := range []*plot.Plot{left, right} {
		pad(&p.X, 0.025)
		pad(&p.Y, 0.025)
	}
	return sideBySide("sizes", 36*vg.Centimeter, 17*vg.Centimeter, panel{p: left, legend: lleg, below: true}, panel{p: right, legend: rleg, below: true}), nil
}

// jobCount writes a number of jobs for the legend: 2 million, 100,000.
func jobCount(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return fmt.Sprintf("%d million", n/1_000_000)
	}
	return thousands(n)
}

// sizesPanel draws one panel of the size figure: the simulated series as
// markers with error bars, each with its theory curve (same policy and
// variant) as a line, and returns the legend: two columns, by variant
// (the discipline, or the size law), open markers and dashed lines for the
// variant for which second is true.
func sizesPanel(p *plot.Plot, series []SizeSeries, theory []SizeTheory, second func(string) bool,
	name func(SizeSeries) string, variant func(SizeSeries) string) (*legendBox, error) {
	lg := newLegend(2)
	// Legend entries column by column: first variant, then the second.
	type entry struct {
		name   string
		thumbs []plot.Thumbnailer
		second bool
	}
	var entries []entry
	for _, s := range series {
		st := policyStyle[s.Policy]
		sec := second(variant(s))
		var thumbs []plot.Thumbnailer
		for _, th := range theory {
			if th.Policy == s.Policy && th.Discipline == s.Discipline && th.Sizes == s.Sizes {
				l, err := addLine(p, st.colour, th.X, th.Mean)
				if err != nil {
					return nil, err
				}
				l.Width = vg.Points(1.2)
				l.Dashes = nil
				if sec {
					l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				}
				thumbs = append(thumbs, l)
			}
		}
		m, err := addPoints(p, st.colour, s.X, s.Mean, s.CI95)
		if err != nil {
			return nil, err
		}
		m.Shape = st.filled
		if sec {
			m.Shape = st.open
		}
		m.Radius = vg.Points(3.5)
		entries = append(entries, entry{name(s), append(thumbs, m.thumbs()...), sec})
	}
	sort.SliceStable(entries, func(i, j int) bool { return !entries[i].second && entries[j].second })
	for _, e := range entries {
		lg.add(e.name, e.thumbs...)
	}
	return lg, nil
}

// logTicksAt labels a log axis at the given values, with minor ticks at
// the integer multiples of the powers of ten.
type logTicksAt struct{ values []float64 }

func (t logTicksAt) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, tk := range (logTicks{}).Ticks(lo, hi) {
		tk.Label = ""
		for _, v := range t.values {
			if math.Abs(tk.Value-v) <= 1e-9*v {
				tk.Label = formatTick(v, max(0, -int(math.Floor(math.Log10(v)))))
			}
		}
		ts = append(ts, tk)
	}
	return ts
}
