package staleboard

import (
	"fmt"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// herdBoard returns a board in the spread-start herd at period T (after
// iters periods from spread:0.8T).
func herdBoard(b *testing.B, m *Map, T float64, iters int) []float64 {
	p, err := Board(farm.Start{Kind: farm.Spread, Jobs: int(0.8 * T)})
	if err != nil {
		b.Fatal(err)
	}
	for range iters {
		r, err := m.Apply(p)
		if err != nil {
			b.Fatal(err)
		}
		p = r.Next
	}
	return p
}

// BenchmarkMapHerd is one map evaluation in the herd of a spread start,
// k = 5, λ = 0.9, at T = 1,100, 3,000 and 10,000 (the growth of the
// cost with T).
func BenchmarkMapHerd(b *testing.B) {
	for _, T := range []float64{1100, 3000, 10000} {
		b.Run(fmt.Sprintf("T=%g", T), func(b *testing.B) {
			m, err := NewMap(&Model{System: System{K: 5, Load: 0.9}, Period: T})
			if err != nil {
				b.Fatal(err)
			}
			p := herdBoard(b, m, T, 20)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cputime.Process()
			for b.Loop() {
				if _, err := m.Apply(p); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time: steadier than wall time on a shared machine,
			// for the growth of the cost with T.
			b.ReportMetric(float64((cputime.Process()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
