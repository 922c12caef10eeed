package meanfield

import "testing"

// balancedBoard returns the balanced fixed point's board for the benchmark
// by plain iteration from an empty board.
func benchBoard(b *testing.B, m *RefreshMap) []float64 {
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

// BenchmarkRefreshMap is one map evaluation at k = 5, λ = 0.9, T = 400
// from the balanced state (target: under 5 ms).
func BenchmarkRefreshMap(b *testing.B) {
	m, err := NewRefreshMap(5, 0.9, 400)
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

// BenchmarkEdge is one edge search, k = 5, λ = 0.9 (target: under 2 s).
func BenchmarkEdge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Edge(5, 0.9, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdgeTable is the default table of `fluid edge -k 2..10 --load
// 0.8,0.9,0.95`: 27 entries on all cores (target: under 2 minutes on 2).
func BenchmarkEdgeTable(b *testing.B) {
	ks := []int{2, 3, 4, 5, 6, 7, 8, 9, 10}
	for b.Loop() {
		if _, err := EdgeTable(ks, []float64{0.8, 0.9, 0.95}, nil, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}
