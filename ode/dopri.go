package ode

import (
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Dormand–Prince 5(4) coefficients (HNW Table II.5.2) and Shampine's dense
// output coefficients (HNW §II.6, as in DOPRI5's CONTD5).
const (
	c2 = 1.0 / 5
	c3 = 3.0 / 10
	c4 = 4.0 / 5
	c5 = 8.0 / 9

	a21 = 1.0 / 5
	a31 = 3.0 / 40
	a32 = 9.0 / 40
	a41 = 44.0 / 45
	a42 = -56.0 / 15
	a43 = 32.0 / 9
	a51 = 19372.0 / 6561
	a52 = -25360.0 / 2187
	a53 = 64448.0 / 6561
	a54 = -212.0 / 729
	a61 = 9017.0 / 3168
	a62 = -355.0 / 33
	a63 = 46732.0 / 5247
	a64 = 49.0 / 176
	a65 = -5103.0 / 18656
	a71 = 35.0 / 384
	a73 = 500.0 / 1113
	a74 = 125.0 / 192
	a75 = -2187.0 / 6784
	a76 = 11.0 / 84

	// e = b(5th order) − b̂(4th order).
	e1 = 71.0 / 57600
	e3 = -71.0 / 16695
	e4 = 71.0 / 1920
	e5 = -17253.0 / 339200
	e6 = 22.0 / 525
	e7 = -1.0 / 40

	d1 = -12715105075.0 / 11282082432
	d3 = 87487479700.0 / 32700410799
	d4 = -10690763975.0 / 1880347072
	d5 = 701980252875.0 / 199316789632
	d6 = -1453857185.0 / 822651844
	d7 = 69997945.0 / 29380423
)

// Step-size controller constants of DOPRI5 (HNW §II.4, "stabilized" PI
// control with β = 0.04).
const (
	safety = 0.9
	facMin = 0.2  // smallest ratio h_new/h (HNW's fac1)
	facMax = 10.0 // largest ratio h_new/h (HNW's fac2)
	beta   = 0.04
	expo1  = 0.2 - beta*0.75
)

// Integrator integrates a Problem, reusing its work space across steps and
// solves. It is not safe for concurrent use.
type Integrator struct {
	p   Problem
	s   Settings
	dim int

	k1, k2, k3, k4, k5, k6, k7 []float64
	ytmp, ynew, yerr           []float64
	rc1, rc2, rc3, rc4, rc5    []float64 // dense output
	yout                       []float64 // interpolation scratch
	gPrev, gNew                []float64
	ref                        []int8 // armed sign per event: −1, +1 or 0 (unarmed)

	t, h    float64 // current step start and size of the dense-output step
	nextOut int     // the next of Settings.OutputTimes to emit
	res     Result
}

// NewIntegrator returns an Integrator for problems of dimension dim.
// It panics if p.Func is nil or dim < 1, and returns an error for invalid
// settings.
func NewIntegrator(p Problem, dim int, s *Settings) (*Integrator, error) {
	if p.Func == nil {
		panic("ode: nil Problem.Func")
	}
	if dim < 1 {
		panic("ode: dimension < 1")
	}
	for i, ev := range p.Events {
		if ev.G == nil {
			panic(fmt.Sprintf("ode: Problem.Events[%d].G is nil", i))
		}
	}
	set, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	it := &Integrator{p: p, s: set, dim: dim}
	buf := make([]float64, 18*dim)
	next := func() []float64 {
		b := buf[:dim:dim]
		buf = buf[dim:]
		return b
	}
	it.k1, it.k2, it.k3, it.k4, it.k5, it.k6, it.k7 = next(), next(), next(), next(), next(), next(), next()
	it.ytmp, it.ynew, it.yerr = next(), next(), next()
	it.rc1, it.rc2, it.rc3, it.rc4, it.rc5 = next(), next(), next(), next(), next()
	it.yout = next()
	ne := len(p.Events)
	it.gPrev = make([]float64, ne)
	it.gNew = make([]float64, ne)
	it.ref = make([]int8, ne)
	it.res.Events = make([]EventRecord, 0, 16)
	return it, nil
}

// Solve integrates the problem from time t0 with state y0 to time t1. It
// is a convenience wrapper around NewIntegrator and Integrator.Solve that
// leaves y0 untouched and returns the final state in Result.Y.
func Solve(p Problem, y0 []float64, t0, t1 float64, s *Settings) (Result, error) {
	it, err := NewIntegrator(p, len(y0), s)
	if err != nil {
		return Result{}, err
	}
	y := append([]float64(nil), y0...)
	return it.Solve(y, t0, t1)
}

// Solve integrates from t0 to t1 (t1 may be below t0). On entry y holds
// y(t0); on return it holds the state at Result.T, and Result.Y is y.
// Result.Status says how it ended: Converged at t1, EventStop or
// OutputStop when an event handler or Settings.Output (or Step) stopped
// it, StepLimit, StepSizeUnderflow, NonFinite or EventLoop when it failed.
// The returned error is non-nil only for invalid input and for an error
// returned by Settings.Output or Settings.Step (then Status is OutputStop).
// Result.Events is reused by the next call.
func (it *Integrator) Solve(y []float64, t0, t1 float64) (Result, error) {
	if len(y) != it.dim {
		panic(fmt.Sprintf("ode: len(y) = %d, want %d", len(y), it.dim))
	}
	start := time.Now()
	it.res = Result{Events: it.res.Events[:0], Y: y, T: t0}
	if math.IsNaN(t0) || math.IsInf(t0, 0) || math.IsNaN(t1) || math.IsInf(t1, 0) {
		return it.res, fmt.Errorf("ode: non-finite time interval [%v, %v]", t0, t1)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return it.res, fmt.Errorf("ode: initial state y[%d] = %v is not finite", i, v)
		}
	}
	dir := 1.0
	if t1 < t0 {
		dir = -1
	}
	outs := it.s.OutputTimes
	for i, to := range outs {
		if math.IsNaN(to) || dir*(to-t0) < 0 || dir*(to-t1) > 0 || (i > 0 && dir*(to-outs[i-1]) < 0) {
			return it.res, fmt.Errorf("ode: OutputTimes[%d] = %v is out of order or outside [%v, %v]", i, to, t0, t1)
		}
	}
	err := it.integrate(y, t0, t1, dir)
	it.res.Evaluations = it.res.Stats.FuncEvals
	it.res.Elapsed = time.Since(start)
	return it.res, err
}

