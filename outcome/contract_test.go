package outcome_test

import (
	"math"
	"reflect"
	"regexp"
	"testing"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/meanfield/jiq"
	"github.com/fluidlb/fluid/meanfield/staleboard"
	"github.com/fluidlb/fluid/ode"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
	"github.com/fluidlb/fluid/sim/tipping"
	"github.com/fluidlb/fluid/validate"
)

// ran is a finished call of an entry point: its result and its error.
type ran struct {
	res any
	err error
}

// call records an entry point's two results, whatever the result's type.
func call[R any](res R, err error) ran { return ran{res, err} }

// outcomes reads the outcome.Outcome embedded in a result: a struct, a
// pointer to one, or a slice of either (EdgeTable's entries).
func outcomes(t *testing.T, res any) []outcome.Outcome {
	t.Helper()
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Slice {
		var out []outcome.Outcome
		for i := range v.Len() {
			out = append(out, outcomes(t, v.Index(i).Interface())...)
		}
		return out
	}
	v = reflect.Indirect(v)
	f := v.FieldByName("Outcome")
	o, ok := f.Interface().(outcome.Outcome)
	if v.Kind() != reflect.Struct || !f.IsValid() || !ok {
		t.Fatalf("%T embeds no outcome.Outcome", res)
	}
	return []outcome.Outcome{o}
}

// Every entry point has the shape (model, *Settings) → (*Result, error)
// (or takes only the model when it has nothing to set), takes nil settings
// as the documented defaults, and says how it ended in the Outcome its
// result embeds: here small, fast problems that each deliver their answer.
func TestEveryEntryPoint(t *testing.T) {
	alpha := []float64{0.7, 0.3}
	board := &staleboard.Model{System: staleboard.System{K: 3, Load: 0.8}, Period: 50}
	live := &bestofd.Model{D: 2, Load: 0.5}
	decay := ode.Problem{Func: func(dy []float64, _ float64, y []float64) { dy[0] = -y[0] }}
	integ, err := ode.NewIntegrator(decay, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	half := func(dst, x []float64) error { dst[0], dst[1] = 0.5*x[0]+0.5*x[1], 0.5*x[0]+0.5*x[1]; return nil }
	family := &fixedpoint.Family{
		Map:   func(float64) (fixedpoint.Func, error) { return half, nil },
		Start: func(float64) []float64 { return []float64{1, 0} },
	}
	cases := []struct {
		name string
		ran  ran
		want outcome.Status
	}{
		{"ode.Solve", call(ode.Solve(decay, []float64{1}, 0, 1, nil)), outcome.Converged},
		{"ode.Integrator.Settle", call(integ.Settle([]float64{1}, 0, nil)), outcome.Converged},
		{"fixedpoint.Solve", call(fixedpoint.Solve(half, []float64{1, 0}, nil)), outcome.Converged},
		{"fixedpoint.Classify", call(fixedpoint.Classify(half, []float64{1, 0}, nil)), outcome.FixedPoint},
		{"fixedpoint.FollowEnd", call(fixedpoint.FollowEnd(family, &fixedpoint.EndSettings{Hi: 1, Lo: 0.5})), outcome.NoEdge},
		{"staleboard.FixedPoint", call(staleboard.FixedPoint(board, nil)), outcome.Converged},
		{"staleboard.Attractor", call(staleboard.Attractor(board, nil)), outcome.FixedPoint},
		{"staleboard.Edge", call(staleboard.Edge(&staleboard.System{K: 3, Load: 0.9}, nil)), outcome.EdgeFound},
		{"staleboard.EdgeTable", call(staleboard.EdgeTable([]staleboard.System{{K: 2, Load: 0.9}}, nil)), outcome.NoEdge},
		{"staleboard.FiniteEdge", call(staleboard.FiniteEdge(&staleboard.FiniteModel{System: staleboard.System{K: 2, Load: 0.9}, Servers: 100}, nil)), outcome.NoEdge},
		{"staleboard.TipProbability", call(staleboard.TipProbability(&staleboard.TipModel{FiniteModel: staleboard.FiniteModel{System: staleboard.System{K: 5, Load: 0.9}, Servers: 100}, Period: 400}, nil)), outcome.Converged},
		{"jiq.Limit", call(jiq.Limit(&jiq.Model{Load: 0.9, Alpha: alpha})), outcome.Converged},
		{"jiq.Trajectory", call(jiq.Trajectory(&jiq.Model{Load: 0.9, Alpha: alpha}, nil)), outcome.Converged},
		{"jiq.Settle", call(jiq.Settle(&jiq.Model{Scenario: jiq.Queueing, Load: 0.5, Alpha: alpha}, nil)), outcome.Converged},
		{"bestofd.FixedPoint", call(bestofd.FixedPoint(live, nil)), outcome.Converged},
		{"bestofd.Settle", call(bestofd.Settle(live, nil)), outcome.Converged},
		{"bestofd.Refined", call(bestofd.Refined(live)), outcome.Exact},
		{"bestofd.Attractor", call(bestofd.Attractor(&bestofd.PeriodicUpdate{D: 2, Load: 0.5, Period: 5}, nil)), outcome.FixedPoint},
		{"jackson.Solve", call(jackson.Solve(&jackson.JIQ{Servers: 100, Load: 0.9, Alpha: alpha})), outcome.Exact},
		{"sim.Run", call(sim.Run(&sim.Model{Servers: 10, Load: 0.5}, nil)), outcome.PrecisionReached},
		{"sim.Run, a transient", call(sim.Run(&sim.Model{Servers: 10, Load: 0.5}, &sim.Settings{Jobs: 1000, Reps: 2, Transient: true})), outcome.Completed},
		{"tipping.Simulate", call(tipping.Simulate(&tipping.Model{Dispatchers: 5, Load: 0.9, Servers: 20},
			&tipping.Settings{Scaled: []float64{0.5, 8}, Reps: 4, Horizon: 20})), outcome.Converged},
		{"validate.Run", call(validate.Run(&validate.Settings{Quick: true, Filter: regexp.MustCompile("^jiq-theorem1$")})), outcome.Completed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.ran.err != nil {
				t.Fatal(c.ran.err)
			}
			for _, o := range outcomes(t, c.ran.res) {
				if o.Status != c.want || o.Err() != nil || o.Evaluations < 0 || o.Elapsed <= 0 {
					t.Errorf("%s: %v (want %v), %d evaluations in %v", c.name, o.Status, c.want, o.Evaluations, o.Elapsed)
				}
			}
		})
	}
}

