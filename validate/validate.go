package validate

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim"
)

// Check is one theory value against one simulated estimate.
type Check struct {
	Case     string
	Source   string // the published result or closed form checked
	Quantity string // what is compared
	N        int
	// Theory is the prediction (after RunBroken's breaking, in tests).
	Theory float64
	// Allow is the stated finite-N allowance added to the interval.
	Allow float64
	// Sim is the simulated mean with its 95% half-width.
	Sim sim.Estimate
	// Half is the half-width of the verdict's interval: the 99.9% Student t
	// interval of Sim (see Verdict).
	Half    float64
	Pass    bool
	Seconds float64 // the case's wall time
	// brokenPass is the verdict the same simulation gets against a broken
	// theory value (see breakValue): tests require it to be false.
	brokenPass bool
}

// Verdict applies the rule every check uses: the simulated 99.9%
// confidence interval, widened by the stated allowance, must contain the
// theory value:
//
//	|sim − theory| ≤ t_{0.9995, n−1}·s/√n + allow.
//
// 99.9% rather than 95%: a catalogue of some forty checks judged at 95%
// would flag a correct simulator in most runs; at 99.9% the chance that any
// of forty correct checks fails is about 4%. A check with a single sample
// (no interval: tipped-or-not counts) must match within the allowance.
func Verdict(e sim.Estimate, theory, allow float64) (half float64, pass bool) {
	if e.Samples >= 2 && e.CI95 > 0 {
		nu := float64(e.Samples - 1)
		t975 := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(0.975)
		t9995 := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(0.9995)
		half = e.CI95 * t9995 / t975
	}
	if math.IsNaN(theory) || math.IsNaN(e.Mean) {
		return half, false
	}
	if e.Method != "" && e.Method != sim.Transient && !e.Steady {
		return half, false
	}
	return half, math.Abs(e.Mean-theory) <= half+allow+1e-12*math.Abs(theory)
}

// Case is an entry of the catalogue: a theoretical prediction paired with
// simulation.
type Case struct {
	Name   string
	Source string
	// Quick cases form the --quick catalogue (run by go test and CI).
	Quick bool
	run   func(c *env) ([]Check, error)
}

// Settings control Run. The zero value runs the full catalogue.
type Settings struct {
	// Quick runs only the quick cases, with fewer simulated jobs.
	Quick bool
	// Filter, if not nil, keeps the cases whose name matches.
	Filter *regexp.Regexp
	// Seed is the base seed of every simulation (default 1).
	Seed uint64
	// Run: Workers is passed to every simulation; Progress is told after
	// each case of the cases done, their total and the case's name; a
	// cancelled Context abandons the case in progress, and the report holds
	// the cases that finished (Status Interrupted).
	outcome.Run
}

// Report is the outcome of Run. Its Status is Completed when every case
// ran (whatever their verdicts: a failed check is a finding, not a failed
// computation; Failed counts them), Interrupted when the Context ended the
// run (Checks are then those of the cases that finished, Done of Cases).
type Report struct {
	outcome.Outcome
	Checks []Check
	Cases  int
	Failed int // failed checks
	Quick  bool
	Done   int // cases finished
}

// env is what a case's run sees.
type env struct {
	quick bool
	seed  uint64
	cs    Case
	// broken: theory values are to be broken.
	broken bool
	run    outcome.Run // Settings.Run, passed to every simulation
}

// scale returns full in a full run and quick in a quick one.
func (e *env) scale(full, quick int) int {
	if e.quick {
		return quick
	}
	return full
}

// check builds a check and applies the verdict.
func (e *env) check(quantity string, n int, theory, allow float64, est sim.Estimate) Check {
	if e.broken {
		theory = breakValue(theory)
	}
	half, pass := Verdict(est, theory, allow)
	_, brokenPass := Verdict(est, breakValue(theory), allow)
	return Check{Case: e.cs.Name, Source: e.cs.Source, Quantity: quantity, N: n, Theory: theory, Allow: allow, Sim: est, Half: half, Pass: pass, brokenPass: brokenPass}
}

// tipCheck compares the fraction of replications that tipped with an
// expectation of all (1) or none (0).
func (e *env) tipCheck(quantity string, n int, want float64, res *sim.Result) Check {
	if e.broken {
		want = 1 - want
	}
	frac := float64(res.Tipped) / float64(len(res.Reps))
	return Check{Case: e.cs.Name, Source: e.cs.Source, Quantity: quantity, N: n, Theory: want,
		Sim: sim.Estimate{Mean: frac, Level: sim.DefaultLevel, Samples: 1}, Pass: frac == want, brokenPass: frac == 1-want}
}

func breakValue(x float64) float64 { return 1.25*x + 0.05 }

// sim runs a simulation of m with the case's seed offset, and the
// settings s otherwise; a cancelled run is errInterrupted.
func (e *env) sim(m *sim.Model, s *sim.Settings, offset uint64) (*sim.Result, error) {
	set := sim.Settings{}
	if s != nil {
		set = *s
	}
	set.Seed = sim.SubSeed(e.seed, offset)
	set.Context, set.Workers = e.run.Context, e.run.Workers
	res, err := sim.Run(m, &set)
	if err == nil && res.Status == outcome.Interrupted {
		return nil, errInterrupted
	}
	return res, err
}

// errInterrupted ends a case whose simulation was cancelled.
var errInterrupted = errors.New("validate: interrupted")

// ErrNoCase is returned by Run when the filter (and Quick) leave no case.
var ErrNoCase = errors.New("validate: no case matches the filter")

// Catalogue returns every case, in order.
func Catalogue() []Case { return catalogue() }

// Run runs the catalogue (or its quick part), case by case; the checks
// come back in catalogue order. A case that cannot run (a solver error)
// is an error, not a failed check. Cancelling the Context ends the run
// with the cases finished so far.
func Run(s *Settings) (*Report, error) { return run(s, nil) }

// run is Run with the theory values of the cases for which broken returns
// true deliberately broken (see export_test.go).
func run(s *Settings, broken func(caseName string) bool) (*Report, error) {
	set := Settings{}
	if s != nil {
		set = *s
	}
	if set.Seed == 0 {
		set.Seed = 1
	}
	var cases []Case
	for _, c := range catalogue() {
		if set.Quick && !c.Quick {
			continue
		}
		if set.Filter != nil && !set.Filter.MatchString(c.Name) {
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, ErrNoCase
	}
	start := time.Now()
	rep := &Report{Outcome: outcome.Outcome{Status: outcome.Completed}, Cases: len(cases), Quick: set.Quick}
	for i, c := range cases {
		if set.Stopped() {
			rep.Status = outcome.Interrupted
			break
		}
		t0 := time.Now()
		ev := &env{quick: set.Quick, seed: set.Seed, cs: c, broken: broken != nil && broken(c.Name), run: set.Run}
		checks, err := c.run(ev)
		if errors.Is(err, errInterrupted) {
			rep.Status = outcome.Interrupted
			break
		}
		if err != nil {
			// %v, not %w: a case's own settings refused by a solver are
			// a defect of the case, not the user's input to name as a
			// flag (exit status 1, with the case named).
			return nil, fmt.Errorf("validate: case %s: %v", c.Name, err)
		}
		rep.Done++
		sec := time.Since(t0).Seconds()
		for _, ch := range checks {
			ch.Seconds = sec
			if !ch.Pass {
				rep.Failed++
			}
			rep.Checks = append(rep.Checks, ch)
		}
		set.Report(int64(i+1), int64(len(cases)), c.Name)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}
