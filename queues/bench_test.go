package queues

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// benchSolve benchmarks f, reporting its CPU time per operation
// (cpu-ms/op) beside the wall time: on a machine shared with other work
// the wall time is inflated, the CPU time is not (the solvers run on one
// goroutine).
func benchSolve(b *testing.B, f func() error) {
	b.ReportAllocs()
	c0 := cputime.Process()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Process()-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
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

// The small-job chain of JSQ FCFS-H2 (n = 55 servers, the median count
// without a giant at N = 100, SCV 30) by its sparse solve and by the
// dense level reduction it replaced, in the same run: ns/op of each and
// the ratio.
func BenchmarkSmallJobs(b *testing.B) {
	const n, aIdle, aBusy, mu = 55, 88.5, 90, 1.967
	var ws smallJobsWork
	b.Run("sparse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := solveSmallJobs(n, aIdle, aBusy, mu, &ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dense", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := solveOccupancy(n, aIdle, aBusy, mu, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The crossing of least loaded on a board with round robin (N = 100,
// exponential sizes): about ten attractors of the period map.
func BenchmarkCrossingLeastLoaded(b *testing.B) {
	f := Farm{Servers: 100, Load: 0.9}
	benchSolve(b, func() error {
		ll, err := NewPolicyCurve(farm.Policy{Kind: farm.BoardJSQ}, f, nil)
		if err != nil {
			return err
		}
		rr, err := NewPolicyCurve(farm.Policy{Kind: farm.RoundRobin}, f, nil)
		if err != nil {
			return err
		}
		_, err = Crossing(ll.Curve(), rr.Curve(), 0.25, 50, &CrossingSettings{Grid: 10, XTol: 1e-3})
		return err
	})
}
