package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/quantity"
	"github.com/fluidlb/fluid/report"
)

// trajWriter writes a trajectory as its points arrive: text and CSV row
// by row (each point through the invariant guard first, each row
// complete), JSON as one document at the end (through emit).
type trajWriter interface {
	point(p *jiq.Point) error
	// end closes the output: res is nil when a signal stopped the
	// integration (status interrupted).
	end(res *jiq.TrajectoryResult, s outcome.Status) error
}

// errStopped ends an integration whose output a signal closed.
var errStopped = errors.New("stopped by a signal")

// trajRun hands the integrator's points to the writer, on the
// integration's goroutine, until a signal closes it from the command's:
// one lock, so that no row is cut short.
type trajRun struct {
	mu      sync.Mutex
	closed  bool
	w       trajWriter
	written int
}

func (t *trajRun) output(p *jiq.Point) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errStopped
	}
	t.written++
	return t.w.point(p)
}

func (t *trajRun) end(res *jiq.TrajectoryResult, s outcome.Status) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	return t.w.end(res, s)
}

// jiqTimes are the output times of the trajectory, admitted before any
// work: at most jiqRows rows, and with --json or --csv at most jiqNumbers
// numbers in all.
func jiqTimes(m *jiq.Model, o *jiqOptions) ([]float64, float64, error) {
	every := o.every
	if every == 0 {
		every = o.until / 20
	}
	if every > o.until {
		return nil, 0, usagef("invalid --every: %v is longer than --until %v, want a number in (0, %v] (e.g. --every %v)", every, o.until, o.until, g(o.until/20))
	}
	// In floating point, so that no count overflows an int.
	rows := math.Floor(o.until/every+1e-9) + 2
	if rows > jiqRows {
		return nil, 0, usagef("invalid --every: --until %v / --every %v asks for %.3g output rows, at most %d (e.g. --every %v)", o.until, every, rows, jiqRows, g(o.until/1000))
	}
	width := float64(len(m.Alpha) + 3)
	if m.Scenario == jiq.Queueing {
		width += float64(m.IMax) + 1 // the occupancies; an automatic imax is not known yet, and is small
	}
	if (o.json || o.csv) && rows*width > jiqNumbers {
		return nil, 0, usagef("invalid --every: %.3g rows of %.0f numbers would write %.3g numbers, at most %.0e (a longer --every, or a smaller --imax)", rows, width, rows*width, float64(jiqNumbers))
	}
	if err := admitTrajectory(m, o.until); err != nil {
		return nil, 0, err
	}
	n := int(rows) - 2
	times := make([]float64, 0, n+2)
	for i := 0; i <= n; i++ {
		times = append(times, float64(i)*every)
	}
	if times[len(times)-1] < o.until {
		times = append(times, o.until)
	}
	times[len(times)-1] = math.Min(times[len(times)-1], o.until)
	return times, every, nil
}

// jiqMaxWork bounds a trajectory's cost, in coordinate-steps: the ODE's
// dimension (imax + R + 2 in the queueing scenario) times its steps. The
// integrator takes about 0.8 to 2 steps per mean service time after a
// transient of a few hundred (947 steps to t = 1,000 and 8,144 to 10,000 at
// λ = 0.99), each costing about 1.8e-7 s per coordinate (885 steps at
// imax = 100,000 in 16 s, 2 cores): 3e8 is about a minute.
const jiqMaxWork = 3e8

// admitTrajectory refuses, before any work, a trajectory whose cost is
// beyond jiqMaxWork: steps estimated as 2·until + 1,000 (at most the
// integrator's 1,000,000), times the dimension.
func admitTrajectory(m *jiq.Model, until float64) error {
	if m.Scenario != jiq.Queueing {
		return nil // R + 1 coordinates: at most 1e6 steps of a few, seconds
	}
	imax := m.IMax
	if imax == 0 {
		lim, err := jiq.Limit(m) // the truncation it would choose: fast
		if err != nil {
			return err
		}
		imax = lim.IMax
	}
	dim := float64(imax + len(m.Alpha) + 2)
	steps := math.Min(1e6, 2*until+1000)
	if dim*steps > jiqMaxWork {
		return usagef("invalid --until: %v with imax %d would integrate about %.3g coordinate-steps (%.0f coordinates × about %.3g steps), more than %.0e, about a minute; a shorter --until (e.g. --until %v) or a smaller --imax", until, imax, dim*steps, dim, steps, jiqMaxWork, g(math.Max(20, math.Floor((jiqMaxWork/dim-1000)/2))))
	}
	return nil
}

