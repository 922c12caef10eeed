package sim

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
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
