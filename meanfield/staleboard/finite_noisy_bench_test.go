package staleboard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fluidlb/fluid/internal/cputime"
	"github.com/fluidlb/fluid/outcome"
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

// BenchmarkNoisyEdge is one finite-N edge by the noisy map (k = 5, λ =
// 0.9, N = 100 and 800, the default horizon and runs, one worker) paired
// with the N = ∞ edge of the same system, each iteration running both
// (cputime.Pair): cpu-ns/op is the finite-N edge's CPU time (its own
// N = ∞ edge included) and per-infinite its ratio to the N = ∞ edge's,
// measured in the same run, so the ratio holds on a loaded machine.
func BenchmarkNoisyEdge(b *testing.B) {
	sys := System{K: 5, Load: 0.9}
	for _, n := range []int{100, 800} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			evals := 0
			var pair cputime.Pair
			for b.Loop() {
				pair.Run(func() {
					s := &FiniteSettings{Method: NoisyMap, Seed: 1}
					s.Workers = 1
					r, err := FiniteEdge(&FiniteModel{System: sys, Servers: n}, s)
					if err != nil {
						b.Fatal(err)
					}
					evals = r.Evaluations
				}, func() {
					if _, err := Edge(&sys, &EdgeSettings{Run: outcome.Run{Workers: 1}}); err != nil {
						b.Fatal(err)
					}
				})
			}
			b.ReportMetric(float64(evals), "evals/op")
			b.ReportMetric(float64(pair.CPU[0].Nanoseconds())/float64(pair.Runs), "cpu-ns/op")
			b.ReportMetric(float64(pair.CPU[1].Nanoseconds())/float64(pair.Runs), "infinite-cpu-ns/op")
			b.ReportMetric(float64(pair.CPU[0])/float64(pair.CPU[1]), "per-infinite")
		})
	}
}
