package staleboard

import "testing"

// BenchmarkRefined is the refined mean of the partitioned farm's part
// (k = 1, λ = 0.9, T = 100, N = 20: 95 passes), against the balanced fixed
// point's solve alone, measured in the same run: the ratio says what the
// correction costs beyond the fixed point (the noise's two evolutions a
// pass, the bridge's two a pass, four a mode of C, 26 for the stretch).
func BenchmarkRefined(b *testing.B) {
	m := &Model{System: System{K: 1, Load: 0.9}, Period: 100}
	b.Run("refined", func(b *testing.B) {
		evals := 0
		for b.Loop() {
			r, err := Refined(m, &RefinedSettings{Servers: 20})
			if err != nil {
				b.Fatal(err)
			}
			evals += r.Evaluations
		}
		b.ReportMetric(float64(evals)/float64(b.N), "evals/op")
	})
	b.Run("fixedpoint", func(b *testing.B) {
		for b.Loop() {
			if _, err := FixedPoint(m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
