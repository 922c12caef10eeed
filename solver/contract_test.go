package solver_test

import (
	"testing"

	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/solver"
)

// Every model entry point has the shape (model, *Settings) → (*Result,
// error), takes nil settings as the documented defaults, and reports how it
// ended as a Status. Small, fast models; each must converge.
func TestEveryEntryPointWithNilSettings(t *testing.T) {
	alpha := []float64{0.7, 0.3}
	board := &staleboard.Model{K: 3, Load: 0.8, Period: 50}
	live := &bestofd.Model{D: 2, Load: 0.5}
	for _, c := range []struct {
		name string
		run  func() (solver.Status, error)
	}{
		{"staleboard.FixedPoint", func() (solver.Status, error) {
			r, err := staleboard.FixedPoint(board, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"staleboard.Attractor", func() (solver.Status, error) {
			r, err := staleboard.Attractor(board, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"staleboard.Edge", func() (solver.Status, error) {
			r, err := staleboard.Edge(&staleboard.Model{K: 3, Load: 0.9}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"staleboard.EdgeTable", func() (solver.Status, error) {
			r, err := staleboard.EdgeTable([]staleboard.Model{{K: 2, Load: 0.9}}, nil)
			return status(&r, err, func() solver.Status { return r[0].Status })
		}},
		{"jiq.Limit", func() (solver.Status, error) {
			r, err := jiq.Limit(&jiq.Model{Load: 0.9, Alpha: alpha}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"jiq.Trajectory", func() (solver.Status, error) {
			r, err := jiq.Trajectory(&jiq.Model{Load: 0.9, Alpha: alpha}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"jiq.Settle", func() (solver.Status, error) {
			r, err := jiq.Settle(&jiq.Model{Scenario: jiq.Queueing, Load: 0.5, Alpha: alpha}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"bestofd.FixedPoint", func() (solver.Status, error) {
			r, err := bestofd.FixedPoint(live, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"bestofd.Settle", func() (solver.Status, error) {
			r, err := bestofd.Settle(live, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"bestofd.Refined", func() (solver.Status, error) {
			r, err := bestofd.Refined(live, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"bestofd.Attractor", func() (solver.Status, error) {
			r, err := bestofd.Attractor(&bestofd.PeriodicUpdate{D: 2, Load: 0.5, Period: 5}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
		{"jackson.Solve", func() (solver.Status, error) {
			r, err := jackson.Solve(&jackson.JIQ{Servers: 100, Load: 0.9, Alpha: alpha}, nil)
			return status(r, err, func() solver.Status { return r.Status })
		}},
	} {
		st, err := c.run()
		if err != nil || st != solver.Converged {
			t.Errorf("%s with nil settings: %v, %v", c.name, st, err)
		}
	}
}

// status reads a result's Status unless the call failed.
func status[R any](r *R, err error, get func() solver.Status) (solver.Status, error) {
	if err != nil || r == nil {
		return solver.NotTerminated, err
	}
	return get(), nil
}

// Statuses are reported, not returned as errors: a solve stopped early
// ends with a failure Status and a nil error.
func TestNonConvergenceIsAStatus(t *testing.T) {
	att, err := staleboard.Attractor(&staleboard.Model{K: 5, Load: 0.9, Period: 1100}, &staleboard.AttractorSettings{
		Start: append(make([]float64, 110), 1), MaxIter: 2})
	if err != nil || att.Status != solver.NotSettled {
		t.Errorf("staleboard attractor after 2 periods: %v, %v", att.Status, err)
	}
	s, err := jiq.Settle(&jiq.Model{Load: 0.9, Alpha: []float64{0.7, 0.3}}, &jiq.SettleSettings{MaxTime: 1})
	if err != nil || s.Status != solver.NotSettled {
		t.Errorf("jiq settle within t = 1: %v, %v", s.Status, err)
	}
	fp, err := bestofd.FixedPoint(&bestofd.Model{D: 2, Load: 0.9}, &bestofd.FixedPointSettings{MaxTime: 1})
	if err != nil || fp.Status != solver.NotSettled {
		t.Errorf("bestofd fixed point with 1 time unit of ODE: %v, %v", fp.Status, err)
	}
}
