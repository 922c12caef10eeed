package staleboard

import (
	"testing"
	"time"
)

// BenchmarkFixedPoint is the balanced fixed point from the empty board,
// with its cost as a ratio to one map evaluation at the fixed point
// measured in the same run (evals/op counts FixedPoint's evaluations,
// "ratio" its time over one evaluation's): the tally at k = 5, λ = 0.9,
// T = 400, and best of two on the board at T = 2,000, whose support grows
// from about 700 levels to 4,094 during the solve.
func BenchmarkFixedPoint(b *testing.B) {
	for _, c := range []struct {
		name string
		m    Model
	}{
		{"tally/T=400", Model{System: System{K: 5, Load: 0.9}, Period: 400}},
		{"board-jsqd2/T=2000", Model{System: System{K: 5, Load: 0.9, Tally: None, Choices: 2}, Period: 2000}},
	} {
		b.Run(c.name, func(b *testing.B) {
			fp, err := FixedPoint(&c.m, nil)
			if err != nil {
				b.Fatal(err)
			}
			mp, err := NewMap(&c.m)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			const refs = 5
			for range refs {
				if _, err := mp.Apply(fp.Board); err != nil {
					b.Fatal(err)
				}
			}
			ref := time.Since(t0) / refs
			b.ReportAllocs()
			b.ResetTimer()
			evals := 0
			for b.Loop() {
				fp, err := FixedPoint(&c.m, nil)
				if err != nil {
					b.Fatal(err)
				}
				evals = fp.Evaluations
			}
			b.ReportMetric(float64(evals), "evals/op")
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(ref), "ratio")
		})
	}
}
