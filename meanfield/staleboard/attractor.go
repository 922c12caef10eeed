package staleboard

import (
	"errors"
	"math"
	"time"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// AttractorSettings control Attractor. A nil pointer or a zero field means
// the documented default.
type AttractorSettings struct {
	// Start is the board iteration starts from (a count law; with H2 sizes
	// lifted with fresh phases, Map.State). Default: the empty board.
	Start []float64
	// Tol is the ‖·‖₁ distance that counts as a return (a fixed point, or
	// a cycle closing). Default 1e-10.
	Tol float64
	// MaxIter bounds the periods iterated: 1..MaxAttractorIter. Default
	// 3000.
	MaxIter int
}

// Bounds of Attractor's work, checked before any: the periods iterated
// (the classification keeps one number per period) and the longest queue
// of the start (one evaluation grows with the board's support: about
// 30 ms at 10,000 levels and T = 5,000, the weights of its passes
// included, where the full passes of evolveRef took half a second).
const (
	MaxAttractorIter  = 100000
	MaxAttractorStart = 10000
)

// AttractorResult is where plain iteration of the map settles. Its Status
// is FixedPoint, Cycle or NotSettled, or IterationLimit when the periods'
// cost reached MaxWork first (a board that grows every period: best of d
// without tallies near λ = 1), with the averages of NotSettled;
// Evaluations counts the periods iterated (Iterations).
type AttractorResult struct {
	outcome.Outcome
	// Period is the cycle's length (1 for a fixed point).
	Period int
	// Boards are the attractor's boards (one for a fixed point; the last
	// iterate when not settled).
	Boards [][]float64
	// Sojourn and BoardMean are averaged over the cycle (for a run that
	// did not settle: Sojourn over its last Averaged periods, at most 100,
	// BoardMean at the last iterate); SojournPoints lists the cycle's
	// values.
	Sojourn, BoardMean float64
	SojournPoints      []float64
	// Averaged is the number of periods Sojourn averages when the map did
	// not settle (0 otherwise).
	Averaged int
	// Iterations counts the periods iterated from the start: at most
	// MaxIter.
	Iterations int
	// Lost is the largest mass lost in one map evaluation.
	Lost float64
	// Series is the mean time in system of every period iterated, from the
	// start; Phases segments it into stretches of steady behaviour (see
	// Phase): a long plateau before the attractor is a transient, reported
	// rather than hidden. Transient is the number of periods before the
	// last phase (0 when there is one phase).
	Series    []float64
	Phases    []Phase
	Transient int
}

// Phase is a stretch of periods [From, To) (counted from 0, the first
// period after the start) over which the mean time in system holds steady:
// its mean, the standard error of that mean (from 10 batch means; from the
// per-period spread for phases under 20 periods), and the spread of the
// per-period values (standard deviation, minimum, maximum). A cycle's
// phase averages over whole cycles' worth of periods; an irregular one
// keeps a wide spread.
type Phase struct {
	From, To         int
	Mean, StdErr     float64
	StdDev, Min, Max float64
}

// phaseBlock is the number of periods averaged into one block when
// segmenting a series, and phaseTol the relative change of a block mean
// from its phase's mean that starts a new phase (held for two blocks).
const (
	phaseBlock = 10
	phaseTol   = 0.2
)

// phases segments a series of per-period values into phases: block means
// of phaseBlock periods; a new phase starts at the first of two
// consecutive blocks whose means both differ from the current phase's
// mean by more than phaseTol of it.
func phases(series []float64) []Phase {
	nb := len(series) / phaseBlock
	if nb < 3 {
		return []Phase{phaseOf(series, 0, len(series))}
	}
	block := func(j int) float64 {
		var s float64
		for _, v := range series[j*phaseBlock : (j+1)*phaseBlock] {
			s += v
		}
		return s / phaseBlock
	}
	var starts []int
	sum, cnt := block(0), 1.0
	off := func(j int) bool {
		m := sum / cnt
		return math.Abs(block(j)-m) > phaseTol*math.Abs(m)
	}
	for j := 1; j < nb; j++ {
		if off(j) && j+1 < nb && off(j+1) {
			starts = append(starts, j*phaseBlock)
			sum, cnt = block(j), 1
			continue
		}
		sum += block(j)
		cnt++
	}
	var out []Phase
	lo := 0
	for _, s := range starts {
		out = append(out, phaseOf(series, lo, s))
		lo = s
	}
	return append(out, phaseOf(series, lo, len(series)))
}

// phaseOf summarises series[from:to].
func phaseOf(series []float64, from, to int) Phase {
	v := series[from:to]
	p := Phase{From: from, To: to, Min: math.Inf(1), Max: math.Inf(-1)}
	if len(v) == 0 {
		return p
	}
	for _, x := range v {
		p.Mean += x / float64(len(v))
		p.Min, p.Max = math.Min(p.Min, x), math.Max(p.Max, x)
	}
	var ss float64
	for _, x := range v {
		ss += (x - p.Mean) * (x - p.Mean)
	}
	if len(v) > 1 {
		p.StdDev = math.Sqrt(ss / float64(len(v)-1))
	}
	if len(v) < 20 {
		p.StdErr = p.StdDev / math.Sqrt(float64(len(v)))
		return p
	}
	// Ten batch means of equal length (the first len mod 10 periods left
	// out), whose spread absorbs the periods' correlation.
	b := len(v) / 10
	var bm [10]float64
	for i := range bm {
		for _, x := range v[len(v)-10*b+i*b : len(v)-10*b+(i+1)*b] {
			bm[i] += x / float64(b)
		}
	}
	var m, s2 float64
	for _, x := range bm {
		m += x / 10
	}
	for _, x := range bm {
		s2 += (x - m) * (x - m) / 9
	}
	p.StdErr = math.Sqrt(s2 / 10)
	return p
}

// Attractor iterates the plain map from the start and classifies where it
// settles (fixed point, cycle or not settled within MaxIter periods), with
// the mean time in system and board mean averaged over the cycle.
func Attractor(m *Model, s *AttractorSettings) (*AttractorResult, error) {
	return attractor(m, s, false)
}

// attractor is Attractor, by the reference evolution when ref is set
// (tests).
func attractor(m *Model, s *AttractorSettings, ref bool) (*AttractorResult, error) {
	mp, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	mp.reference = ref
	start := time.Now()
	var set AttractorSettings
	if s != nil {
		set = *s
	}
	set.Tol = param.Or(set.Tol, 1e-10)
	set.MaxIter = param.Or(set.MaxIter, 3000)
	if err := param.Positive("Tol", set.Tol); err != nil {
		return nil, err
	}
	if set.MaxIter < 1 || set.MaxIter > MaxAttractorIter {
		return nil, param.Errorf("MaxIter", "%d periods, want 1..%d", set.MaxIter, MaxAttractorIter)
	}
	if !(set.Tol <= 1e-2) || set.Tol < 1e-15 {
		return nil, param.Errorf("Tol", "%v, want 1e-15 ≤ Tol ≤ 0.01 (a distance between probability distributions, at most 2)", set.Tol)
	}
	if err := m.checkWork("MaxIter", set.MaxIter, m.Period); err != nil {
		return nil, err
	}
	if m.Period > MaxAttractorPeriod {
		return nil, param.Errorf("Period", "T = %v, want T ≤ %v for iterating the map (one period costs about 20 ms at T = 5,000, and iteration runs thousands)", m.Period, MaxAttractorPeriod)
	}
	if s != nil && len(s.Start) > MaxAttractorStart+1 {
		return nil, param.Errorf("Start", "queue lengths up to %d, want at most %d (one period's cost grows with the longest queue)", len(s.Start)-1, MaxAttractorStart)
	}
	if set.Start == nil {
		set.Start = []float64{1}
	}
	if _, err := checkBoard(set.Start); err != nil {
		return nil, err
	}
	// Iterate on the free support first, to size the fixed support.
	p := mp.State(set.Start)
	longest := len(p)
	series := []float64{}         // not nil: supportFunc records every period
	warm := min(8, set.MaxIter/2) // periods on the free support
	// The periods' cost may not pass MaxWork, which checkWork checked on
	// the start's support only: a board that keeps growing (best of d
	// without tallies near λ = 1) costs more every period.
	wf := &supportFunc{m: mp, budget: workBudget}
	for range warm {
		r := &MapResult{}
		err := wf.apply(p, r)
		if errors.Is(err, errWorkBudget) {
			return budgetSpent(mp, &supportFunc{m: mp, series: series, lastIn: p}, len(series), start)
		}
		if err != nil {
			return nil, err
		}
		p = r.Next
		series = append(series, r.Sojourn)
		longest = max(longest, support(p, 1e-18))
	}
	n := max(2*longest+32, len(p))
	done := warm // periods iterated so far
	work := wf.work
	for {
		f := &supportFunc{m: mp, strict: true, recent: make([]float64, 0, 100), series: series, work: work, budget: workBudget}
		att, err := fixedpoint.Classify(f.eval, pad(p, n), &fixedpoint.ClassifySettings{Tol: set.Tol, MaxIter: max(set.MaxIter-done, 1)})
		if errors.Is(err, errLeftSupport) && n < 1<<16 {
			// Grow the support and go on from where the mass began to leave
			// (that evaluation is done again).
			p, n = f.lastIn, 2*n
			done += f.nEval - 1
			series = f.series[:len(f.series)-1]
			work = f.work - f.supportCost(f.lastIn)
			continue
		}
		if errors.Is(err, errWorkBudget) {
			return budgetSpent(mp, f, done, start)
		}
		if err != nil {
			return nil, err
		}
		out := &AttractorResult{Outcome: att.Outcome, Period: att.Period, Boards: att.Points, Iterations: done + att.Iterations, Lost: f.lost}
		out.Evaluations = out.Iterations
		defer func() { out.Elapsed = time.Since(start) }()
		out.Series = f.series
		out.Phases = phases(out.Series)
		if len(out.Phases) > 1 {
			out.Transient = out.Phases[len(out.Phases)-1].From
		}
		if att.Status == outcome.NotSettled {
			for _, v := range f.recent {
				out.Sojourn += v / float64(len(f.recent))
			}
			out.Averaged = len(f.recent)
			r, err := mp.Apply(att.Points[0])
			if err != nil {
				return nil, err
			}
			out.BoardMean = r.BoardMean
			return out, nil
		}
		for _, b := range att.Points {
			r, err := mp.Apply(b)
			if err != nil {
				return nil, err
			}
			out.SojournPoints = append(out.SojournPoints, r.Sojourn)
			out.Sojourn += r.Sojourn / float64(len(att.Points))
			out.BoardMean += r.BoardMean / float64(len(att.Points))
		}
		return out, nil
	}
}

// workBudget is the most work Attractor and FixedPoint spend: MaxWork (a
// variable for the test that lowers it).
var workBudget float64 = MaxWork

// budgetSpent is the attractor search stopped by the work bound before
// the evaluation of f.lastIn: Status IterationLimit, the periods iterated,
// Sojourn averaged over the last of them (at most 100), BoardMean and
// Boards at f.lastIn.
func budgetSpent(mp *Map, f *supportFunc, done int, start time.Time) (*AttractorResult, error) {
	if len(f.series) == 0 {
		return nil, param.Errorf("Period", "one period at T = %v costs more than the work bound %g (about 15 minutes) on a board of %d levels", mp.Period, workBudget, support(f.lastIn, 0))
	}
	out := &AttractorResult{Outcome: outcome.Outcome{Status: outcome.IterationLimit}, Boards: [][]float64{f.lastIn},
		Iterations: done + f.nEval, Lost: f.lost, Series: f.series}
	tail := f.series[max(len(f.series)-100, 0):]
	for _, v := range tail {
		out.Sojourn += v / float64(len(tail))
	}
	out.Averaged = len(tail)
	out.BoardMean = Mean(mp.Counts(f.lastIn))
	out.Phases = phases(out.Series)
	if len(out.Phases) > 1 {
		out.Transient = out.Phases[len(out.Phases)-1].From
	}
	out.Evaluations = out.Iterations
	out.Elapsed = time.Since(start)
	return out, nil
}
