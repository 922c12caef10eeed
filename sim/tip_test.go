package sim

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// A run of Horizon refresh periods ends at its last refresh, and with
// StopAtTip at its first tip: at k = 5, λ = 0.9, T = 100 (far below the
// edge, T(1−λ)² = 1) every run tips, within a few periods; at T = 600
// (2·T*) no balanced run does.
func TestHorizonAndTip(t *testing.T) {
	base := config{Model: Model{Servers: 50, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.Tally}}, Settings: Settings{Reps: 4, Seed: 3}}
	c := base
	c.Period, c.Horizon, c.StopAtTip = 100, 40, true
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Reps {
		if !r.Tipped || r.TippedAt < 1 || r.TippedAt >= 40 || r.Periods != r.TippedAt || r.Time != float64(r.TippedAt)*100 {
			t.Errorf("T = 100, rep %d: tipped %v at %d after %d periods, time %v", i, r.Tipped, r.TippedAt, r.Periods, r.Time)
		}
	}
	if res.Tipped != 4 {
		t.Errorf("T = 100: %d of 4 tipped", res.Tipped)
	}
	c = base
	c.Period, c.Horizon, c.Series = 600, 6, true
	res, err = run(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Reps {
		if r.Tipped || r.Periods != 6 || r.Time != 3600 || len(r.Boards) != 7 {
			t.Errorf("T = 600, rep %d: tipped %v, %d periods, time %v, %d boards", i, r.Tipped, r.Periods, r.Time, len(r.Boards))
		}
	}
	if res.Sojourn.Mean <= 0 || res.Jobs == 0 {
		t.Errorf("a horizon run measures the jobs that complete: %+v", res.Sojourn)
	}
}

