package queues

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
)

func benchSolve(b *testing.B, f func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
}

// Round robin, FCFS, H2 SCV 30: two bracketed roots, whatever N.
func BenchmarkRoundRobinFCFS(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveRoundRobin(&RoundRobin{Servers: 100, Load: 0.9, Sizes: h2(30)}, nil)
		return err
	})
}

// Round robin, PS, H2 SCV 30, N = 100: the chain at arrival epochs
// (target: under 1 s).
func BenchmarkRoundRobinPS(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveRoundRobin(&RoundRobin{Servers: 100, Load: 0.9, Discipline: farm.PS, Sizes: h2(30)}, nil)
		return err
	})
}

// The same at N = 10⁴: the negative binomial has as many terms.
func BenchmarkRoundRobinPS10000(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveRoundRobin(&RoundRobin{Servers: 10_000, Load: 0.9, Discipline: farm.PS, Sizes: h2(30)}, nil)
		return err
	})
}

// Least work, M/H2/100 (target: under 1 s).
func BenchmarkLeastWork(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveLeastWork(&LeastWork{Servers: 100, Load: 0.9, Sizes: h2(30)}, nil)
		return err
	})
}

// Least work, M/H2/300, the largest N allowed.
func BenchmarkLeastWork300(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveLeastWork(&LeastWork{Servers: 300, Load: 0.9, Sizes: h2(30)}, nil)
		return err
	})
}

// Least loaded, exponential sizes, N = 100: the occupancy chain.
func BenchmarkJSQ(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveJSQ(&JSQ{Servers: 100, Load: 0.9}, nil)
		return err
	})
}

// Least loaded, exponential sizes, N = 300, the largest N allowed.
func BenchmarkJSQ300(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveJSQ(&JSQ{Servers: 300, Load: 0.9}, nil)
		return err
	})
}

// Least loaded, FCFS, H2 SCV 30, N = 100: one small-job chain per giant
// count.
func BenchmarkJSQFCFSH2(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveJSQ(&JSQ{Servers: 100, Load: 0.9, Sizes: h2(30)}, nil)
		return err
	})
}

// The correlation at lag 500 of an M/H2/1-PS server (SCV 30).
func BenchmarkCorrelationPS(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveCorrelation(&Correlation{Load: 0.9, Discipline: farm.PS, Sizes: h2(30), Lags: []float64{500}}, nil)
		return err
	})
}

// The correlation at lag 500 of an M/H2/1 FCFS server (SCV 30).
func BenchmarkCorrelationFCFS(b *testing.B) {
	benchSolve(b, func() error {
		_, err := SolveCorrelation(&Correlation{Load: 0.9, Sizes: h2(30), Lags: []float64{500}}, nil)
		return err
	})
}
