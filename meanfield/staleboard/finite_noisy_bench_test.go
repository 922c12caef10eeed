package staleboard

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkNoisyPeriod is the noisy map's hot path: one refresh period
// of a run (a map evaluation on a board it has not seen, the Gaussian
// and Poisson draws, the tip watch), at k = 5, λ = 0.9, N = 800 and
// T(1−λ)² = 2.96 (the simulated edge of N = 800), against the map
// evaluation alone on the balanced board, measured in the same run: the
// ratio says what the noise costs beyond the map.
func BenchmarkNoisyPeriod(b *testing.B) {
	m := &Model{System: System{K: 5, Load: 0.9}, Period: 296}
	nm, err := newNoisyMap(m, nil, 800, DefaultRareServers)
	if err != nil || nm == nil {
		b.Fatal(err)
	}
	b.Run("noisy", func(b *testing.B) {
		b.ReportAllocs()
		rng := rand.New(rand.NewPCG(1, 1))
		periods := 0
		for b.Loop() {
			_, watched, _, err := nm.run(rng, 10)
			if err != nil {
				b.Fatal(err)
			}
			periods += watched
		}
		b.ReportMetric(float64(periods)/float64(b.N), "periods/op")
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		mp := nm.mp.boardOnly()
		var res MapResult
		for b.Loop() {
			for range 10 {
				if err := mp.applyInto(nm.x, &res); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
