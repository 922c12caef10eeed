package bestofd

import (
	"testing"

	"github.com/fluidlb/fluid/spec"
)

// Each best-of-d fixed point: target under 100 ms.
func BenchmarkFixedPointExp(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFixedPointPSH2(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: spec.PS, Sizes: h2(30)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFixedPointFCFSH2(b *testing.B) {
	for b.Loop() {
		if _, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: spec.FCFS, Sizes: h2(30)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The periodic-update attractor (one map evaluation is a uniformised
// evolution of every board class over T).
func BenchmarkPeriodicUpdateExp(b *testing.B) {
	for b.Loop() {
		if _, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, &AttractorSettings{MaxIter: 500}); err != nil {
			b.Fatal(err)
		}
	}
}
