package staleboard

import (
	"math"
	"runtime"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// TestPhaseMapProcs checks that the phase map's death chains, computed in
// a helper goroutine beside the passes, give the same bits whatever
// GOMAXPROCS, and the same bits as the chains computed in line by
// deathChain itself (the arithmetic is unchanged, so the tolerance is
// zero). Three periods at k = 5, λ = 0.9, T = 60 under PS with H2 sizes
// from an empty farm: a few milliseconds.
func TestPhaseMapProcs(t *testing.T) {
	run := func(procs int) []MapResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m := phaseMap(5, 0.9, 60, farm.Sizes{Kind: farm.H2, SCV: 4}, farm.PS)
		x := m.server.lift([]float64{1})
		var out []MapResult
		for range 3 {
			var res MapResult
			if err := m.applyInto(x, &res); err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
			x = res.Next
		}
		return out
	}
	one, two := run(1), run(2)
	for i := range one {
		a, b := one[i], two[i]
		if len(a.Next) != len(b.Next) || a.MeanQueue != b.MeanQueue || a.Lost != b.Lost {
			t.Fatalf("period %d: GOMAXPROCS 1 and 2 differ: %d/%d states, mean queue %v/%v, lost %v/%v",
				i, len(a.Next), len(b.Next), a.MeanQueue, b.MeanQueue, a.Lost, b.Lost)
		}
		for j := range a.Next {
			if math.Float64bits(a.Next[j]) != math.Float64bits(b.Next[j]) {
				t.Fatalf("period %d, state %d: %v under GOMAXPROCS 1, %v under 2", i, j, a.Next[j], b.Next[j])
			}
		}
	}
	// The helper's chains against deathChain on the map itself.
	m := phaseMap(5, 0.9, 60, farm.Sizes{Kind: farm.H2, SCV: 4}, farm.PS)
	x := one[1].Next
	jobs := []deathJob{{0, 0, 0}, {1, 1, 3.5}, {2, 2, 9}, {3, 40, 60}}
	h := m.helper()
	done := make(chan int, len(jobs))
	h.run(x, jobs, done)
	for i, j := range jobs {
		law, integ, lost := m.deathChain(x, j.from, j.to, j.t)
		if len(law) != len(h.laws[i]) || integ != h.integ[i] || lost != h.lost[i] {
			t.Fatalf("chain %d: helper %d states, integral %v, lost %v; in line %d, %v, %v",
				i, len(h.laws[i]), h.integ[i], h.lost[i], len(law), integ, lost)
		}
		for s := range law {
			if math.Float64bits(law[s]) != math.Float64bits(h.laws[i][s]) {
				t.Fatalf("chain %d, state %d: helper %v, in line %v", i, s, h.laws[i][s], law[s])
			}
		}
	}
}
