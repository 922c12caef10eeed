package sim

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/steadystate"
)

// The mean slowdown E[T/S] is reported exactly where it is finite: not
// under FCFS with exponential or H2 sizes (the wait is independent of the
// size and E[1/S] = ∞), but under PS, with sizes bounded away from 0 and
// under JIQ blocking (no job waits: T/S = 1).
func TestSlowdownOnlyWhereFinite(t *testing.T) {
	exp, h2 := farm.Sizes{}, farm.Sizes{Kind: farm.H2, SCV: 4}
	det, pareto := farm.Sizes{Kind: farm.Deterministic}, farm.Sizes{Kind: farm.Pareto, Shape: 2.5}
	jsq, blocking := farm.Policy{Kind: farm.JSQd, D: 2}, farm.Policy{Kind: farm.JIQBlocking}
	for _, c := range []struct {
		disc   farm.Discipline
		sizes  farm.Sizes
		policy farm.Policy
		finite bool
	}{
		{farm.FCFS, exp, farm.Policy{}, false},
		{farm.FCFS, h2, jsq, false},
		{farm.FCFS, exp, farm.Policy{Kind: farm.JIQQueueing}, false},
		{farm.FCFS, det, farm.Policy{}, true},
		{farm.FCFS, pareto, jsq, true},
		{farm.FCFS, exp, blocking, true},
		{farm.FCFS, h2, blocking, true},
		{farm.PS, exp, farm.Policy{}, true},
		{farm.PS, h2, jsq, true},
	} {
		cfg := config{Model: Model{Servers: 10, Load: 0.7, Discipline: c.disc, Sizes: c.sizes, Policy: c.policy}, Settings: Settings{Jobs: 20_000, Reps: 4, Seed: 3}}
		if finite, why := cfg.SlowdownFinite(); finite != c.finite || why == "" {
			t.Errorf("%s: SlowdownFinite = %v, %q; want %v", cfg.Describe(), finite, why, c.finite)
		}
		r := mustRun(t, cfg)
		if (r.Slowdown != nil) != c.finite || (r.SlowdownNote == "") != c.finite {
			t.Errorf("%s: slowdown %+v, note %q; want finite %v", cfg.Describe(), r.Slowdown, r.SlowdownNote, c.finite)
		}
		// The tail P(T > 10·S) is always there: 0 under JIQ blocking
		// (T = S), positive where the mean is infinite.
		if tail := r.SlowdownTail.Mean; tail < 0 || tail > 1 || (c.policy.Kind == farm.JIQBlocking && tail != 0) || (!c.finite && tail == 0) {
			t.Errorf("%s: P(T > 10·S) = %v", cfg.Describe(), tail)
		}
		if c.policy.Kind == farm.JIQBlocking && math.Abs(r.Slowdown.Mean-1) > 1e-9 {
			t.Errorf("%s: slowdown %v, want 1", cfg.Describe(), r.Slowdown.Mean)
		}
		if c.disc == farm.FCFS && c.sizes.Kind == farm.Deterministic && math.Abs(r.Slowdown.Mean-r.Sojourn.Mean) > 1e-9 {
			t.Errorf("%s: with sizes 1, slowdown %v ≠ sojourn %v", cfg.Describe(), r.Slowdown.Mean, r.Sojourn.Mean)
		}
	}
}

// Under PS no job waits in a queue: Wait and WaitProb are nil, and Delay
// E[T − S] and BusyAtArrival are those of M/G/1-PS under random dispatch:
// λ/(1−λ) and λ (Poisson arrivals see the time average). Under FCFS, Wait
// and WaitProb are Delay and BusyAtArrival.
func TestPSFields(t *testing.T) {
	const load = 0.5
	c := config{Model: Model{Servers: 10, Load: load, Discipline: farm.PS, Sizes: farm.Sizes{Kind: farm.H2, SCV: 4}}, Settings: Settings{Jobs: 50_000, Reps: 4, Seed: 5}}
	r := mustRun(t, c)
	if r.Wait != nil || r.WaitProb != nil {
		t.Errorf("PS: wait %+v, P(wait > 0) %+v; want nil", r.Wait, r.WaitProb)
	}
	if !agrees(r.Delay, load/(1-load), 0.02) || !agrees(r.BusyAtArrival, load, 0.02) {
		t.Errorf("random PS: delay %+v (theory %v), busy at arrival %+v (theory %v)", r.Delay, load/(1-load), r.BusyAtArrival, load)
	}
	c.Discipline = farm.FCFS
	r = mustRun(t, c)
	if r.Wait == nil || r.WaitProb == nil || *r.Wait != r.Delay || *r.WaitProb != r.BusyAtArrival {
		t.Errorf("FCFS: wait %+v, P(wait > 0) %+v; delay %+v, busy %+v", r.Wait, r.WaitProb, r.Delay, r.BusyAtArrival)
	}
	// P-K: E[W] = λ(1 + c²)/(2(1 − λ)).
	if w := load * 5 / (2 * (1 - load)); !agrees(r.Delay, w, 0.05) {
		t.Errorf("random FCFS: wait %+v, theory %v", r.Delay, w)
	}
}