func runJIQTrajectory(w io.Writer, c *computation, m *jiq.Model, o *jiqOptions) error {
	times, every, err := jiqTimes(m, o)
	if err != nil {
		return err
	}
	t := &trajRun{}
	switch {
	case o.json:
		t.w = &trajJSON{w: w, m: m, rep: &report.JIQTrajectory{Header: report.NewHeader("jiq"), Until: o.until, Every: every, RTol: o.rtol,
			Scenario: m.Scenario.String(), Load: m.Load, Alpha: m.Alpha, Beta: m.Beta, Exchange: m.Exchange}}
	case o.csv:
		t.w = &trajCSV{w: csv.NewWriter(w), m: m}
	default:
		t.w = &trajText{w: w, tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight), m: m}
	}
	var res *jiq.TrajectoryResult
	set := &jiq.TrajectorySettings{Until: o.until, RTol: o.rtol, ATol: o.rtol * 1e-2, Times: times, Output: t.output}
	if !c.await(func() { res, err = jiq.Trajectory(m, set) }) {
		if err := t.end(nil, outcome.Interrupted); err != nil {
			return err
		}
		return c.halted("the %d points computed are printed", t.written)
	}
	if err != nil && !errors.Is(err, errStopped) {
		return err
	}
	if err := t.end(res, res.Status); err != nil {
		return err
	}
	return ended(res.Status, fmt.Sprintf("fluid ODE: the integration stopped at t = %g, before --until %g (the points up to it are printed)", res.T, o.until))
}

// pointReport is a point as the reports carry it.
func pointReport(m *jiq.Model, p *jiq.Point) report.JIQPoint {
	pj := report.JIQPoint{T: p.T, Busy: p.Busy, Tokens: append([]float64(nil), p.Tokens...)}
	if m.Scenario == jiq.Blocking {
		pj.Blocking = ptr(p.Blocking)
	} else {
		pj.Occupancy = append([]float64(nil), p.Occupancy...)
		pj.RandomRate = ptr(p.RandomRate)
		pj.MeanQueue = ptr(p.MeanQueue)
	}
	return pj
}

// checkPoint holds a point written row by row to the invariant guard.
func checkPoint(m *jiq.Model, p *jiq.Point) error {
	if err := quantity.Check(pointReport(m, p)); err != nil {
		var qe *quantity.Error
		if errors.As(err, &qe) {
			return &invalidResult{qe}
		}
		return err
	}
	return nil
}

type trajJSON struct {
	w   io.Writer
	m   *jiq.Model
	rep *report.JIQTrajectory
}

func (j *trajJSON) point(p *jiq.Point) error {
	j.rep.Points = append(j.rep.Points, pointReport(j.m, p))
	return nil
}

func (j *trajJSON) end(res *jiq.TrajectoryResult, s outcome.Status) error {
	rep := j.rep
	rep.Status = s.Name()
	rep.Switches = []report.JIQSwitch{}
	if res != nil {
		for _, s := range res.Switches {
			rep.Switches = append(rep.Switches, report.JIQSwitch{T: s.T, Dispatcher: s.Dispatcher + 1, Empty: s.Empty})
		}
		rep.ConservationError = res.ConservationError
		rep.Steps = res.Stats.Steps
		if j.m.Scenario == jiq.Queueing {
			rep.IMax = ptr(res.IMax)
			rep.BoundaryMass = ptr(res.BoundaryMass)
		}
	}
	return emit(j.w, output{json: true}, rep, nil)
}

type trajCSV struct {
	w      *csv.Writer
	m      *jiq.Model
	header bool
	row    []string
}

