package ode

import "testing"

// BenchmarkArenstorf integrates one period of the Arenstorf orbit at
// tolerance 1e-10 with a reused Integrator; it reports steps per solve and
// must allocate nothing.
func BenchmarkArenstorf(b *testing.B) {
	it, err := NewIntegrator(Problem{Func: arenstorf}, 4, &Settings{RTol: 1e-10, ATol: 1e-10})
	if err != nil {
		b.Fatal(err)
	}
	y := make([]float64, 4)
	b.ReportAllocs()
	var steps int
	for b.Loop() {
		copy(y, arenstorfY0)
		res, err := it.Solve(y, 0, arenstorfPeriod)
		if err != nil {
			b.Fatal(err)
		}
		steps = res.Stats.Steps
	}
	b.ReportMetric(float64(steps), "steps/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}
