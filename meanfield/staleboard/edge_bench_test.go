package staleboard

import "testing"

// BenchmarkEdgeMethods compares the two ways of locating the edge of
// k = 5, λ = 0.9 in one run: the root (the default) and the search
// (EdgeSettings.Search), with their map evaluations per edge.
func BenchmarkEdgeMethods(b *testing.B) {
	for _, c := range []struct {
		name   string
		search bool
	}{{"root", false}, {"search", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			evals := 0
			for b.Loop() {
				r, err := Edge(&System{K: 5, Load: 0.9}, &EdgeSettings{Search: c.search})
				if err != nil {
					b.Fatal(err)
				}
				evals = r.Evaluations
			}
			b.ReportMetric(float64(evals), "evals/op")
		})
	}
}
