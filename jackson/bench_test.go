package jackson

import "testing"

// BenchmarkJIQ: N = 10⁵ servers, R = 10 dispatchers, one exact blocking
// probability (target: under 50 ms on one core).
func BenchmarkJIQ(b *testing.B) {
	alpha := []float64{0.19, 0.15, 0.13, 0.11, 0.1, 0.09, 0.07, 0.06, 0.05, 0.05}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(&JIQ{Servers: 100000, Load: 0.9, Alpha: alpha, Beta: nil}, nil); err != nil {
			b.Fatal(err)
		}
	}
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
