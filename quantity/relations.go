package quantity

import (
	"fmt"
	"math"
	"strconv"
)

// scope is an object with the objects that enclose it: a row of a table
// reads the load of its document.
type scope struct {
	o      *object
	parent *scope
}

// inherit finds key in the object or the nearest enclosing one.
func (s *scope) inherit(key string) (any, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.o.get(key); ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) num(key string) (float64, bool) {
	x, ok := s.o.vals[key].(float64)
	return x, ok
}

func (s *scope) inheritedNum(key string) (float64, bool) {
	v, _ := s.inherit(key)
	x, ok := v.(float64)
	return x, ok
}

func (s *scope) text(key string) string {
	v, _ := s.inherit(key)
	t, _ := v.(string)
	return t
}

func (s *scope) nums(key string) ([]float64, bool) {
	a, ok := s.o.vals[key].([]any)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(a))
	for i, e := range a {
		x, ok := e.(float64)
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// estimateMean is the mean of an estimate field (nil, or no samples:
// false).
func (s *scope) estimateMean(key string) (float64, bool) {
	o, ok := s.o.vals[key].(*object)
	if !ok || !isEstimate(o) || emptyEstimate(o) {
		return 0, false
	}
	x, ok := o.vals["mean"].(float64)
	return x, ok
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// near reports whether a and b agree within tol relative to the larger
// (absolute below 1).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// relations checks the relations between the quantities of o, then of
// every object below it.
func (c *checker) relations(path string, o *object, parent *scope) {
	s := &scope{o: o, parent: parent}
	for _, r := range relationChecks {
		r(c, path, s)
	}
	for _, k := range o.keys {
		switch x := o.vals[k].(type) {
		case *object:
			if !isEstimate(x) {
				c.relations(join(path, k), x, s)
			}
		case []any:
			for i, e := range x {
				if eo, ok := e.(*object); ok {
					c.relations(fmt.Sprintf("%s[%d]", join(path, k), i), eo, s)
				}
			}
		}
	}
}

// relationChecks are the relations the models imply, each skipped where
// the object does not carry both sides.
var relationChecks = []func(c *checker, path string, s *scope){
	// Every server is busy or idle, and every idle server holds one token.
	func(c *checker, path string, s *scope) {
		busy, ok1 := s.num("busy")
		tokens, ok2 := s.nums("tokens")
		if ok1 && ok2 && len(tokens) > 0 && !near(busy+sum(tokens), 1, looseTol) {
			c.fail(path, "busy + Σ tokens = 1", "busy = %s, Σ tokens = %s", g(busy), g(sum(tokens)))
		}
	},
	// Blocking scenario: the busy servers carry the accepted jobs, so
	// blocking = 1 − busy/λ (not along a trajectory, where the blocking is
	// instantaneous and the busy fraction lags it).
	func(c *checker, path string, s *scope) {
		if _, traj := s.o.get("t"); traj {
			return
		}
		if sc := s.text("scenario"); sc != "blocking" && !(sc == "" && s.text("command") == "jackson") {
			return
		}
		b, ok1 := s.num("blocking")
		busy, ok2 := s.num("busy")
		load, ok3 := s.inheritedNum("load")
		if ok1 && ok2 && ok3 && load > 0 && !near(b, 1-busy/load, looseTol) {
			c.fail(path, "blocking + carried = 1, carried = busy/λ", "blocking = %s, busy/λ = %s", g(b), g(busy/load))
		}
	},
	// Exact finite-N blocking: B = Σ α_r·P(dispatcher r has no token).
	func(c *checker, path string, s *scope) {
		b, ok1 := s.num("blocking")
		none, ok2 := s.nums("no_tokens")
		v, _ := s.inherit("alpha")
		if !ok1 || !ok2 {
			return
		}
		alpha, ok3 := (&scope{o: &object{vals: map[string]any{"alpha": v}}}).nums("alpha")
		if !ok3 || len(alpha) != len(none) {
			return
		}
		var want float64
		for i := range alpha {
			want += alpha[i] * none[i]
		}
		if !near(b, want, looseTol) {
			c.fail(path, "blocking = Σ α_r·P(no token at r)", "blocking = %s, Σ = %s", g(b), g(want))
		}
	},
	// Shares sum to 1.
	func(c *checker, path string, s *scope) {
		for _, k := range []string{"alpha", "beta", "token_shares", "board", "occupancy"} {
			if v, ok := s.nums(k); ok && len(v) > 0 && !near(sum(v), 1, looseTol) {
				c.fail(join(path, k), "Σ = 1", "Σ %s = %s", k, g(sum(v)))
			}
		}
	},
	// A time in system is a wait plus a service of mean 1.
	func(c *checker, path string, s *scope) {
		t, ok1 := s.num("sojourn")
		w, ok2 := s.num("mean_wait")
		if ok1 && ok2 && !near(t, 1+w, looseTol) {
			c.fail(path, "sojourn = 1 + mean wait", "sojourn = %s, mean wait = %s", g(t), g(w))
		}
	},
	// Simulated, job by job: time in system > delay (size > 0), and the
	// wait of FCFS is the delay.
	func(c *checker, path string, s *scope) {
		t, ok1 := s.estimateMean("sojourn")
		d, ok2 := s.estimateMean("mean_delay")
		if ok1 && ok2 && t <= d {
			c.fail(path, "mean time in system > mean delay (sizes are positive)", "sojourn = %s, delay = %s", g(t), g(d))
		}
		if m, ok := s.num("mean"); ok && ok1 && m != t {
			c.fail(path, "mean = sojourn.mean", "mean = %s, sojourn.mean = %s", g(m), g(t))
		}
	},
	// Little's law at a server: mean count = λ × mean time in system.
	func(c *checker, path string, s *scope) {
		q, ok1 := s.num("mean_queue")
		t, ok2 := s.num("sojourn")
		load, ok3 := s.inheritedNum("load")
		if _, traj := s.o.get("t"); traj || !ok1 || !ok2 || !ok3 {
			return
		}
		if !near(q, load*t, looseTol) {
			c.fail(path, "Little's law: mean jobs = λ × mean time in system", "mean jobs = %s, λ × sojourn = %s", g(q), g(load*t))
		}
	},
	// A tail P(count ≥ n) starts at 1 and does not increase; a server that
	// loses nothing is busy with probability λ.
	func(c *checker, path string, s *scope) {
		tail, ok := s.nums("tail")
		if !ok || len(tail) == 0 {
			return
		}
		lost, _ := s.num("lost")
		tol := looseTol + lost
		if !near(tail[0], 1, tol) {
			c.fail(join(path, "tail"), "P(count ≥ 0) = 1", "tail[0] = %s", g(tail[0]))
		}
		for i := 1; i < len(tail); i++ {
			if tail[i] > tail[i-1]+Tol {
				c.fail(join(path, "tail"), "P(count ≥ n) does not increase", "tail[%d] = %s > tail[%d] = %s", i, g(tail[i]), i-1, g(tail[i-1]))
				break
			}
		}
		if load, ok := s.inheritedNum("load"); ok && len(tail) > 1 && !near(tail[1], load, tol) {
			c.fail(join(path, "tail"), "P(count ≥ 1) = λ (work conservation)", "tail[1] = %s, λ = %s", g(tail[1]), g(load))
		}
	},
	// A scaled period is the period times (1 − λ)².
	func(c *checker, path string, s *scope) {
		sc, ok1 := s.num("scaled")
		t, ok2 := s.num("period")
		load, ok3 := s.inheritedNum("load")
		if ok1 && ok2 && ok3 {
			if want := t * (1 - load) * (1 - load); !near(sc, want, Tol) {
				c.fail(path, "scaled = period·(1 − λ)²", "scaled = %s, period·(1−λ)² = %s", g(sc), g(want))
			}
		}
	},
	// A phase's mean lies between its extremes.
	func(c *checker, path string, s *scope) {
		m, ok1 := s.num("sojourn")
		lo, ok2 := s.num("min")
		hi, ok3 := s.num("max")
		if ok1 && ok2 && ok3 && (m < lo*(1-Tol) || m > hi*(1+Tol)) {
			c.fail(path, "min ≤ mean ≤ max", "min = %s, mean = %s, max = %s", g(lo), g(m), g(hi))
		}
	},
	// Runs that tipped are among the runs.
	func(c *checker, path string, s *scope) {
		n, ok1 := s.num("tipped")
		r, ok2 := s.num("reps")
		if ok1 && ok2 && n > r {
			c.fail(path, "tipped ≤ reps", "tipped = %s, reps = %s", g(n), g(r))
		}
	},
}