// The confidence level scales a transient half-width by the ratio of
// Student t quantiles, widens a steady-state one, and leaves the mean and
// the 95% half-width alone.
func TestLevel(t *testing.T) {
	for _, transient := range []bool{true, false} {
		c := config{Model: Model{Servers: 10, Load: 0.7}, Settings: Settings{Jobs: 20_000, Reps: 5, Seed: 9, Transient: transient}}
		a := mustRun(t, c)
		c.Level = 0.99
		b := mustRun(t, c)
		if a.Sojourn.Level != 0.95 || a.Sojourn.HalfWidth != a.Sojourn.CI95 || b.Sojourn.Level != 0.99 {
			t.Errorf("transient %v: levels %+v, %+v", transient, a.Sojourn, b.Sojourn)
		}
		if b.Sojourn.Mean != a.Sojourn.Mean || b.Sojourn.CI95 != a.Sojourn.CI95 || !(b.Sojourn.HalfWidth > b.Sojourn.CI95) {
			t.Errorf("transient %v: 99%% %+v against 95%% %+v", transient, b.Sojourn, a.Sojourn)
		}
		if transient {
			n := b.Sojourn.Samples
			st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
			ratio := st.Quantile(0.995) / st.Quantile(0.975)
			if math.Abs(b.Sojourn.HalfWidth/b.Sojourn.CI95-ratio) > 1e-9 {
				t.Errorf("99%% half-width %v, 95%% %v: ratio %v, want t(0.995, %d)/t(0.975, %d) = %v",
					b.Sojourn.HalfWidth, b.Sojourn.CI95, b.Sojourn.HalfWidth/b.Sojourn.CI95, n-1, n-1, ratio)
			}
		}
		if b.Delay.Level != 0.99 || b.Blocking.Level != 0.99 {
			t.Errorf("transient %v: not every estimate at level 0.99: %+v %+v", transient, b.Delay, b.Blocking)
		}
	}
}

// A sequential run stops at its precision with a steady-state estimate
// whose half-width meets it, whatever the workers; a budget too small for
// the precision ends it at the budget (or not steady), never at the
// precision.
func TestSequential(t *testing.T) {
	c := config{Model: Model{Servers: 10, Load: 0.7}, Settings: Settings{Seed: 13, Level: 0.9, Run: outcome.Run{Workers: 1}}}
	a := mustRun(t, c)
	s := a.Sojourn
	t.Logf("%d checks, %d jobs: %.4f in [%.4f, %.4f], %s, %d batches", a.Checks, a.Jobs, s.Mean, s.Lower, s.Upper, s.Method, s.Samples)
	eps := DefaultPrecision / (1 + DefaultPrecision)
	if a.Status != outcome.PrecisionReached || !a.PrecisionReached || s.HalfWidth > eps*s.Mean || !s.Steady || !s.Independent ||
		s.Method != steadystate.ReplicatedBatchMeans || len(a.Reps) != DefaultReps || a.NeededJobs != 0 {
		t.Errorf("target not reached as it should: %v, %d checks, %+v", a.Status, a.Checks, s)
	}
	c.Workers = 4
	b := mustRun(t, c)
	if b.Sojourn != a.Sojourn || b.Evaluations != a.Evaluations || b.Checks != a.Checks {
		t.Errorf("workers 1: %+v; workers 4: %+v", a.Sojourn, b.Sojourn)
	}
	c.Budget = 100_000 // above the floor of 8 × 40 relaxation times (84,000 jobs), below the 358,000 the precision took
	r := mustRun(t, c)
	if r.Status != outcome.BudgetReached && r.Status != outcome.NotSteady || r.PrecisionReached || r.Jobs > 110_000 || r.NeededJobs <= r.Jobs {
		t.Errorf("budget of 100,000 jobs: %v after %d jobs (needs %d), %+v", r.Status, r.Jobs, r.NeededJobs, r.Sojourn)
	}
	c.Budget = 50_000 // below the floor: refused before any work
	if _, err := run(c); err == nil {
		t.Error("a budget below the floor of the run was accepted")
	}
}
