package sim

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
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
		cfg := config{Model: Model{Servers: 10, Load: 0.7, Discipline: c.disc, Sizes: c.sizes, Policy: c.policy}, Settings: Settings{Jobs: 5000, Reps: 4, Seed: 3}}
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

// The confidence level scales the half-width by the ratio of Student t
// quantiles and leaves the mean and the 95% half-width alone.
func TestLevel(t *testing.T) {
	for _, reps := range []int{5, 1} { // replication means, batch means
		c := config{Model: Model{Servers: 10, Load: 0.7}, Settings: Settings{Jobs: 5000, Reps: reps, Seed: 9}}
		a := mustRun(t, c)
		c.Level = 0.99
		b := mustRun(t, c)
		n := b.Sojourn.Samples
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
		ratio := st.Quantile(0.995) / st.Quantile(0.975)
		if a.Sojourn.Level != 0.95 || a.Sojourn.HalfWidth != a.Sojourn.CI95 || b.Sojourn.Level != 0.99 {
			t.Errorf("%d reps: levels %+v, %+v", reps, a.Sojourn, b.Sojourn)
		}
		if b.Sojourn.Mean != a.Sojourn.Mean || b.Sojourn.CI95 != a.Sojourn.CI95 || !(b.Sojourn.HalfWidth > b.Sojourn.CI95) ||
			math.Abs(b.Sojourn.HalfWidth/b.Sojourn.CI95-ratio) > 1e-9 {
			t.Errorf("%d reps: 99%% half-width %v, 95%% %v: ratio %v, want t(0.995, %d)/t(0.975, %d) = %v",
				reps, b.Sojourn.HalfWidth, b.Sojourn.CI95, b.Sojourn.HalfWidth/b.Sojourn.CI95, n-1, n-1, ratio)
		}
		if b.Delay.Level != 0.99 || b.Blocking.Level != 0.99 {
			t.Errorf("%d reps: not every estimate at level 0.99: %+v %+v", reps, b.Delay, b.Blocking)
		}
	}
}

// A precision target adds replications until the half-width at Level is
// at most RelPrecision·mean; the result does not depend on the workers,
// and equals a plain run of as many replications.
func TestRelPrecision(t *testing.T) {
	c := config{Model: Model{Servers: 10, Load: 0.7}, Settings: Settings{Jobs: 2000, Reps: 4, Seed: 13, RelPrecision: 0.01, Level: 0.9, Run: outcome.Run{Workers: 1}}}
	a := mustRun(t, c)
	s := a.Sojourn
	t.Logf("%d replications in %d rounds: %.4f ± %.4f", len(a.Reps), a.Rounds, s.Mean, s.HalfWidth)
	if !a.PrecisionReached || s.HalfWidth > 0.01*s.Mean || len(a.Reps) <= 4 || a.Rounds < 2 || len(a.Reps) > DefaultMaxReps ||
		s.Samples != len(a.Reps) || a.Jobs != int64(2000*len(a.Reps)) {
		t.Errorf("target not reached as it should: %d reps, %d rounds, %+v", len(a.Reps), a.Rounds, s)
	}
	c.Workers = 4
	b := mustRun(t, c)
	if len(b.Reps) != len(a.Reps) || b.Rounds != a.Rounds || b.Sojourn != a.Sojourn || b.Evaluations != a.Evaluations {
		t.Errorf("workers 1: %d reps %+v; workers 4: %d reps %+v", len(a.Reps), a.Sojourn, len(b.Reps), b.Sojourn)
	}
	plain := c
	plain.RelPrecision, plain.Reps = 0, len(a.Reps)
	if p := mustRun(t, plain); p.Sojourn != a.Sojourn || p.Rounds != 1 || p.PrecisionReached {
		t.Errorf("plain run of %d replications: %+v, want %+v", len(a.Reps), p.Sojourn, a.Sojourn)
	}
	// The cap stops a run whose target is out of reach.
	c.RelPrecision, c.MaxReps = 1e-5, 11
	r := mustRun(t, c)
	if r.PrecisionReached || len(r.Reps) != 11 || r.Sojourn.HalfWidth <= 1e-5*r.Sojourn.Mean || r.Rounds < 2 {
		t.Errorf("capped run: reached %v, %d reps, %d rounds, %+v", r.PrecisionReached, len(r.Reps), r.Rounds, r.Sojourn)
	}
	// A target met by the first round adds nothing.
	c.RelPrecision, c.MaxReps = 0.5, 0
	if r := mustRun(t, c); !r.PrecisionReached || len(r.Reps) != 4 || r.Rounds != 1 {
		t.Errorf("easy target: reached %v, %d reps, %d rounds", r.PrecisionReached, len(r.Reps), r.Rounds)
	}
}

// batchOf, which moves on at precomputed arrival numbers, against the
// division it replaces, ⌊(id − warm-up)·batches/measured⌋, for runs with
// fewer jobs than batches (empty batches), uneven splits, and a run of
// Horizon periods (one batch for every job after the warm-up).
func TestBatchOf(t *testing.T) {
	for _, warm := range []int64{0, 3} {
		for _, jobs := range []int64{1, 5, 9, 10, 11, 97, 1000, math.MaxInt64 - 3} {
			m := newMeasurement(&config{Settings: Settings{Warmup: int(warm), Jobs: int(min(jobs, 1<<40))}}, nil)
			m.measuredJobs = jobs
			for id := int64(0); id < warm+min(jobs, 2000)+5; id++ {
				want := int32(-1)
				switch {
				case id < warm || id-warm >= jobs:
				case jobs > math.MaxInt64/batches:
					want = 0
				default:
					want = int32((id - warm) * batches / jobs)
				}
				if got := m.batchOf(id); got != want {
					t.Fatalf("warm-up %d, %d jobs: arrival %d in batch %d, want %d", warm, jobs, id, got, want)
				}
			}
		}
	}
}
