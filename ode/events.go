package ode

import "math"

// armEvents evaluates every event function at a (re)start and sets its
// reference sign. A zero value counts as the "before" side of the event's
// direction; Any events with a zero value stay unarmed until non-zero.
func (it *Integrator) armEvents(t float64, y []float64) {
	for i, ev := range it.p.Events {
		g := ev.G(t, y)
		it.gPrev[i] = g
		switch {
		case g > 0:
			it.ref[i] = 1
		case g < 0:
			it.ref[i] = -1
		default:
			switch ev.Direction {
			case Rising:
				it.ref[i] = -1
			case Falling:
				it.ref[i] = 1
			default:
				it.ref[i] = 0
			}
		}
	}
}

// updateRefs moves the reference signs to the end of an accepted step
// with no event. A zero value keeps the previous reference.
func (it *Integrator) updateRefs() {
	for i, g := range it.gPrev {
		if g > 0 {
			it.ref[i] = 1
		} else if g < 0 {
			it.ref[i] = -1
		}
	}
}

// after reports whether value g is on the far side of a crossing of event
// i whose reference sign is ref.
func after(dir Direction, ref int8, g float64) bool {
	switch dir {
	case Rising:
		return ref < 0 && g > 0
	case Falling:
		return ref > 0 && g < 0
	default:
		return (ref > 0 && g < 0) || (ref < 0 && g > 0)
	}
}

// findEvent evaluates the events at the end of the step (t, tNew] and
// locates the earliest crossing. It returns the event index and the time
// of the crossing (the first bracketed time on the far side), or −1.
func (it *Integrator) findEvent(t, tNew, dir float64) (int, float64) {
	evs := it.p.Events
	if len(evs) == 0 {
		return -1, 0
	}
	best, tBest := -1, 0.0
	for i, ev := range evs {
		it.gNew[i] = ev.G(tNew, it.ynew)
		if !after(ev.Direction, it.ref[i], it.gNew[i]) {
			continue
		}
		te := it.locate(i, t, it.gPrev[i], tNew, it.gNew[i])
		if best < 0 || dir*(te-tBest) < 0 {
			best, tBest = i, te
		}
	}
	return best, tBest
}

// locate brackets the crossing of event i between a (before side, value
// fa) and b (far side, value fb) on the dense output, by the Illinois
// variant of regula falsi with a bisection safeguard, and returns the
// far-side end of the final bracket.
func (it *Integrator) locate(i int, a, fa, b, fb float64) float64 {
	ev := it.p.Events[i]
	ref := it.ref[i]
	g := func(tt float64) float64 {
		it.interpolate(it.yout, tt)
		return ev.G(tt, it.yout)
	}
	tol := it.s.EventTol * (1 + math.Max(math.Abs(a), math.Abs(b)))
	side := 0 // which end moved last: −1 a, +1 b
	width := math.Abs(b - a)
	for iter := 0; iter < 200 && math.Abs(b-a) > tol; iter++ {
		var c float64
		if iter%3 == 2 && math.Abs(b-a) > 0.5*width {
			c = 0.5 * (a + b) // safeguard: force progress
		} else {
			c = b - fb*(b-a)/(fb-fa)
			if !(c > math.Min(a, b) && c < math.Max(a, b)) {
				c = 0.5 * (a + b)
			}
		}
		if iter%3 == 2 {
			width = math.Abs(b - a)
		}
		if c == a || c == b {
			break // bracket at the resolution of float64
		}
		fc := g(c)
		if after(ev.Direction, ref, fc) {
			b, fb = c, fc
			if side == 1 {
				fa /= 2
			}
			side = 1
		} else {
			a, fa = c, fc
			if side == -1 {
				fb /= 2
			}
			side = -1
		}
	}
	return b
}
