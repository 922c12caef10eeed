package staleboard

import "testing"

// benchBoard returns the balanced fixed point's board for the benchmark
// by plain iteration from an empty board.
func benchBoard(b *testing.B, m *Map) []float64 {
	p := []float64{1}
	for range 60 {
		r, err := m.Apply(p)
		if err != nil {
			b.Fatal(err)
		}
		p = r.Next
	}
	return p
}

// BenchmarkMap is one map evaluation at k = 5, λ = 0.9, T = 400 from the
// balanced state (target: ≤ 1 ms and no allocation per period; see
// docs/performance.md).
func BenchmarkMap(b *testing.B) {
	m, err := NewMap(&Model{System: System{K: 5, Load: 0.9}, Period: 400})
	if err != nil {
		b.Fatal(err)
	}
	p := benchBoard(b, m)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Apply(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdge is one edge, k = 5, λ = 0.9 (target: ≤ 0.3 s and ≤ 100
// map evaluations).
func BenchmarkEdge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Edge(&System{K: 5, Load: 0.9}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdgeTable is the table of `fluid edge -k 2..10 --load
// 0.8,0.9,0.95`: 27 entries on all cores (target: ≤ 15 s on 2).
func BenchmarkEdgeTable(b *testing.B) {
	var models []System
	for _, load := range []float64{0.8, 0.9, 0.95} {
		for k := 2; k <= 10; k++ {
			models = append(models, System{K: k, Load: load})
		}
	}
	for b.Loop() {
		if _, err := EdgeTable(models, nil); err != nil {
			b.Fatal(err)
		}
	}
}
