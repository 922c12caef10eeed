package qbd

import (
	"math/rand/v2"
	"testing"
)

// The M/M/100 queue: 101 one-phase levels and the tail.
func BenchmarkMMc100(b *testing.B) {
	l := mmc(90, 1, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Stationary(l, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The logarithmic reduction of a dense 101-phase QBD (the size of the
// M/H2/100 tail).
func BenchmarkSolve101(b *testing.B) {
	l := randomQBD(rand.New(rand.NewPCG(3, 4)), 101, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(l.Tail, nil); err != nil {
			b.Fatal(err)
		}
	}
}