// integrate runs the DOPRI5 step loop from t0 to t1 in direction dir:
// each attempted step is judged by the error controller, an accepted one
// is searched for events (handled at their crossing, where the
// integration restarts) and then taken.
func (it *Integrator) integrate(y []float64, t0, t1, dir float64) error {
	s := &it.s
	st := &it.res.Stats
	it.nextOut = 0
	h, maxStep, ended, err := it.begin(y, t0, t1, dir)
	if ended {
		return err
	}
	t := t0
	ctl := controller{facOld: 1e-4}
	zeroLength := 0
	for attempts := 0; ; attempts++ {
		if attempts >= s.MaxSteps {
			it.res.Status = outcome.StepLimit
			it.res.T = t
			return nil
		}
		if s.FixedStep == 0 && math.Abs(h) <= 16*epsilon*math.Abs(t) {
			it.res.T = t
			if ctl.nanRejects > 0 {
				// The steps shrank because f kept returning non-finite
				// values: that, not stiffness, is the cause.
				it.res.Status = outcome.NonFinite
				return nil
			}
			it.res.Status = outcome.StepSizeUnderflow
			return nil
		}
		last := false
		// As in DOPRI5: take the end point if it is within 1% of a step.
		if dir*(t+1.01*h-t1) >= 0 {
			h = t1 - t
			last = true
		}
		it.stages(y, t, h)
		st.FuncEvals += 6
		hNew, v := it.judge(&ctl, y, h, dir, maxStep)
		switch v {
		case rejected:
			h = hNew
			continue
		case failed:
			it.res.T = t
			return nil
		}
		tNew := t + h
		if last {
			tNew = t1
		}
		it.countStep(y, t, h)

		// Events inside (t, tNew].
		if idx, te := it.findEvent(t, tNew, dir); idx >= 0 {
			if te == t {
				zeroLength++
			} else {
				zeroLength = 0
			}
			if ended, err := it.event(y, idx, t, te, t1, dir, zeroLength); ended {
				return err
			}
			t, h = te, hNew
			continue
		}
		zeroLength = 0
		if err := it.advance(y, tNew, dir); err != nil {
			return err
		}
		t = tNew
		if last {
			it.res.T = t
			it.res.Status = outcome.Converged
			return nil
		}
		h = hNew
	}
}