// An explicit initial state is simulated as given, and RecordFinal keeps
// the queue lengths at the end: with no arrivals to speak of (λ tiny) and
// exponential services, a server holding q jobs holds at most q at the
// end.
func TestQueuesAndFinal(t *testing.T) {
	q := []int32{0, 3, 7, 1}
	res, err := run(config{Model: Model{Servers: 4, Load: 1e-9, Period: 0.5, Queues: q}, Settings: Settings{Horizon: 1, RecordFinal: true, Reps: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Reps {
		if len(r.FinalQueues) != 4 {
			t.Fatalf("final queues %v", r.FinalQueues)
		}
		for i, f := range r.FinalQueues {
			if f > q[i] || (q[i] > 0 && f == 0 && q[i] > 5) {
				t.Errorf("server %d: %d at the start, %d at the end", i, q[i], f)
			}
		}
	}
	for _, bad := range []config{
		{Model: Model{Servers: 4, Load: 0.5, Queues: []int32{1, 2}}},
		{Model: Model{Servers: 2, Load: 0.5, Queues: []int32{1, -2}}},
		{Model: Model{Servers: 2, Load: 0.5, Queues: []int32{1, 2}, Start: farm.Start{Kind: farm.Half, Jobs: 3}}},
		{Model: Model{Servers: 2, Load: 0.5}, Settings: Settings{Horizon: 3}},
		{Model: Model{Servers: 2, Load: 0.5, Period: 1}, Settings: Settings{Horizon: 3, Jobs: 10}},
		{Model: Model{Servers: 2, Load: 0.5, Period: 1}, Settings: Settings{StopAtTip: true}},
		{Model: Model{Servers: 2, Load: 0.5, Period: 1}, Settings: Settings{Horizon: -1}},
	} {
		if _, err := run(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The tipping definition (farm.TipWatch) in the runs it must get right: at
// k = 3, λ = 0.8, T = 20 there is no herd (the mean time in system stays
// near random dispatch's 5, "The Cliff Was a Trap Door"), and a board-mean
// threshold of max(0.2·T, λ/(1−λ)) = 4 called every run tipped; best of
// two with a tally at T = 2,000 from a half-loaded start sits in a herd
// whose board mean is only about 0.17·T (334 in the write-up), below
// that threshold's 0.2·T, and must be caught.
func TestTipDefinitionCases(t *testing.T) {
	cases := []struct {
		name string
		c    config
		want int // runs tipped of Reps
	}{
		{"k=3 λ=0.8 T=20, no herd", config{Model: Model{Servers: 100, Load: 0.8, Dispatchers: 3, Policy: farm.Policy{Kind: farm.Tally}, Period: 20},
			Settings: Settings{Horizon: 100, Reps: 4, Seed: 11}}, 0},
		{"best of two with tally, T=2,000, half-loaded", config{Model: Model{Servers: 50, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.TallyJSQd, D: 2}, Period: 2000,
			Start: farm.Start{Kind: farm.Half, Jobs: 200}}, Settings: Settings{Horizon: 4, StopAtTip: true, Reps: 3, Seed: 11}}, 3},
		// Two dispatchers flip a half-loaded farm's imbalance without
		// growing it, and it recovers (the write-up: backlog 0.2·T, every
		// T from 5 to 300): its gap survives the first period only.
		{"k=2, T=300, half-loaded 0.2·T", config{Model: Model{Servers: 100, Load: 0.9, Dispatchers: 2, Policy: farm.Policy{Kind: farm.Tally}, Period: 300,
			Start: farm.Start{Kind: farm.Half, Jobs: 60}}, Settings: Settings{Horizon: 10, Reps: 4, Seed: 11}}, 0},
		{"best of two with tally, T=2,000, balanced", config{Model: Model{Servers: 50, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.TallyJSQd, D: 2}, Period: 2000},
			Settings: Settings{Horizon: 4, Reps: 3, Seed: 11}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := run(c.c)
			if err != nil {
				t.Fatal(err)
			}
			if res.Tipped != c.want {
				t.Errorf("%d of %d runs tipped, want %d (mean time in system %.1f)", res.Tipped, len(res.Reps), c.want, res.Sojourn.Mean)
			}
		})
	}
}

// A push part-way through a run lands at its refresh: at k = 5, λ = 0.9,
// T = 600 (about 2·T*, where the balanced state and the herd coexist), a
// balanced farm of 100 servers hit at refresh 4 by a backlog of 0.1·T on
// half its servers tips — after the push, not before — and one of 0.03·T
// recovers ("The Cliff Was a Trap Door": 0.1·T tipped every run, 0.05·T
// recovered, from a half-loaded start); the series shows the push's jobs
// on the board at the refresh it lands.
func TestPushPartWay(t *testing.T) {
	base := config{Model: Model{Servers: 100, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.Tally}, Period: 600},
		Settings: Settings{Horizon: 14, Reps: 3, Seed: 5, Series: true}}
	cases := []struct {
		push   string
		tipped int
	}{{"half:0.1T@4", 3}, {"half:0.03T@4", 0}, {"hot:3200@4", 0}}
	for _, c := range cases {
		t.Run(c.push, func(t *testing.T) {
			cf := base
			p, err := farm.ParsePush(c.push)
			if err != nil {
				t.Fatal(err)
			}
			cf.Push = p
			res, err := Run(&cf.Model, &cf.Settings)
			if err != nil {
				t.Fatal(err)
			}
			if res.Tipped != c.tipped {
				t.Errorf("%d of 3 tipped, want %d", res.Tipped, c.tipped)
			}
			pushed := res.Model.Push
			for i, r := range res.Reps {
				if r.Tipped && r.TippedAt <= 4 {
					t.Errorf("rep %d tipped at refresh %d, before or at the push", i, r.TippedAt)
				}
				// The board mean jumps by the push's jobs per server (half
				// of 60 = 30 for 0.1·T; 32 for the hot server) against the
				// period's noise of a few jobs.
				jump := r.Boards[4] - r.Boards[3]
				want := float64(pushed.Jobs) * pushed.Frac()
				if pushed.Kind == farm.HotPush {
					want = float64(pushed.Jobs) / 100
				}
				if math.Abs(jump-want) > 5 {
					t.Errorf("rep %d: board mean %v → %v at the push, want a jump of about %v", i, r.Boards[3], r.Boards[4], want)
				}
			}
		})
	}
}
