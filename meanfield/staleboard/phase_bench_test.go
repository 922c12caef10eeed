package staleboard

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// phaseRows are the cost targets of the phase evolution: one period at
// k = 5, λ = 0.9, T = 400 from the exponential balanced fixed point lifted
// with fresh phases (benchBoard), for H2 sizes of SCV 10 under FCFS and
// PS; and the exponential map by the phase path, against the window
// evolution on the same board (the ratio is the price of the general
// path).
var phaseRows = []struct {
	name string
	sz   farm.Sizes
	disc farm.Discipline
}{
	{"exp-by-phase", farm.Sizes{}, farm.FCFS},
	{"fcfs-h2:10", farm.Sizes{Kind: farm.H2, SCV: 10}, farm.FCFS},
	{"ps-h2:10", farm.Sizes{Kind: farm.H2, SCV: 10}, farm.PS},
}

// BenchmarkPhaseMap is one period by the phase evolution for each row.
func BenchmarkPhaseMap(b *testing.B) {
	for _, r := range phaseRows {
		b.Run(r.name, func(b *testing.B) {
			m := phaseMap(5, 0.9, 400, r.sz, r.disc)
			x := m.server.lift(benchBoard(b, newMap(5, 0.9, 400)))
			var res MapResult
			if err := m.applyInto(x, &res); err != nil {
				b.Fatal(err)
			}
			x = append([]float64(nil), res.Next...)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := m.applyInto(x, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEdgePhase is one edge search at k = 5, λ = 0.9 for H2 sizes
// under PS (target: under 5 s), beside the exponential edge measured in
// the same run (the reference of the ratio). With SCV 10 the balanced
// fixed point stays stable down to the floor T(1−λ)² = 0.05: the search
// follows it over the whole range and reports no edge.
func BenchmarkEdgePhase(b *testing.B) {
	for _, r := range []struct {
		name string
		sz   farm.Sizes
		disc farm.Discipline
	}{
		{"exp", farm.Sizes{}, farm.FCFS},
		{"ps-h2:4", farm.Sizes{Kind: farm.H2, SCV: 4}, farm.PS},
		{"ps-h2:10", farm.Sizes{Kind: farm.H2, SCV: 10}, farm.PS},
	} {
		b.Run(r.name, func(b *testing.B) {
			var evals int
			for b.Loop() {
				res, err := Edge(&System{K: 5, Load: 0.9, Sizes: r.sz, Discipline: r.disc}, nil)
				if err != nil {
					b.Fatal(err)
				}
				evals = res.Evaluations
			}
			b.ReportMetric(float64(evals), "evals/op")
		})
	}
}
