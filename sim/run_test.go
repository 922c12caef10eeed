package sim

import (
	"context"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
)

// A run is a pure function of its configuration: the same numbers on one
// worker and on four, and different numbers for another seed.
func TestDeterministic(t *testing.T) {
	c := config{Model: Model{Servers: 50, Load: 0.8, Dispatchers: 3, Policy: farm.Policy{Kind: farm.Tally}, Period: 30}, Settings: Settings{Jobs: 20_000, Reps: 4, Seed: 7, Series: true}}
	c.Workers = 1
	a := mustRun(t, c)
	c.Workers = 4
	b := mustRun(t, c)
	for i := range a.Reps {
		ra, rb := a.Reps[i], b.Reps[i]
		if ra.Sojourn != rb.Sojourn || ra.Events != rb.Events || len(ra.Boards) != len(rb.Boards) {
			t.Fatalf("rep %d differs between 1 and 4 workers", i)
		}
	}
	if a.Sojourn != b.Sojourn {
		t.Errorf("estimates differ: %+v vs %+v", a.Sojourn, b.Sojourn)
	}
	c.Seed = 8
	if d := mustRun(t, c); d.Sojourn.Mean == a.Sojourn.Mean {
		t.Error("another seed gave the same mean")
	}
}

// Every policy runs, conserves jobs, and measures exactly the jobs asked.
func TestEveryPolicyRuns(t *testing.T) {
	for _, p := range []string{"random", "rr", "jsq", "jsqd:2", "least-work", "board-jsq", "board-jsqd:3", "tally",
		"shared-tally", "partitioned", "tally-jsqd:2", "jiq-blocking", "jiq-queueing"} {
		for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
			pol, err := farm.ParsePolicy(p)
			if err != nil {
				t.Fatal(err)
			}
			c := config{Model: Model{Servers: 30, Load: 0.7, Dispatchers: 3, Policy: pol, Discipline: d, Sizes: farm.Sizes{Kind: farm.H2, SCV: 4}, Period: 10, Start: farm.Start{Kind: farm.Spread, Jobs: 4}}, Settings: Settings{Jobs: 5000, Reps: 2, Seed: 1, CorrelationAge: 5, Transient: true}}
			if !pol.UsesBoard() {
				c.Period = 0
			}
			if pol.JIQ() {
				c.Exchange = 0.5
			}
			r := mustRun(t, c)
			for _, rep := range r.Reps {
				if rep.Jobs != 5000 {
					t.Errorf("%s: %d jobs measured", p, rep.Jobs)
				}
			}
			if !(r.Sojourn.Mean > 0) || math.IsNaN(r.Sojourn.CI95) || r.Blocking.Mean < 0 || r.Blocking.Mean >= 1 {
				t.Errorf("%s %v: %+v", p, d, r.Sojourn)
			}
			if (pol.Kind == farm.JIQBlocking) != (r.Blocking.Mean > 0) {
				t.Errorf("%s: blocking %v", p, r.Blocking.Mean)
			}
			if r.Correlation == nil || math.Abs(r.Correlation.Mean) > 1 {
				t.Errorf("%s: correlation %+v", p, r.Correlation)
			}
		}
	}
}

// No allocation per event: the only allocations after set-up are a queue
// doubling when it reaches a record length and the board series growing,
// both logarithmic in the run length, so nine times more events (≈ 360,000)
// may cost at most a few hundred more allocations (< 1e-3 per event; one
// per event would be 360,000).
func TestNoAllocationPerEvent(t *testing.T) {
	for _, p := range []farm.Policy{{Kind: farm.JSQd, D: 2}, {Kind: farm.Tally}, {Kind: farm.JIQQueueing}} {
		c, err := config{Model: Model{Servers: 100, Load: 0.9, Dispatchers: 2, Policy: p, Period: 50, Discipline: farm.PS}, Settings: Settings{Jobs: 20_000, Warmup: -1, Reps: 1}}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		small := testing.AllocsPerRun(2, func() { runRep(c, 0, nil) })
		c.Jobs *= 10
		large := testing.AllocsPerRun(2, func() { runRep(c, 0, nil) })
		if large-small > 1e-3*360_000 {
			t.Errorf("%v: %v allocations for 20,000 jobs, %v for 200,000 (%.2g events)", p, small, large, 2e5*2.0)
		}
	}
}

// A cancelled Context: before the run, nothing runs (Status Interrupted,
// no replication); during replication 3 of 8 on one worker, the run ends
// with replications 0–2, each identical to the same replication run to the
// end, and says it was interrupted.
func TestCancel(t *testing.T) {
	c := config{Model: Model{Servers: 20, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}}, Settings: Settings{Jobs: 200_000, Reps: 8, Seed: 3, Transient: true, Run: outcome.Run{Workers: 1}}}
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	c0 := c
	c0.Context = done
	if res, err := run(c0); err != nil || res.Status != outcome.Interrupted || len(res.Reps) != 0 {
		t.Fatalf("cancelled before the start: %v, %v; want Interrupted with no replication", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	want := int64(ExpectedArrivals(&c.Model, &c.Settings))
	c1 := c
	c1.Context = ctx
	c1.Progress = func(done, total int64, _ string) { // 3 calls per replication of 220,000 arrivals
		if calls++; calls == 10 {
			cancel()
		}
		if done != int64(calls)*0x10000 || total != want || total < 8*200_000 {
			t.Errorf("progress %d of %d at call %d, want %d of %d", done, total, calls, int64(calls)*0x10000, want)
		}
	}
	res, err := run(c1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != outcome.Interrupted || len(res.Reps) != 3 {
		t.Fatalf("status %v, %d replications; want interrupted with 3 kept", res.Status, len(res.Reps))
	}
	n, err := c.normalized()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Reps {
		if want := runRep(n, i, nil); r.Sojourn != want.Sojourn || r.Events != want.Events {
			t.Errorf("replication %d: sojourn %v, %d events; run to the end %v, %d", i, r.Sojourn, r.Events, want.Sojourn, want.Events)
		}
	}
	if res.Sojourn.Samples != 3 {
		t.Errorf("estimate from %d samples, want 3", res.Sojourn.Samples)
	}
}

// run is Run on a config's model and settings.
func run(c config) (*Result, error) { return Run(&c.Model, &c.Settings) }

// A sequential run cancelled mid-way keeps what it observed: status
// Interrupted, the replications that had started (two at once on two
// workers: the first stretch of each is 3.8 million jobs, the planner's
// minimum), and the estimates of the observations so far.
func TestCancelSequential(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := config{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.H2, SCV: 10}}, Settings: Settings{Seed: 3}}
	c.Context, c.Workers = ctx, 2
	calls := 0
	c.Progress = func(done, total int64, _ string) {
		if calls++; calls == 40 { // 40 × 65,536 arrivals: past the first analysis (8 × 10,240 jobs)
			cancel()
		}
	}
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != outcome.Interrupted || len(res.Reps) != 2 || res.Jobs < 1_000_000 || res.Sojourn.Mean <= 0 {
		t.Errorf("status %v, %d replications, %d jobs, %+v", res.Status, len(res.Reps), res.Jobs, res.Sojourn)
	}
}