// Statuses are reported, not returned as errors: a computation stopped
// early ends with a Status that is not OK, and a nil error.
func TestEndingEarlyIsAStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		ran  ran
		want outcome.Status
	}{
		{"staleboard.Attractor after 2 periods", call(staleboard.Attractor(&staleboard.Model{System: staleboard.System{K: 5, Load: 0.9}, Period: 1100},
			&staleboard.AttractorSettings{Start: append(make([]float64, 110), 1), MaxIter: 2})), outcome.NotSettled},
		{"jiq.Settle within t = 1", call(jiq.Settle(&jiq.Model{Load: 0.9, Alpha: []float64{0.7, 0.3}}, &jiq.SettleSettings{MaxTime: 1})), outcome.NotSettled},
		{"bestofd.FixedPoint with 1 time unit of ODE", call(bestofd.FixedPoint(&bestofd.Model{D: 2, Load: 0.9}, &bestofd.FixedPointSettings{MaxTime: 1})), outcome.NotSettled},
		{"ode.Solve in 10 steps", call(ode.Solve(ode.Problem{Func: func(dy []float64, _ float64, y []float64) { dy[0] = math.Cos(100 * y[0]) }},
			[]float64{0}, 0, 100, &ode.Settings{MaxSteps: 10})), outcome.StepLimit},
		{"fixedpoint.Solve in 3 iterations", call(fixedpoint.Solve(func(dst, x []float64) error { dst[0], dst[1] = x[1], x[0]; return nil },
			[]float64{1, 0}, &fixedpoint.Settings{MaxIter: 3})), outcome.IterationLimit},
		{"sim.Run to a precision it cannot reach", call(sim.Run(&sim.Model{Servers: 5, Load: 0.5},
			&sim.Settings{Budget: 200_000, RelPrecision: 1e-6})), outcome.BudgetReached},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.ran.err != nil {
				t.Fatal(c.ran.err)
			}
			for _, o := range outcomes(t, c.ran.res) {
				if o.Status != c.want || o.Status.OK() || o.Err() == nil {
					t.Errorf("%s: %v, want %v", c.name, o.Status, c.want)
				}
			}
		})
	}
}
