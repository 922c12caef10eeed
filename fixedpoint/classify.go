package fixedpoint

import (
	"fmt"
	"time"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// ClassifySettings control Classify. Zero fields mean defaults.
type ClassifySettings struct {
	// Tol is the ‖·‖₁ distance that counts as a return. Default 1e-9.
	Tol float64
	// MaxIter bounds the iterations. Default 5,000.
	MaxIter int
	// MaxPeriod is the longest cycle looked for. Default 8.
	MaxPeriod int
	// Window is how many iterations the one-step distance must fail to
	// shrink (by half) before a return is called a cycle: a fixed point
	// whose leading eigenvalue is near −1 alternates while converging, and
	// its one-step distance keeps shrinking. Default 40.
	Window int
	// Recorder, if not nil, is called after every iteration.
	Recorder func(iter int, x []float64, step float64)
}

// Attractor is where plain iteration settles. Its Status is FixedPoint
// (the iterates converge), Cycle (they settle on a cycle of Period ≥ 2) or
// NotSettled (neither within MaxIter); Evaluations counts the evaluations
// of Φ, one per iteration.
type Attractor struct {
	outcome.Outcome
	Period int // 1 for a fixed point
	// Points are the fixed point, or the cycle's points in order.
	Points     [][]float64
	Iterations int
	// Step is the last one-step distance ‖x_{n+1} − x_n‖₁, and Return the
	// distance ‖x_{n+Period} − x_n‖₁ that settled it.
	Step, Return float64
}

// Classify iterates x ← Φ(x) from x0 and reports the attractor: the
// fixed-point test comes first (one-step distance below Tol); a return
// after p ≥ 2 steps counts as a period-p cycle only while the one-step
// distance has stopped shrinking over Window iterations.
func Classify(f Func, x0 []float64, s *ClassifySettings) (*Attractor, error) {
	start := time.Now()
	out, err := classify(f, x0, s)
	if out != nil {
		out.Evaluations, out.Elapsed = out.Iterations, time.Since(start)
	}
	return out, err
}

func classify(f Func, x0 []float64, s *ClassifySettings) (*Attractor, error) {
	var set ClassifySettings
	if s != nil {
		set = *s
	}
	if set.Tol == 0 {
		set.Tol = 1e-9
	}
	if set.MaxIter == 0 {
		set.MaxIter = 5000
	}
	if set.MaxPeriod == 0 {
		set.MaxPeriod = 8
	}
	if set.Window == 0 {
		set.Window = 40
	}
	n := len(x0)
	hist := make([][]float64, set.MaxPeriod+1) // ring of recent iterates
	for i := range hist {
		hist[i] = make([]float64, n)
	}
	copy(hist[0], x0)
	steps := make([]float64, 0, set.MaxIter)
	at := func(back, it int) []float64 { // iterate it−back
		return hist[((it-back)%len(hist)+len(hist))%len(hist)]
	}
	dist := func(a, b []float64) float64 {
		var d float64
		for i := range a {
			d += abs(a[i] - b[i])
		}
		return d
	}
	out := &Attractor{}
	for it := 1; it <= set.MaxIter; it++ {
		cur := at(0, it)
		if err := f(cur, at(1, it)); err != nil {
			return nil, err
		}
		if !param.AllFinite(cur) {
			return nil, fmt.Errorf("fixedpoint: non-finite iterate at step %d", it)
		}
		step := dist(cur, at(1, it))
		steps = append(steps, step)
		out.Iterations, out.Step = it, step
		if set.Recorder != nil {
			set.Recorder(it, cur, step)
		}
		if step <= set.Tol {
			out.Status, out.Period, out.Return = outcome.FixedPoint, 1, step
			out.Points = [][]float64{append([]float64(nil), cur...)}
			return out, nil
		}
		// A return counts as a cycle only once the one-step distance has
		// stopped halving over the window; before that the iterates may
		// still be converging (alternately) to a fixed point.
		if it <= set.Window || steps[it-1-set.Window] > 2*step {
			continue
		}
		for p := 2; p <= set.MaxPeriod && p <= it; p++ {
			if r := dist(cur, at(p, it)); r <= set.Tol {
				out.Status, out.Period, out.Return = outcome.Cycle, p, r
				for j := p - 1; j >= 0; j-- {
					out.Points = append(out.Points, append([]float64(nil), at(j, it)...))
				}
				return out, nil
			}
		}
	}
	out.Status = outcome.NotSettled
	last := (set.MaxIter) % len(hist)
	out.Points = [][]float64{append([]float64(nil), hist[last]...)}
	return out, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
