package ode

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

func decay(dy []float64, _ float64, y []float64) { dy[0] = -y[0] }

func oscillator(dy []float64, _ float64, y []float64) {
	dy[0] = y[1]
	dy[1] = -y[0]
}

// arenstorf is the restricted three-body problem of HNW §II.0 (equation
// (0.1)); with the initial values below its solution is periodic.
func arenstorf(dy []float64, _ float64, y []float64) {
	const mu = 0.012277471
	const mu1 = 1 - mu
	d1 := math.Pow((y[0]+mu)*(y[0]+mu)+y[1]*y[1], 1.5)
	d2 := math.Pow((y[0]-mu1)*(y[0]-mu1)+y[1]*y[1], 1.5)
	dy[0] = y[2]
	dy[1] = y[3]
	dy[2] = y[0] + 2*y[3] - mu1*(y[0]+mu)/d1 - mu*(y[0]-mu1)/d2
	dy[3] = y[1] - 2*y[2] - mu1*y[1]/d1 - mu*y[1]/d2
}

var (
	arenstorfY0     = []float64{0.994, 0, 0, -2.00158510637908252240537862224}
	arenstorfPeriod = 17.0652165601579625588917206249
)

func TestExponentialDecay(t *testing.T) {
	for _, rtol := range []float64{1e-6, 1e-9, 1e-12} {
		t.Run(fmt.Sprintf("rtol=%g", rtol), func(t *testing.T) {
			res, err := Solve(Problem{Func: decay}, []float64{1}, 0, 10, &Settings{RTol: rtol, ATol: rtol * 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			if res.T != 10 {
				t.Errorf("end point not clamped: T = %v", res.T)
			}
			// The global error of a tolerance-controlled method is a modest
			// multiple of the tolerance on this contracting problem.
			approx.Check(t, "y(10)", res.Y[0], math.Exp(-10), 0, 10*rtol)
		})
	}
}

func TestHarmonicOscillatorBackward(t *testing.T) {
	// Ten periods forward, then back: both must match the exact solution.
	s := &Settings{RTol: 1e-11, ATol: 1e-13}
	tEnd := 20 * math.Pi
	res, err := Solve(Problem{Func: oscillator}, []float64{1, 0}, 0, tEnd, s)
	if err != nil {
		t.Fatal(err)
	}
	// Exact: (cos t, −sin t) = (1, 0) at multiples of 2π. Over ten periods
	// of a neutral problem the error grows linearly: allow 1e-9.
	approx.Check(t, "forward error", math.Hypot(res.Y[0]-1, res.Y[1]), 0, 1e-9, 0)
	back, err := Solve(Problem{Func: oscillator}, []float64{math.Cos(3), -math.Sin(3)}, 3, -1.5, s)
	if err != nil {
		t.Fatal(err)
	}
	if back.T != -1.5 {
		t.Errorf("backward end T = %v", back.T)
	}
	// Over 4.5 time units (less than one period) at rtol 1e-11: 1e-10.
	approx.Check(t, "backward error", math.Hypot(back.Y[0]-math.Cos(-1.5), back.Y[1]+math.Sin(-1.5)), 0, 1e-10, 0)
}

func TestConvergenceOrder(t *testing.T) {
	// With fixed steps the global error of a fifth-order method falls by
	// 2^5 = 32 when h halves. Problem: the oscillator over [0, 2].
	errAt := func(t *testing.T, h float64) float64 {
		res, err := Solve(Problem{Func: oscillator}, []float64{1, 0}, 0, 2, &Settings{FixedStep: h})
		if err != nil {
			t.Fatal(err)
		}
		return math.Hypot(res.Y[0]-math.Cos(2), res.Y[1]+math.Sin(2))
	}
	// The bounds leave room for the higher-order terms at the coarsest
	// step (measured 4.9–5.1).
	for _, h := range []float64{0.2, 0.1, 0.05} {
		t.Run(fmt.Sprintf("h=%g", h), func(t *testing.T) {
			approx.Within(t, "observed order", math.Log2(errAt(t, h)/errAt(t, h/2)), 4.8, 5.3)
		})
	}
}

func TestDenseOutputOrder(t *testing.T) {
	// The continuous extension is of order 4: with fixed steps, its error in
	// the middle of the steps falls by about 2^5 per halving (local error
	// O(h^5)) and it matches the exact solution closely between steps.
	maxErr := func(h float64) float64 {
		var worst float64
		times := []float64{0.05, 0.55, 1.05, 1.55}
		_, err := Solve(Problem{Func: oscillator}, []float64{1, 0}, 0, 2, &Settings{
			FixedStep:   h,
			OutputTimes: times,
			Output: func(tt float64, y []float64) error {
				worst = math.Max(worst, math.Hypot(y[0]-math.Cos(tt), y[1]+math.Sin(tt)))
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return worst
	}
	// ≥ 3.7 leaves room for the higher-order terms at h = 0.2; the upper
	// bound only keeps a NaN or an error that vanishes out.
	approx.Within(t, "dense output order", math.Log2(maxErr(0.2)/maxErr(0.1)), 3.7, 7)
}

func TestArenstorf(t *testing.T) {
	// HNW §II.0: the orbit closes after one period, so the exact solution at
	// the period is the initial value. The end-point error of a
	// tolerance-controlled method scales with the tolerance (this orbit
	// passes close to a mass, so the constant is large: about 1e4·tol at
	// 1e-7, falling to about 30·tol at 1e-13, as measured here). The bounds
	// are 5–10× those measurements, and the step counts bound the work so
	// a regression in the step controller fails too. Run with -v to see
	// the measured numbers.
	for _, c := range []struct {
		tol, maxErr float64
		maxSteps    int
	}{
		{1e-7, 1e-2, 400},
		{1e-10, 2e-5, 1500},
		{1e-13, 2e-8, 8000},
	} {
		t.Run(fmt.Sprintf("tol=%g", c.tol), func(t *testing.T) {
			res, err := Solve(Problem{Func: arenstorf}, arenstorfY0, 0, arenstorfPeriod, &Settings{RTol: c.tol, ATol: c.tol})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d steps (%d rejected, %d evals)", res.Stats.Steps, res.Stats.Rejected, res.Stats.FuncEvals)
			approx.Slices(t, "y(period)", res.Y, arenstorfY0, c.maxErr, 0)
			if res.Stats.Steps > c.maxSteps {
				t.Errorf("%d steps, want ≤ %d", res.Stats.Steps, c.maxSteps)
			}
			// FSAL: six new evaluations per attempted step, plus the first
			// evaluation and the starting-step heuristic's one.
			if want := 6*(res.Stats.Steps+res.Stats.Rejected) + 2; res.Stats.FuncEvals != want {
				t.Errorf("FuncEvals = %d, want %d", res.Stats.FuncEvals, want)
			}
		})
	}
}

// TestArenstorfReference reproduces the published output of Hairer and
// Wanner's DOPRI5 driver for the Arenstorf orbit at rtol = atol = 1e-7:
// "X = XEND Y = 0.9940021016E+00 0.8911185692E-05, fcn= 1442 step= 240
// accpt= 216 rejct= 22" (DOPRI5 does not count the 2 rejections before its
// first accepted step). Same controller and starting step, so the same step
// sequence; the end state agrees to rounding of the printed digits and of
// the arithmetic order (measured 7e-13).
func TestArenstorfReference(t *testing.T) {
	res, err := Solve(Problem{Func: arenstorf}, arenstorfY0, 0, arenstorfPeriod, &Settings{RTol: 1e-7, ATol: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.FuncEvals != 1442 || res.Stats.Steps != 216 || res.Stats.Steps+res.Stats.Rejected != 240 {
		t.Errorf("fcn %d accepted %d attempted %d, DOPRI5 reports 1442, 216, 240",
			res.Stats.FuncEvals, res.Stats.Steps, res.Stats.Steps+res.Stats.Rejected)
	}
	// Half a unit in the last printed digit of each.
	approx.Check(t, "y1(T)", res.Y[0], 0.9940021016, 1e-10, 0)
	approx.Check(t, "y2(T)", res.Y[1], 0.8911185692e-5, 1e-11, 0)
}

func TestEventLocation(t *testing.T) {
	// y' = −y from 1 crosses 1/2 at ln 2 (falling).
	ev := Event{G: func(_ float64, y []float64) float64 { return y[0] - 0.5 }, Direction: Falling}
	res, err := Solve(Problem{Func: decay, Events: []Event{ev}}, []float64{1}, 0, 5, &Settings{RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != outcome.EventStop || len(res.Events) != 1 {
		t.Fatalf("status %v, events %v", res.Status, res.Events)
	}
	// The event root is located to far below the integration tolerance.
	approx.Check(t, "event time", res.T, math.Ln2, 1e-10, 0)
	if !(res.Y[0] <= 0.5) {
		t.Errorf("state at the event is on the near side: %v", res.Y[0])
	}

	// Oscillator: x = cos t. Rising zero crossings at 3π/2 + 2πn, falling at
	// π/2 + 2πn; count them over [0, 20] without stopping.
	var rises, falls []float64
	evs := []Event{
		{G: func(_ float64, y []float64) float64 { return y[0] }, Direction: Rising,
			Handle: func(tt float64, _ []float64) Action { rises = append(rises, tt); return Continue }},
		{G: func(_ float64, y []float64) float64 { return y[0] }, Direction: Falling,
			Handle: func(tt float64, _ []float64) Action { falls = append(falls, tt); return Continue }},
	}
	res, err = Solve(Problem{Func: oscillator, Events: evs}, []float64{1, 0}, 0, 20, &Settings{RTol: 1e-12, ATol: 1e-14})
	if err != nil || res.Status != outcome.Converged {
		t.Fatal(err, res.Status)
	}
	if len(rises) != 3 || len(falls) != 3 {
		t.Fatalf("rises %v falls %v", rises, falls)
	}
	for n := range 3 {
		approx.Check(t, fmt.Sprintf("rise %d", n), rises[n], 1.5*math.Pi+2*math.Pi*float64(n), 1e-10, 0)
		approx.Check(t, fmt.Sprintf("fall %d", n), falls[n], 0.5*math.Pi+2*math.Pi*float64(n), 1e-10, 0)
	}
}

func TestBouncingBall(t *testing.T) {
	// h'' = −g with restitution e: a piecewise-polynomial solution that the
	// method integrates exactly, so every bounce time must be exact. From
	// h(0) = 1, v(0) = 0: first impact at t1 = sqrt(2/g); then the flight
	// time after bounce k is 2·e^k·v1/g with v1 = g·t1.
	const g, e = 9.81, 0.8
	f := func(dy []float64, _ float64, y []float64) { dy[0] = y[1]; dy[1] = -g }
	var times []float64
	bounce := Event{
		G:         func(_ float64, y []float64) float64 { return y[0] },
		Direction: Falling,
		Handle: func(tt float64, y []float64) Action {
			times = append(times, tt)
			y[0] = 0
			y[1] = -e * y[1]
			return Continue
		},
	}
	_, err := Solve(Problem{Func: f, Events: []Event{bounce}}, []float64{1, 0}, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	t1 := math.Sqrt(2 / g)
	want := []float64{t1}
	v := g * t1
	for want[len(want)-1] < 3 {
		v *= e
		want = append(want, want[len(want)-1]+2*v/g)
	}
	want = want[:len(want)-1]
	if len(times) != len(want) {
		t.Fatalf("got %d bounces %v, want %d %v", len(times), times, len(want), want)
	}
	// Exact up to the root finder's resolution and the rounding of
	// the accumulated flight times.
	approx.Slices(t, "bounce times", times, want, 1e-10, 0)
}

func TestSwitchingRightHandSide(t *testing.T) {
	// y' = +1 until y reaches 1, then the handler switches to y' = −2: a
	// discontinuous right-hand side handled exactly. y(3) = 1 − 2·2 = −3.
	slope := 1.0
	f := func(dy []float64, _ float64, _ []float64) { dy[0] = slope }
	ev := Event{
		G:         func(_ float64, y []float64) float64 { return y[0] - 1 },
		Direction: Rising,
		Handle:    func(float64, []float64) Action { slope = -2; return Continue },
	}
	res, err := Solve(Problem{Func: f, Events: []Event{ev}}, []float64{0}, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A linear solution is integrated exactly: only rounding remains.
	if len(res.Events) != 1 {
		t.Fatalf("events %v, want one", res.Events)
	}
	approx.Check(t, "y(3)", res.Y[0], -3, 1e-12, 0)
	approx.Check(t, "event time", res.Events[0].T, 1, 1e-12, 0)
}

func TestZeroAtStartDoesNotFire(t *testing.T) {
	// An event that is zero at t0 and moves away must not fire; one that is
	// zero at t0 and moves across (for its direction) fires at t0.
	f := func(dy []float64, _ float64, _ []float64) { dy[0] = 1 }
	away := Event{G: func(_ float64, y []float64) float64 { return y[0] }, Direction: Falling}
	res, err := Solve(Problem{Func: f, Events: []Event{away}}, []float64{0}, 0, 1, nil)
	if err != nil || res.Status != outcome.Converged {
		t.Errorf("away: %v %v", err, res.Status)
	}
	across := Event{G: func(_ float64, y []float64) float64 { return y[0] }, Direction: Rising}
	res, err = Solve(Problem{Func: f, Events: []Event{across}}, []float64{0}, 0, 1, nil)
	if err != nil || res.Status != outcome.EventStop || !approx.Equal(res.T, 0, 1e-12, 0) {
		t.Errorf("across: %v %v at %v", err, res.Status, res.T)
	}
}

func TestOutputTimes(t *testing.T) {
	var got []float64
	times := []float64{0, 0.25, 1, 2.5, 4}
	_, err := Solve(Problem{Func: decay}, []float64{1}, 0, 4, &Settings{
		RTol:        1e-10,
		OutputTimes: times,
		Output: func(tt float64, y []float64) error {
			got = append(got, tt)
			// Ten times the tolerance, as in TestExponentialDecay.
			approx.Check(t, fmt.Sprintf("y(%v)", tt), y[0], math.Exp(-tt), 1e-9, 0)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(times) {
		t.Errorf("output at %v, want %v", got, times)
	}
	_, err = Solve(Problem{Func: decay}, []float64{1}, 0, 4, &Settings{OutputTimes: []float64{1, 0.5}, Output: func(float64, []float64) error { return nil }})
	if err == nil {
		t.Error("unordered OutputTimes accepted")
	}
	stop := errors.New("enough")
	res, err := Solve(Problem{Func: decay}, []float64{1}, 0, 4, &Settings{Output: func(tt float64, _ []float64) error {
		if tt > 1 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) || res.Status != outcome.OutputStop {
		t.Errorf("output error not propagated: %v %v", err, res.Status)
	}
	// Step sees every accepted step even when Output has its own times.
	var steps int
	res, err = Solve(Problem{Func: decay}, []float64{1}, 0, 4, &Settings{
		OutputTimes: []float64{2},
		Output:      func(float64, []float64) error { return nil },
		Step:        func(float64, []float64) error { steps++; return nil },
	})
	if err != nil || steps != res.Stats.Steps || steps < 5 {
		t.Errorf("Step called %d times for %d steps (%v)", steps, res.Stats.Steps, err)
	}
}

func TestFailures(t *testing.T) {
	res, err := Solve(Problem{Func: arenstorf}, arenstorfY0, 0, arenstorfPeriod, &Settings{MaxSteps: 10})
	if err != nil || res.Status != outcome.StepLimit || res.Err() == nil {
		t.Errorf("step limit: %v %v", err, res.Status)
	}
	nan := func(dy []float64, tt float64, y []float64) {
		dy[0] = 1
		if tt > 0.5 {
			dy[0] = math.NaN()
		}
	}
	res, err = Solve(Problem{Func: nan}, []float64{0}, 0, 1, nil)
	if err != nil || res.Status != outcome.NonFinite {
		t.Errorf("NaN: %v %v", err, res.Status)
	}
	// Blow-up y' = y² from 1 at t = 1: the step size underflows (or the
	// state overflows) before t = 2; either way a failed status, never a
	// number.
	blow := func(dy []float64, _ float64, y []float64) { dy[0] = y[0] * y[0] }
	res, err = Solve(Problem{Func: blow}, []float64{1}, 0, 2, nil)
	if err != nil || res.Status.OK() {
		t.Errorf("blow-up integrated to %v: status %v", res.Y, res.Status)
	}
	if _, err := Solve(Problem{Func: decay}, []float64{1}, 0, 1, &Settings{RTol: -1}); err == nil {
		t.Error("negative RTol accepted")
	}
	if _, err := Solve(Problem{Func: decay}, []float64{math.NaN()}, 0, 1, nil); err == nil {
		t.Error("NaN initial state accepted")
	}
}

func TestNoAllocationPerStep(t *testing.T) {
	ev := Event{G: func(_ float64, y []float64) float64 { return y[0] - 2 }, Direction: Rising}
	it, err := NewIntegrator(Problem{Func: arenstorf, Events: []Event{ev}}, 4, &Settings{RTol: 1e-10, ATol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 4)
	allocs := testing.AllocsPerRun(5, func() {
		copy(y, arenstorfY0)
		if _, err := it.Solve(y, 0, arenstorfPeriod); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per solve of ~1000 steps, want 0", allocs)
	}
}

func TestSimultaneousEvents(t *testing.T) {
	// Two identical components fall through zero at the same instant t = 1;
	// each event's handler freezes its component. Both must fire at t = 1
	// (handling only the first would leave the twin falling forever).
	frozen := [2]bool{}
	f := func(dy []float64, _ float64, y []float64) {
		for i := range dy {
			dy[i] = -1
			if frozen[i] {
				dy[i] = 0
			}
		}
	}
	var evs []Event
	for i := range 2 {
		evs = append(evs, Event{
			G: func(_ float64, y []float64) float64 {
				if frozen[i] {
					return 1
				}
				return y[i]
			},
			Direction: Falling,
			Handle:    func(float64, []float64) Action { frozen[i] = true; return Continue },
		})
	}
	res, err := Solve(Problem{Func: f, Events: evs}, []float64{1, 1}, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Linear pieces, integrated exactly: only rounding remains.
	if len(res.Events) != 2 {
		t.Fatalf("events %v, want both at t = 1", res.Events)
	}
	approx.Slices(t, "event times", []float64{res.Events[0].T, res.Events[1].T}, []float64{1, 1}, 1e-12, 0)
	approx.Slices(t, "final state", res.Y, []float64{0, 0}, 1e-12, 0)
}
