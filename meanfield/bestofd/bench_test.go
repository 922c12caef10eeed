package bestofd

import (
	"testing"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// Each best-of-d fixed point: target under 100 ms.
func BenchmarkFixedPointExp(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFixedPointPSH2(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2(30)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFixedPointFCFSH2(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.FCFS, Sizes: h2(30)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The periodic-update attractor (one map evaluation is a uniformised
// evolution of every board class over T).
func BenchmarkPeriodicUpdateExp(b *testing.B) {
	for b.Loop() {
		if _, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, &AttractorSettings{MaxIter: 500}); err != nil {
			b.Fatal(err)
		}
	}
}

// The periodic-update attractor with PS servers and H2 sizes (best of
// two, T = 100, λ = 0.9): SCV 4 (target: under 5 s) and SCV 30, and FCFS
// with SCV 30. Each reports its CPU time (cpu-s/op) beside the wall time.
func BenchmarkPeriodicUpdatePSH2SCV4(b *testing.B) {
	benchAttractor(b, Attractor, &PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(4)})
}

func BenchmarkPeriodicUpdatePSH2SCV30(b *testing.B) {
	benchAttractor(b, Attractor, &PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(30)})
}

func BenchmarkPeriodicUpdateFCFSH2SCV30(b *testing.B) {
	benchAttractor(b, Attractor, &PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.FCFS, Sizes: h2(30)})
}

func benchAttractor(b *testing.B, solve func(*PeriodicUpdate, *AttractorSettings) (*AttractorResult, error), m *PeriodicUpdate) {
	c0 := cputime.Process()
	for b.Loop() {
		if _, err := solve(m, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Process()-c0).Nanoseconds())/float64(b.N)/1e9, "cpu-s/op")
}

// BenchmarkPeriodicUpdateSpeedup runs Attractor and the previous
// implementation alternately on the same model, so that both see the same
// machine load, and reports the wall and CPU seconds of each and their
// ratios. The reference takes about 1 s (exp), 10 s (psh2-30), 13 s
// (fcfsh2-30) and 75–100 s (psh2-4) per run: select one with -bench, e.g.
// -bench 'Speedup/psh2-4' -benchtime 1x.
func BenchmarkPeriodicUpdateSpeedup(b *testing.B) {
	for _, c := range []struct {
		name string
		m    PeriodicUpdate
	}{
		{"exp", PeriodicUpdate{D: 2, Load: 0.9, Period: 100}},
		{"psh2-30", PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(30)}},
		{"fcfsh2-30", PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.FCFS, Sizes: h2(30)}},
		{"psh2-4", PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(4)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var p cputime.Pair
			for b.Loop() {
				p.Run(func() {
					if _, err := Attractor(&c.m, nil); err != nil {
						b.Fatal(err)
					}
				}, func() {
					if _, err := attractorReference(&c.m, nil); err != nil {
						b.Fatal(err)
					}
				})
			}
			sec := func(d time.Duration) float64 { return d.Seconds() / float64(p.Runs) }
			b.ReportMetric(sec(p.Wall[0]), "s/new")
			b.ReportMetric(sec(p.Wall[1]), "s/reference")
			b.ReportMetric(float64(p.Wall[1])/float64(p.Wall[0]), "speedup")
			b.ReportMetric(sec(p.CPU[0]), "cpu-s/new")
			b.ReportMetric(sec(p.CPU[1]), "cpu-s/reference")
			if p.CPU[0] > 0 {
				b.ReportMetric(float64(p.CPU[1])/float64(p.CPU[0]), "cpu-speedup")
			}
		})
	}
}

// Least loaded on a board refreshed every T = 5 with PS servers and H2
// sizes of SCV 30 (a fixed point after about 50 periods; the idle
// classes evolve as one vector).
func BenchmarkPeriodicUpdateLeastLoaded(b *testing.B) {
	benchAttractor(b, Attractor, &PeriodicUpdate{D: 0, Load: 0.9, Period: 5, Discipline: farm.PS, Sizes: h2(30)})
}

// One period map near the attractor (30 periods from the empty system),
// best of two at λ = 0.9, T = 100: the time per state update
// (ns/update, and cpu-ns/update in CPU time, which a loaded machine
// does not inflate), the unit of EstimateWork's budget (updateSeconds),
// on one worker.
func BenchmarkPeriodMap(b *testing.B) {
	for _, c := range []struct {
		name string
		m    PeriodicUpdate
		ch   func() *serverChain
	}{
		{"exp", PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, func() *serverChain { return newServerChain(farm.FCFS, 1, 212) }},
		{"fcfsh2-30", PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.FCFS, Sizes: h2(30)}, func() *serverChain { return newServerChain(farm.FCFS, 30, 212) }},
		{"psh2-30", PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(30)}, func() *serverChain { return newPSLevels(30, 212, 212) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ch := c.ch()
			pm := newPeriodMap(&c.m, ch, 1)
			x, next := make([]float64, ch.n), make([]float64, ch.n)
			x[0] = 1
			for range 30 {
				if err := pm.apply(next, x); err != nil {
					b.Fatal(err)
				}
				x, next = next, x
			}
			pm.totalUpdates = 0
			b.ResetTimer()
			c0 := cputime.Process()
			for b.Loop() {
				if err := pm.apply(next, x); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cputime.Process() - c0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pm.totalUpdates), "ns/update")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(pm.totalUpdates), "cpu-ns/update")
			b.ReportMetric(float64(pm.totalUpdates)/float64(b.N), "updates/op")
		})
	}
}
