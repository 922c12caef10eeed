package ode

import (
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/outcome"
)

// Add accumulates the work of another integration: counts add up, MinStep
// is the smaller of the two (ignoring zero), LastStep is o's.
func (s *Stats) Add(o Stats) {
	s.Steps += o.Steps
	s.Rejected += o.Rejected
	s.FuncEvals += o.FuncEvals
	s.Events += o.Events
	if o.MinStep > 0 && (s.MinStep == 0 || o.MinStep < s.MinStep) {
		s.MinStep = o.MinStep
	}
	if o.Steps > 0 {
		s.LastStep = o.LastStep
	}
}

// Norm measures the size of a drift vector.
type Norm int

const (
	// MaxNorm is the largest absolute component.
	MaxNorm Norm = iota
	// L1Norm is the sum of absolute components.
	L1Norm
)

func (n Norm) of(v []float64) float64 {
	var s float64
	for _, x := range v {
		if n == L1Norm {
			s += math.Abs(x)
		} else {
			s = math.Max(s, math.Abs(x))
		}
	}
	return s
}

// SettleSettings control Integrator.Settle. A nil *SettleSettings or a
// zero field means the documented default.
type SettleSettings struct {
	// Tol: the state has settled when the drift, the norm of f(t, y), is
	// at most Tol. Default 1e-10.
	Tol float64
	// Norm measures the drift. Default MaxNorm.
	Norm Norm
	// Chunk is the length of the first stretch integrated between drift
	// checks. Default 10.
	Chunk float64
	// Growth multiplies the stretch after each check: 2 doubles it (the
	// default), 1 keeps it fixed.
	Growth float64
	// MaxTime bounds the time integrated. Default 1e6.
	MaxTime float64
}

// SettleResult is the outcome of Integrator.Settle. Its Status is
// Converged when the drift fell to Tol, NotSettled when MaxTime was
// integrated first, and the failure of the last integration otherwise
// (StepLimit, StepSizeUnderflow, NonFinite, EventLoop; EventStop or
// OutputStop if an event or the output stopped it). Evaluations counts the
// evaluations of f, the drift checks included.
type SettleResult struct {
	outcome.Outcome
	// T is the time reached, Drift the norm of f there.
	T, Drift float64
	// Stats adds up the work of every stretch.
	Stats Stats
}

// Settle integrates from (t0, y) toward a steady state: it checks the drift
// ‖f(t, y)‖ and, while it exceeds Tol, integrates a further stretch
// (Chunk, then Chunk·Growth, …), until the drift is small or MaxTime has
// been integrated. On return y holds the state at SettleResult.T. The error
// is non-nil for invalid settings and for an error of Settings.Output or
// Settings.Step; a failed integration, or not settling by MaxTime, is a
// Status.
func (it *Integrator) Settle(y []float64, t0 float64, s *SettleSettings) (SettleResult, error) {
	set := SettleSettings{Tol: 1e-10, Chunk: 10, Growth: 2, MaxTime: 1e6}
	if s != nil {
		if s.Tol != 0 {
			set.Tol = s.Tol
		}
		set.Norm = s.Norm
		if s.Chunk != 0 {
			set.Chunk = s.Chunk
		}
		if s.Growth != 0 {
			set.Growth = s.Growth
		}
		if s.MaxTime != 0 {
			set.MaxTime = s.MaxTime
		}
	}
	for _, v := range []float64{set.Tol, set.Chunk, set.MaxTime} {
		if !(v > 0) || math.IsInf(v, 0) {
			return SettleResult{}, fmt.Errorf("ode: settle: Tol, Chunk and MaxTime must be finite and > 0 (got %v, %v, %v)", set.Tol, set.Chunk, set.MaxTime)
		}
	}
	if !(set.Growth >= 1) || math.IsInf(set.Growth, 0) {
		return SettleResult{}, fmt.Errorf("ode: settle: Growth = %v, want a finite number ≥ 1", set.Growth)
	}
	if set.Norm != MaxNorm && set.Norm != L1Norm {
		return SettleResult{}, fmt.Errorf("ode: settle: unknown norm %d", int(set.Norm))
	}
	start, checks := time.Now(), 0
	dy := make([]float64, it.dim)
	out := SettleResult{T: t0}
	done := func(s outcome.Status, err error) (SettleResult, error) {
		out.Status, out.Evaluations, out.Elapsed = s, out.Stats.FuncEvals+checks, time.Since(start)
		return out, err
	}
	chunk, end := set.Chunk, t0+set.MaxTime
	for {
		it.p.Func(dy, out.T, y)
		checks++
		out.Drift = set.Norm.of(dy)
		if out.Drift <= set.Tol {
			return done(outcome.Converged, nil)
		}
		if out.T >= end {
			return done(outcome.NotSettled, nil)
		}
		t1 := math.Min(out.T+chunk, end)
		r, err := it.Solve(y, out.T, t1)
		out.Stats.Add(r.Stats)
		if err != nil || r.Status != outcome.Converged {
			out.T = r.T
			return done(r.Status, err)
		}
		out.T = t1
		chunk *= set.Growth
	}
}