func (c *trajCSV) point(p *jiq.Point) error {
	if err := checkPoint(c.m, p); err != nil {
		return err
	}
	blocking := c.m.Scenario == jiq.Blocking
	if !c.header {
		h := []string{"t"}
		if blocking {
			h = append(h, "x0")
		} else {
			for i := range p.Occupancy {
				h = append(h, fmt.Sprintf("y%d", i))
			}
		}
		for r := range p.Tokens {
			h = append(h, fmt.Sprintf("x%d", r+1))
		}
		if blocking {
			h = append(h, "blocking")
		} else {
			h = append(h, "lambda2")
		}
		if err := c.w.Write(h); err != nil {
			return err
		}
		c.header = true
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 12, 64) }
	c.row = append(c.row[:0], num(p.T))
	if blocking {
		c.row = append(c.row, num(p.Busy))
	} else {
		for _, y := range p.Occupancy {
			c.row = append(c.row, num(y))
		}
	}
	for _, x := range p.Tokens {
		c.row = append(c.row, num(x))
	}
	if blocking {
		c.row = append(c.row, num(p.Blocking))
	} else {
		c.row = append(c.row, num(p.RandomRate))
	}
	// Flushed row by row: output cut short by an error (or a signal)
	// ends at a complete line.
	if err := c.w.Write(c.row); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

func (c *trajCSV) end(*jiq.TrajectoryResult, outcome.Status) error {
	c.w.Flush()
	return c.w.Error()
}

type trajText struct {
	w      io.Writer
	tw     *tabwriter.Writer
	m      *jiq.Model
	header bool
}

func (t *trajText) point(p *jiq.Point) error {
	if err := checkPoint(t.m, p); err != nil {
		return err
	}
	blocking := t.m.Scenario == jiq.Blocking
	if !t.header {
		h := "t\t"
		if blocking {
			h += "busy x0\t"
		} else {
			h += "y0\ty1\ty2\ty3+\t"
		}
		for r := range p.Tokens {
			h += fmt.Sprintf("x%d\t", r+1)
		}
		if blocking {
			h += "blocking\t"
		} else {
			h += "lambda2\tmean queue\t"
		}
		fmt.Fprintln(t.tw, h)
		t.header = true
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	var b strings.Builder
	b.WriteString(g(p.T) + "\t")
	if blocking {
		b.WriteString(f(p.Busy) + "\t")
	} else {
		var rest float64
		for _, y := range p.Occupancy[min(3, len(p.Occupancy)):] {
			rest += y
		}
		at := func(i int) float64 {
			if i < len(p.Occupancy) {
				return p.Occupancy[i]
			}
			return 0
		}
		b.WriteString(f(at(0)) + "\t" + f(at(1)) + "\t" + f(at(2)) + "\t" + f(rest) + "\t")
	}
	for _, x := range p.Tokens {
		b.WriteString(f(x) + "\t")
	}
	if blocking {
		b.WriteString(f(p.Blocking) + "\t")
	} else {
		b.WriteString(f(p.RandomRate) + "\t" + f(p.MeanQueue) + "\t")
	}
	fmt.Fprintln(t.tw, b.String())
	return nil
}

func (t *trajText) end(res *jiq.TrajectoryResult, s outcome.Status) error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	if res == nil {
		_, err := fmt.Fprintln(t.w, "interrupted: the points above are those computed before the signal")
		return err
	}
	var b strings.Builder
	for _, s := range res.Switches {
		what := "refills"
		if s.Empty {
			what = "empties"
		}
		fmt.Fprintf(&b, "dispatcher %d's token pool %s at t = %s\n", s.Dispatcher+1, what, g(s.T))
	}
	fmt.Fprintf(&b, "%d steps; conservation kept to %.2g", res.Stats.Steps, res.ConservationError)
	if t.m.Scenario == jiq.Queueing {
		fmt.Fprintf(&b, "; imax %d, largest mass at imax %.2g", res.IMax, res.BoundaryMass)
	}
	if !s.OK() {
		fmt.Fprintf(&b, "; stopped at t = %s (status %s)", g(res.T), s.Name())
	}
	b.WriteString("\n")
	_, err := io.WriteString(t.w, b.String())
	return err
}