// begin evaluates f at the start, arms the events and emits the start;
// it returns the first step (signed) and the largest step, or ended when
// the integration ended at t0 (Status set).
func (it *Integrator) begin(y []float64, t0, t1, dir float64) (h, maxStep float64, ended bool, err error) {
	s := &it.s
	it.p.Func(it.k1, t0, y)
	it.res.Stats.FuncEvals++
	if !param.AllFinite(it.k1) {
		it.res.Status = outcome.NonFinite
		return 0, 0, true, nil
	}
	it.armEvents(t0, y)
	if err := it.emit(t0, y, false, dir); err != nil {
		it.res.Status = outcome.OutputStop
		return 0, 0, true, err
	}
	if t0 == t1 {
		it.res.Status = outcome.Converged
		return 0, 0, true, nil
	}
	maxStep = s.MaxStep
	if maxStep == 0 {
		maxStep = math.Abs(t1 - t0)
	}
	switch {
	case s.FixedStep > 0:
		h = s.FixedStep
	case s.InitialStep > 0:
		h = math.Min(s.InitialStep, maxStep)
	default:
		h = it.initialStep(y, t0, dir, maxStep)
	}
	return h * dir, maxStep, false, nil
}

// emit calls Output for the requested times up to tEnd (inclusive), using
// the dense output of the current step, or, without requested times, at
// tEnd with state yEnd.
func (it *Integrator) emit(tEnd float64, yEnd []float64, dense bool, dir float64) error {
	s := &it.s
	if s.Output == nil {
		return nil
	}
	if len(s.OutputTimes) == 0 {
		return s.Output(tEnd, yEnd)
	}
	for it.nextOut < len(s.OutputTimes) && dir*(s.OutputTimes[it.nextOut]-tEnd) <= 0 {
		to := s.OutputTimes[it.nextOut]
		it.nextOut++
		yo := yEnd
		if dense && to != tEnd {
			it.interpolate(it.yout, to)
			yo = it.yout
		}
		if err := s.Output(to, yo); err != nil {
			return err
		}
	}
	return nil
}

// verdict is the error controller's judgement of an attempted step.
type verdict int

const (
	accepted verdict = iota
	rejected         // retry with the returned step
	failed           // give up (Status set)
)

// controller is the step-size controller's memory between attempts.
type controller struct {
	facOld       float64 // the last accepted error norm, at least 1e-4
	rejectedLast bool
	nanRejects   int // consecutive rejections for a non-finite error estimate
}

// judge accepts or rejects the attempted step of size h (HNW §II.4, PI
// control) and returns the next step.
func (it *Integrator) judge(c *controller, y []float64, h, dir, maxStep float64) (float64, verdict) {
	s, st := &it.s, &it.res.Stats
	var errNorm float64
	if s.FixedStep == 0 {
		errNorm = it.errorNorm(y, h)
		if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
			// A non-finite error estimate usually means the step left
			// the domain of f: shrink hard, but give up eventually.
			c.nanRejects++
			st.Rejected++
			if c.nanRejects > 12 {
				it.res.Status = outcome.NonFinite
				return h, failed
			}
			c.rejectedLast = true
			return h * 0.1, rejected
		}
	} else if !param.AllFinite(it.ynew) || !param.AllFinite(it.k7) {
		it.res.Status = outcome.NonFinite
		return h, failed
	}
	c.nanRejects = 0

	fac11 := math.Pow(errNorm, expo1)
	if errNorm > 1 {
		st.Rejected++
		c.rejectedLast = true
		return h / math.Min(1/facMin, fac11/safety), rejected
	}
	var hNew float64
	if s.FixedStep == 0 {
		fac := fac11 / math.Pow(c.facOld, beta)
		fac = math.Max(1/facMax, math.Min(1/facMin, fac/safety))
		hNew = h / fac
		c.facOld = math.Max(errNorm, 1e-4)
		if c.rejectedLast {
			hNew = dir * math.Min(math.Abs(hNew), math.Abs(h))
		}
		if math.Abs(hNew) > maxStep {
			hNew = dir * maxStep
		}
	} else {
		hNew = dir * s.FixedStep
	}
	c.rejectedLast = false
	if !param.AllFinite(it.k7) {
		it.res.Status = outcome.NonFinite
		return hNew, failed
	}
	return hNew, accepted
}

