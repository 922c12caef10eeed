package jackson

import (
	"testing"
	"time"

	"github.com/fluidlb/fluid/internal/cputime"
)

// benchJIQ is the JIQ model of the benchmarks: N = 10⁵ servers, R = 10
// dispatchers, λ = 0.9.
func benchJIQ() *JIQ {
	return &JIQ{Servers: 100000, Load: 0.9, Alpha: []float64{0.19, 0.15, 0.13, 0.11, 0.1, 0.09, 0.07, 0.06, 0.05, 0.05}}
}

// BenchmarkJIQ: N = 10⁵ servers, R = 10 dispatchers, one exact blocking
// probability (target: under 5 ms on one core).
func BenchmarkJIQ(b *testing.B) {
	m := benchJIQ()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJIQReference: the same model by the previous implementation
// (the general convolution, one chain per empty pool: O(N·R²)).
func BenchmarkJIQReference(b *testing.B) {
	m := benchJIQ()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := solveReference(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJIQSpeedup alternates Solve and the reference on the same
// model, so that both see the same machine load, and reports the wall time
// (ms/solve, ms/reference) and the CPU time (cpu-ms/…) of each, and their
// ratios (speedup, cpu-speedup). On a shared machine the CPU times are the
// steadier measure of the work.
func BenchmarkJIQSpeedup(b *testing.B) {
	m := benchJIQ()
	var p cputime.Pair
	for b.Loop() {
		p.Run(func() {
			if _, err := Solve(m); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if _, err := solveReference(m); err != nil {
				b.Fatal(err)
			}
		})
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(p.Runs) / 1e6 }
	b.ReportMetric(ms(p.Wall[0]), "ms/solve")
	b.ReportMetric(ms(p.Wall[1]), "ms/reference")
	b.ReportMetric(float64(p.Wall[1])/float64(p.Wall[0]), "speedup")
	b.ReportMetric(ms(p.CPU[0]), "cpu-ms/solve")
	b.ReportMetric(ms(p.CPU[1]), "cpu-ms/reference")
	if p.CPU[0] > 0 {
		b.ReportMetric(float64(p.CPU[1])/float64(p.CPU[0]), "cpu-speedup")
	}
}

// BenchmarkJIQManyDispatchers: N = 10⁵, R = 1,000 (N·R = 10⁸, a hundredth
// of MaxWork; the reference would take minutes).
func BenchmarkJIQManyDispatchers(b *testing.B) {
	const R = 1000
	alpha := make([]float64, R)
	for i := range alpha {
		alpha[i] = (1 + 0.5*float64(1-2*(i%2))) / R
	}
	m := &JIQ{Servers: 100000, Load: 0.9, Alpha: alpha}
	c0 := cputime.Process()
	for b.Loop() {
		if _, err := Solve(m); err != nil {
			b.Fatal(err)
		}
	}
	work := float64(b.N) * float64(m.Servers) * R
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/work, "ns/(N·R)")
	b.ReportMetric(float64((cputime.Process()-c0).Nanoseconds())/work, "cpu-ns/(N·R)")
}

// BenchmarkRepairmanMVA: exact MVA for a two-station network, N = 10⁵.
func BenchmarkRepairmanMVA(b *testing.B) {
	nw := &Network{
		Stations: []Station{{Kind: Delay, Rate: 0.02}, {Kind: Queue, Rate: 1}},
		Routing:  [][]float64{{0, 1}, {1, 0}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nw.MVA(100000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvolution: the normalising constants alone for the same
// network, N = 10⁵.
func BenchmarkConvolution(b *testing.B) {
	nw := &Network{
		Stations: []Station{{Kind: Delay, Rate: 0.02}, {Kind: Queue, Rate: 1}},
		Routing:  [][]float64{{0, 1}, {1, 0}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nw.Solve(100000); err != nil {
			b.Fatal(err)
		}
	}
}
