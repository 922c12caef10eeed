package staleboard

import (
	"errors"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

func pushModel(T float64, push farm.Push) *PushModel {
	return &PushModel{Model: Model{System: System{K: 5, Load: 0.9}, Period: T}, Push: push}
}

var half = farm.Push{Kind: farm.Backlog, Fraction: 0.5}

// The critical half-loaded backlog b*(T) at k = 5, λ = 0.9 lies between
// 0.05·T and 0.1·T from T = 450 to 2,000, as "The Cliff Was a Trap Door"
// found in simulations of 100 servers (0.1·T tipped every run, 0.05·T
// recovered); at T = 1,000 a hand bisection with fluid map put it
// between 0.065·T (recovers) and 0.07·T (tips). The bracket is checked
// against plain iteration of the map to its attractor (Attractor, an
// independent classification: iterated to convergence, no tipping rule):
// the board pushed by Lo settles on the balanced fixed point, the one
// pushed by Hi on the herd, whose mean time in system is about 0.40·T
// (at T = 450 an irregular herd that never settles on a cycle).
func TestCriticalHalf(t *testing.T) {
	periods := []float64{450, 1000, 2000}
	if testing.Short() {
		periods = []float64{1000}
	}
	for _, T := range periods {
		r, err := CriticalPush(pushModel(T, half), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != outcome.Converged || !(r.Scaled > 0.05 && r.Scaled < 0.1) || r.Hi-r.Lo > 0.005*r.Hi {
			t.Errorf("T = %v: %v, b* = %.4f·T in [%v, %v]", T, r.Status, r.Scaled, r.Lo, r.Hi)
		}
		if T == 1000 && !(r.Scaled > 0.064 && r.Scaled < 0.07) {
			t.Errorf("T = 1000: b* = %.4f·T, the hand bisection says 0.065–0.07", r.Scaled)
		}
		for _, c := range []struct {
			b    float64
			herd bool
		}{{r.Lo, false}, {r.Hi, true}} {
			p := disturb([]float64{1}, half, c.b, 0)
			att, err := Attractor(&r.Model, &AttractorSettings{Start: p, MaxIter: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if herd := att.Sojourn > 0.3*T; herd != c.herd || !herd && att.Status != outcome.FixedPoint {
				t.Errorf("T = %v, b = %.3f: the attractor (%v, mean time %.1f = %.3f·T) is herd %v, want %v", T, c.b, att.Status, att.Sojourn, att.Sojourn/T, herd, c.herd)
			}
		}
	}
}

// On the balanced state itself the basin vanishes at the edge
// (T* = 289.93 at k = 5, λ = 0.9, the published 2.90/(1 − λ)²): b*
// falls toward 0 as T comes down to T*, and rises with T.
func TestCriticalOnBalanced(t *testing.T) {
	if testing.Short() {
		t.Skip("three critical pushes near the edge, where the orbits linger")
	}
	var last float64
	for _, T := range []float64{291, 300, 450} {
		m := pushModel(T, half)
		m.OnBalanced = true
		r, err := CriticalPush(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != outcome.Converged || r.Critical <= last {
			t.Errorf("T = %v: %v, b* = %.3f after %.3f at a shorter period", T, r.Status, r.Critical, last)
		}
		if T == 291 && r.Scaled > 0.01 {
			t.Errorf("T = 291, 0.4%% above T*: b* = %.4f·T, want the basin nearly gone (< 0.01·T)", r.Scaled)
		}
		last = r.Critical
	}
}

// One server of 100 with 3,200 extra jobs does not tip the farm ("The
// Cliff Was a Trap Door": the dispatchers avoid it, and the slack is
// absorbed by the other 99), at T = 1,000 and at 2·T*; below the edge
// there is no balanced state to recover to.
func TestHotServer(t *testing.T) {
	for _, T := range []float64{580, 1000} {
		m := pushModel(T, farm.Push{Kind: farm.HotPush, Jobs: 3200})
		m.Servers = 100
		o, err := PushOrbit(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.End != Recovered || o.Status != outcome.FixedPoint {
			t.Errorf("T = %v: %v after %d periods", T, o.End, o.Periods)
		}
	}
	o, err := PushOrbit(pushModel(100, half), nil)
	if err != nil || o.Status != outcome.NoEdge || o.End != TippedEnd {
		t.Errorf("below the edge: %+v, %v", o, err)
	}
}

// Disturb keeps the mass and raises the mean by the jobs it adds: f·b
// for a backlog, b/2 for a spread, b/N for one server; a fractional b
// splits between the two levels around it.
func TestDisturb(t *testing.T) {
	p := []float64{0.2, 0.5, 0.3}
	cases := []struct {
		name    string
		push    farm.Push
		b       float64
		servers int
		rise    float64
	}{
		{"backlog", farm.Push{Kind: farm.Backlog, Fraction: 0.25, Jobs: 8}, 8, 0, 2},
		{"half, fractional", half, 6.4, 0, 3.2},
		{"spread", farm.Push{Kind: farm.SpreadPush, Jobs: 10}, 10, 0, 5},
		{"hot", farm.Push{Kind: farm.HotPush, Jobs: 300}, 300, 100, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := disturb(p, c.push, c.b, c.servers)
			var mass float64
			for _, x := range q {
				mass += x
			}
			approx.Check(t, "mass", mass, 1, 1e-15, 0)
			approx.Check(t, "mean rise", Mean(q)-Mean(p), c.rise, 1e-12, 0)
		})
	}
	if _, err := Disturb(p, farm.Push{Kind: farm.HotPush, Jobs: 5}, 0); !errors.As(err, new(*param.Error)) {
		t.Errorf("a hot push without servers: %v", err)
	}
}

// Bad models name their field.
func TestPushModelValidate(t *testing.T) {
	good := *pushModel(1000, half)
	cases := map[string]func(m *PushModel){
		"Push":       func(m *PushModel) { m.Push = farm.Push{} },
		"Servers":    func(m *PushModel) { m.Push = farm.Push{Kind: farm.HotPush} },
		"Start":      func(m *PushModel) { m.Start = farm.Start{Kind: farm.Hot, Jobs: 5} },
		"OnBalanced": func(m *PushModel) { m.OnBalanced, m.Push.At = true, 3 },
		"Period":     func(m *PushModel) { m.Period = 0 },
	}
	for field, f := range cases {
		m := good
		f(&m)
		var pe *param.Error
		if err := m.Validate(); !errors.As(err, &pe) || pe.Param != field {
			t.Errorf("%s: %v", field, err)
		}
	}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}

// Two dispatchers have no herd (the map's edge: none; "The Cliff Was a
// Trap Door": a half-loaded start of 0.2·T recovered at every T from 5 to
// 300), so no push opens a door: a push of several (1 − λ)·T flips
// between the halves for a few periods, herded by the watch, and then
// drains away. Taking the watch's first tip as final called a backlog of
// 1.7·T on half the servers critical at k = 2, λ = 0.7, T = 600.
func TestTwoDispatchersNoDoor(t *testing.T) {
	m := &PushModel{Model: Model{System: System{K: 2, Load: 0.7}, Period: 600}, Push: half}
	r, err := CriticalPush(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != outcome.AboveRange {
		t.Errorf("%v: b* = %v in [%v, %v], want no push up to the range's top to tip", r.Status, r.Critical, r.Lo, r.Hi)
	}
	// The push that the watch alone called a tip recovers.
	m.Push.Jobs = 1100
	o, err := PushOrbit(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.End != Recovered {
		t.Errorf("a push of 1,100 jobs: %v after %d periods", o.End, o.Periods)
	}
}