// countStep records an accepted step of size h from (t, y) in the
// statistics and prepares its dense output when events or output times
// need it.
func (it *Integrator) countStep(y []float64, t, h float64) {
	st := &it.res.Stats
	st.Steps++
	if a := math.Abs(h); st.MinStep == 0 || a < st.MinStep {
		st.MinStep = a
	}
	st.LastStep = math.Abs(h)
	if len(it.p.Events) > 0 || len(it.s.OutputTimes) > 0 {
		it.prepareDense(y, t, h)
	}
}

// event handles the event idx located at te in the step from t: the state
// moves to the crossing, every event also past its crossing there is
// handled, and the integration restarts at te. zeroLength counts the
// successive events located at the start of their step. It reports
// whether the integration ended (Status set): stopped by a handler, the
// output or Step, a non-finite state, an event loop, or at t1.
func (it *Integrator) event(y []float64, idx int, t, te, t1, dir float64, zeroLength int) (bool, error) {
	s, st := &it.s, &it.res.Stats
	it.interpolate(it.yout, te)
	if err := it.emit(te, it.yout, true, dir); err != nil {
		copy(y, it.yout)
		it.res.T = te
		it.res.Status = outcome.OutputStop
		return true, err
	}
	copy(y, it.yout)
	if zeroLength > 100 {
		it.res.T = t
		it.res.Status = outcome.EventLoop
		return true, nil
	}
	t = te
	// Handle the located event and every other event that is also past
	// its crossing at te (simultaneous crossings, such as two identical
	// components reaching a surface together), in index order; each
	// handler sees the previous ones' changes.
	act := Continue
	for j, ev := range it.p.Events {
		if j != idx && !(after(ev.Direction, it.ref[j], it.gNew[j]) && after(ev.Direction, it.ref[j], ev.G(t, y))) {
			continue
		}
		st.Events++
		it.res.Events = append(it.res.Events, EventRecord{Index: j, T: te})
		a := Stop
		if ev.Handle != nil {
			a = ev.Handle(t, y)
		}
		if a == Stop {
			act = Stop
		}
	}
	it.res.T = t
	if act == Stop {
		it.res.Status = outcome.EventStop
		return true, nil
	}
	// Restart: f may have changed.
	it.p.Func(it.k1, t, y)
	st.FuncEvals++
	if !param.AllFinite(y) || !param.AllFinite(it.k1) {
		it.res.Status = outcome.NonFinite
		return true, nil
	}
	it.armEvents(t, y)
	if s.Step != nil {
		if err := s.Step(t, y); err != nil {
			it.res.Status = outcome.OutputStop
			return true, err
		}
	}
	if t == t1 {
		it.res.Status = outcome.Converged
		return true, nil
	}
	return false, nil
}

// advance takes an accepted step without events to tNew: the output, the
// new state, first-same-as-last, the events' signs and Step. A non-nil
// error ends the integration (Status OutputStop).
func (it *Integrator) advance(y []float64, tNew, dir float64) error {
	if err := it.emit(tNew, it.ynew, true, dir); err != nil {
		copy(y, it.ynew)
		it.res.T = tNew
		it.res.Status = outcome.OutputStop
		return err
	}
	copy(y, it.ynew)
	it.k1, it.k7 = it.k7, it.k1 // first same as last
	copy(it.gPrev, it.gNew)
	it.updateRefs()
	if it.s.Step != nil {
		if err := it.s.Step(tNew, y); err != nil {
			it.res.T = tNew
			it.res.Status = outcome.OutputStop
			return err
		}
	}
	return nil
}

const epsilon = 0x1p-52

