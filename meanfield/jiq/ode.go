package jiq

import (
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/ode"
)

// jiqSystem is the fluid ODE with an explicit mode per dispatcher: a
// dispatcher's pool is either non-empty (z_r = α_r·λ) or empty and held at
// zero (z_r = its token inflow, the sliding mode). The
// right-hand side is smooth within a mode; ode events switch the modes
// exactly where a pool empties (x_r falls through 0) or refills (the inflow
// rises through α_r·λ).
type jiqSystem struct {
	scen           farm.Scenario
	alpha, beta    []float64
	lam, nu        float64
	R, imax, dim   int
	xoff           int // index of x_1 in the state vector
	empty          []bool
	switches       []Switch
	recordSwitches bool
}

func (m *Model) newSystem(imax int) *jiqSystem {
	s := &jiqSystem{
		scen:  m.Scenario,
		alpha: m.Alpha,
		beta:  m.beta(),
		lam:   m.Load,
		nu:    m.Exchange,
		R:     len(m.Alpha),
		imax:  imax,
		empty: make([]bool, len(m.Alpha)),
	}
	if s.scen == Blocking {
		s.xoff = 1
	} else {
		s.xoff = imax + 1
	}
	s.dim = s.xoff + s.R
	return s
}

// inflow is the rate at which dispatcher r receives tokens:
// β_r·x₀ + ν(1 − x₀)/R (Blocking) or β_r·y₁ + ν·y₀/R (Queueing).
func (s *jiqSystem) inflow(r int, y []float64) float64 {
	if s.scen == Blocking {
		return s.beta[r]*y[0] + s.nu*(1-y[0])/float64(s.R)
	}
	return s.beta[r]*y[1] + s.nu*y[0]/float64(s.R)
}

// usage returns z_r, the rate at which dispatcher r uses tokens.
func (s *jiqSystem) usage(r int, y []float64) float64 {
	if s.empty[r] {
		return s.inflow(r, y)
	}
	return s.alpha[r] * s.lam
}

func (s *jiqSystem) f(dy []float64, _ float64, y []float64) {
	if s.scen == Blocking {
		x0 := y[0]
		var sumz float64
		for r := 0; r < s.R; r++ {
			in := s.beta[r]*x0 + s.nu*(1-x0)/float64(s.R)
			if s.empty[r] {
				sumz += in
				dy[1+r] = 0
			} else {
				z := s.alpha[r] * s.lam
				sumz += z
				dy[1+r] = in - z - s.nu*y[1+r]
			}
		}
		dy[0] = sumz - x0
		return
	}
	M := s.imax
	var l1 float64
	for r := 0; r < s.R; r++ {
		l1 += s.usage(r, y)
	}
	l2 := s.lam - l1
	dy[0] = y[1] - l1 - l2*y[0]
	for i := 1; i < M; i++ {
		dy[i] = l2*y[i-1] + y[i+1] - (l2+1)*y[i]
	}
	// Reflecting truncation: a server at IMax receives no more jobs, so
	// Σ y_i = 1 is kept exactly.
	dy[M] = l2*y[M-1] - y[M]
	dy[1] += l1
	for r := 0; r < s.R; r++ {
		xi := s.xoff + r
		if s.empty[r] {
			dy[xi] = 0
		} else {
			dy[xi] = s.inflow(r, y) - s.alpha[r]*s.lam - (s.nu+l2)*y[xi]
		}
	}
}

// setModes sets each dispatcher's mode from a state: empty if its pool is
// zero and its inflow does not exceed its demand.
func (s *jiqSystem) setModes(y []float64) {
	for r := range s.empty {
		s.empty[r] = y[s.xoff+r] == 0 && s.inflow(r, y) <= s.alpha[r]*s.lam
	}
}

// events returns the 2R switching events.
func (s *jiqSystem) events() []ode.Event {
	evs := make([]ode.Event, 0, 2*s.R)
	for r := 0; r < s.R; r++ {
		xi := s.xoff + r
		evs = append(evs, ode.Event{
			// The pool empties: x_r falls through zero.
			G: func(_ float64, y []float64) float64 {
				if s.empty[r] {
					return 1
				}
				return y[xi]
			},
			Direction: ode.Falling,
			Handle: func(t float64, y []float64) ode.Action {
				if s.scen == Blocking {
					y[0] += y[xi] // keep x₀ + Σx_r = 1 exactly
				}
				y[xi] = 0
				if s.inflow(r, y) < s.alpha[r]*s.lam {
					s.empty[r] = true
					if s.recordSwitches {
						s.switches = append(s.switches, Switch{T: t, Dispatcher: r, Empty: true})
					}
				}
				return ode.Continue
			},
		}, ode.Event{
			// The pool refills: the inflow rises through the demand.
			G: func(_ float64, y []float64) float64 {
				if !s.empty[r] {
					return -1
				}
				return s.inflow(r, y) - s.alpha[r]*s.lam
			},
			Direction: ode.Rising,
			Handle: func(t float64, _ []float64) ode.Action {
				s.empty[r] = false
				if s.recordSwitches {
					s.switches = append(s.switches, Switch{T: t, Dispatcher: r, Empty: false})
				}
				return ode.Continue
			},
		})
	}
	return evs
}

// conservationError measures the invariants at state y.
func (s *jiqSystem) conservationError(y []float64) float64 {
	var sx float64
	for r := 0; r < s.R; r++ {
		sx += y[s.xoff+r]
	}
	if s.scen == Blocking {
		return math.Abs(y[0] + sx - 1)
	}
	var sy float64
	for i := 0; i <= s.imax; i++ {
		sy += y[i]
	}
	return math.Max(math.Abs(sy-1), math.Abs(sx-y[0]))
}

// point fills p from state y.
func (s *jiqSystem) point(p *Point, t float64, y []float64) {
	p.T = t
	p.Tokens = y[s.xoff : s.xoff+s.R]
	var sumz float64
	for r := 0; r < s.R; r++ {
		sumz += s.usage(r, y)
	}
	if s.scen == Blocking {
		p.Busy = y[0]
		p.Blocking = 1 - sumz/s.lam
		return
	}
	p.Occupancy = y[:s.imax+1]
	p.Busy = 1 - y[0]
	p.RandomRate = s.lam - sumz
	var mq float64
	for i := 1; i <= s.imax; i++ {
		mq += float64(i) * y[i]
	}
	p.MeanQueue = mq
}

// state copies a state vector into a State.
func (s *jiqSystem) state(y []float64) State {
	st := State{Tokens: append([]float64(nil), y[s.xoff:s.xoff+s.R]...)}
	if s.scen == Blocking {
		st.Busy = y[0]
	} else {
		st.Occupancy = append([]float64(nil), y[:s.imax+1]...)
		st.Busy = 1 - y[0]
	}
	return st
}
