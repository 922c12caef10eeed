package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// A run is a pure function of its configuration: the same numbers on one
// worker and on four, and different numbers for another seed.
func TestDeterministic(t *testing.T) {
	c := Config{Servers: 50, Load: 0.8, Dispatchers: 3, Policy: farm.Policy{Kind: farm.Tally}, Period: 30, Jobs: 20_000, Reps: 4, Seed: 7, Series: true}
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
			c := Config{Servers: 30, Load: 0.7, Dispatchers: 3, Policy: pol, Discipline: d, Sizes: farm.Sizes{Kind: farm.H2, SCV: 4},
				Period: 10, Jobs: 5000, Reps: 2, Seed: 1, Start: farm.Start{Kind: farm.Spread, Jobs: 4}, CorrelationAge: 5}
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
		c, err := Config{Servers: 100, Load: 0.9, Dispatchers: 2, Policy: p, Period: 50, Discipline: farm.PS, Jobs: 20_000, Warmup: -1, Reps: 1}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		small := testing.AllocsPerRun(2, func() { runRep(c, 0) })
		c.Jobs *= 10
		large := testing.AllocsPerRun(2, func() { runRep(c, 0) })
		if large-small > 1e-3*360_000 {
			t.Errorf("%v: %v allocations for 20,000 jobs, %v for 200,000 (%.2g events)", p, small, large, 2e5*2.0)
		}
	}
}

// Config.Stop: closed before the run, nothing runs (ErrStopped); closed
// during replication 3 of 8 on one worker, the run ends with replications
// 0–2, each identical to the same replication run to the end, and says
// it was interrupted.
func TestStop(t *testing.T) {
	c := Config{Servers: 20, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}, Jobs: 200_000, Reps: 8, Workers: 1, Seed: 3}
	closed := make(chan struct{})
	close(closed)
	c0 := c
	c0.Stop = closed
	if _, err := Run(c0); !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped before the start: %v, want ErrStopped", err)
	}
	stop := make(chan struct{})
	calls := 0
	c1 := c
	c1.Stop = stop
	c1.Progress = func(int64) { // 3 calls per replication of 220,000 arrivals
		if calls++; calls == 10 {
			close(stop)
		}
	}
	res, err := Run(c1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Status() != "interrupted" || len(res.Reps) != 3 {
		t.Fatalf("interrupted %v, status %s, %d replications; want 3 kept", res.Interrupted, res.Status(), len(res.Reps))
	}
	n, err := c.normalized()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Reps {
		if want := runRep(n, i); r.Sojourn != want.Sojourn || r.Events != want.Events {
			t.Errorf("replication %d: sojourn %v, %d events; run to the end %v, %d", i, r.Sojourn, r.Events, want.Sojourn, want.Events)
		}
	}
	if res.Sojourn.Samples != 3 {
		t.Errorf("estimate from %d samples, want 3", res.Sojourn.Samples)
	}
}