// stages computes k2..k7, the fifth-order solution ynew and the error
// vector yerr for a step of size h from (t, y), with k1 = f(t, y).
func (it *Integrator) stages(y []float64, t, h float64) {
	f := it.p.Func
	k1, k2, k3, k4, k5, k6, k7 := it.k1, it.k2, it.k3, it.k4, it.k5, it.k6, it.k7
	yt := it.ytmp
	for i := range yt {
		yt[i] = y[i] + h*a21*k1[i]
	}
	f(k2, t+c2*h, yt)
	for i := range yt {
		yt[i] = y[i] + h*(a31*k1[i]+a32*k2[i])
	}
	f(k3, t+c3*h, yt)
	for i := range yt {
		yt[i] = y[i] + h*(a41*k1[i]+a42*k2[i]+a43*k3[i])
	}
	f(k4, t+c4*h, yt)
	for i := range yt {
		yt[i] = y[i] + h*(a51*k1[i]+a52*k2[i]+a53*k3[i]+a54*k4[i])
	}
	f(k5, t+c5*h, yt)
	for i := range yt {
		yt[i] = y[i] + h*(a61*k1[i]+a62*k2[i]+a63*k3[i]+a64*k4[i]+a65*k5[i])
	}
	f(k6, t+h, yt)
	yn := it.ynew
	for i := range yn {
		yn[i] = y[i] + h*(a71*k1[i]+a73*k3[i]+a74*k4[i]+a75*k5[i]+a76*k6[i])
	}
	f(k7, t+h, yn)
	ye := it.yerr
	for i := range ye {
		ye[i] = h * (e1*k1[i] + e3*k3[i] + e4*k4[i] + e5*k5[i] + e6*k6[i] + e7*k7[i])
	}
}

// errorNorm is the scaled RMS norm of the error estimate (HNW (4.11)).
func (it *Integrator) errorNorm(y []float64, h float64) float64 {
	rtol, atol := it.s.RTol, it.s.ATol
	var sum float64
	for i, e := range it.yerr {
		sk := atol + rtol*math.Max(math.Abs(y[i]), math.Abs(it.ynew[i]))
		r := e / sk
		sum += r * r
	}
	return math.Sqrt(sum / float64(len(y)))
}

// initialStep is HNW's starting step heuristic (DOPRI5's HINIT, order 5).
func (it *Integrator) initialStep(y []float64, t, dir, hmax float64) float64 {
	rtol, atol := it.s.RTol, it.s.ATol
	var dnf, dny float64
	for i := range y {
		sk := atol + rtol*math.Abs(y[i])
		dnf += (it.k1[i] / sk) * (it.k1[i] / sk)
		dny += (y[i] / sk) * (y[i] / sk)
	}
	h := 1e-6
	if dnf > 1e-10 && dny > 1e-10 {
		h = 0.01 * math.Sqrt(dny/dnf)
	}
	h = math.Min(h, hmax)
	for i := range y {
		it.ytmp[i] = y[i] + dir*h*it.k1[i]
	}
	it.p.Func(it.k2, t+dir*h, it.ytmp)
	it.res.Stats.FuncEvals++
	var der2 float64
	for i := range y {
		sk := atol + rtol*math.Abs(y[i])
		d := (it.k2[i] - it.k1[i]) / sk
		der2 += d * d
	}
	der2 = math.Sqrt(der2) / h
	der12 := math.Max(math.Abs(der2), math.Sqrt(dnf))
	var h1 float64
	if der12 <= 1e-15 || math.IsNaN(der12) {
		h1 = math.Max(1e-6, h*1e-3)
	} else {
		h1 = math.Pow(0.01/der12, 1.0/5)
	}
	return math.Min(math.Min(100*h, h1), hmax)
}

// prepareDense sets up the continuous extension of the step (t, y) → ynew.
func (it *Integrator) prepareDense(y []float64, t, h float64) {
	it.t, it.h = t, h
	for i := range y {
		ydiff := it.ynew[i] - y[i]
		bspl := h*it.k1[i] - ydiff
		it.rc1[i] = y[i]
		it.rc2[i] = ydiff
		it.rc3[i] = bspl
		it.rc4[i] = ydiff - h*it.k7[i] - bspl
		it.rc5[i] = h * (d1*it.k1[i] + d3*it.k3[i] + d4*it.k4[i] + d5*it.k5[i] + d6*it.k6[i] + d7*it.k7[i])
	}
}

// interpolate writes the dense-output state at time tt of the current step.
func (it *Integrator) interpolate(dst []float64, tt float64) {
	th := (tt - it.t) / it.h
	th1 := 1 - th
	for i := range dst {
		dst[i] = it.rc1[i] + th*(it.rc2[i]+th1*(it.rc3[i]+th*(it.rc4[i]+th1*it.rc5[i])))
	}
}
