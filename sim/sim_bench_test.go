package sim

import (
	"testing"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// benchRep runs one replication of c per iteration and reports measured
// jobs per second and events per second on one goroutine.
func benchRep(b *testing.B, c config) {
	c, err := c.normalized()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var jobs, events int64
	for i := 0; b.Loop(); i++ {
		r := runRep(c, i, nil)
		jobs += r.Jobs + int64(c.Warmup)
		events += r.Events
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(jobs)/s, "jobs/s")
	b.ReportMetric(float64(events)/s, "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// Issue 5's targets: best of two, FCFS, N = 100, λ = 0.9 at ≥ 5 million
// jobs/s on one core; the tally policy at N = 1,600 at ≥ 3 million.
func BenchmarkBestOfTwo(b *testing.B) {
	benchRep(b, config{Model: Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2}}, Settings: Settings{Jobs: 1_000_000, Warmup: -1}})
}

func BenchmarkTally1600(b *testing.B) {
	benchRep(b, config{Model: Model{Servers: 1600, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.Tally}, Period: 400}, Settings: Settings{Jobs: 1_000_000, Warmup: -1}})
}

func BenchmarkRandomPSH2(b *testing.B) {
	benchRep(b, config{Model: Model{Servers: 100, Load: 0.9, Discipline: farm.PS, Sizes: farm.Sizes{Kind: farm.H2, SCV: 30}}, Settings: Settings{Jobs: 1_000_000, Warmup: -1}})
}

func BenchmarkJIQQueueing(b *testing.B) {
	benchRep(b, config{Model: Model{Servers: 1000, Load: 0.9, Alpha: []float64{0.6, 0.2, 0.2}, Policy: farm.Policy{Kind: farm.JIQQueueing}, Exchange: 1}, Settings: Settings{Jobs: 1_000_000, Warmup: -1}})
}

// BenchmarkMarkovFastPath runs, alternately in one benchmark so that all
// three see the same machine load, the minimal best-of-two loop, the
// general engine (disableMarkov) and the Markovian fast path on the same
// model (best of two with replacement, FCFS, exponential sizes, N = 100,
// λ = 0.9, 10⁶ jobs), and reports the ratios of their times per event:
// general/fast (the fast path's target is ≥ 2) and fast/minimal. Each CPU
// time (not wall time: the machine is shared) is per event, not per job:
// the three simulate the same chain, with the same events per job on
// average.
func BenchmarkMarkovFastPath(b *testing.B) {
	c, err := bestOfTwoBench.normalized()
	if err != nil {
		b.Fatal(err)
	}
	var cpu [3]time.Duration
	var ev [3]int64
	timed := func(k int, f func() int64) {
		t0 := cputime.Process()
		ev[k] += f()
		cpu[k] += cputime.Process() - t0
	}
	for i := 0; b.Loop(); i++ {
		timed(0, func() int64 { _, e := minimalBestOfTwo(c.Servers, c.Load, 0, c.Jobs, uint64(i+1)); return e })
		timed(1, func() int64 {
			disableMarkov = true
			defer func() { disableMarkov = false }()
			return runRep(c, i, nil).Events
		})
		timed(2, func() int64 { return runRep(c, i, nil).Events })
	}
	per := func(k int) float64 { return cpu[k].Seconds() / float64(ev[k]) }
	b.ReportMetric(per(0)*1e9, "ns/event-minimal")
	b.ReportMetric(per(1)*1e9, "ns/event-general")
	b.ReportMetric(per(2)*1e9, "ns/event-fast")
	b.ReportMetric(per(1)/per(2), "general/fast")
	b.ReportMetric(per(2)/per(0), "fast/minimal")
}

// BenchmarkRandomExp compares the general engine and the fast path on
// random dispatch with exponential sizes (N = 100, λ = 0.9), FCFS and
// PS, alternately: the model of the default runs.
func BenchmarkRandomExp(b *testing.B) {
	for _, d := range []farm.Discipline{farm.FCFS, farm.PS} {
		b.Run(d.String(), func(b *testing.B) {
			c, err := config{Model: Model{Servers: 100, Load: 0.9, Discipline: d}, Settings: Settings{Jobs: 1_000_000, Transient: true}}.normalized()
			if err != nil {
				b.Fatal(err)
			}
			var cpu [2]time.Duration
			var ev [2]int64
			for i := 0; b.Loop(); i++ {
				for k := range 2 {
					disableMarkov = k == 0
					t0 := cputime.Process()
					ev[k] += runRep(c, i, nil).Events
					cpu[k] += cputime.Process() - t0
				}
				disableMarkov = false
			}
			g, f := cpu[0].Seconds()/float64(ev[0]), cpu[1].Seconds()/float64(ev[1])
			b.ReportMetric(g*1e9, "ns/event-general")
			b.ReportMetric(f*1e9, "ns/event-fast")
			b.ReportMetric(g/f, "general/fast")
		})
	}
}
