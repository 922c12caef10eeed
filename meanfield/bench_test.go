package meanfield

import "testing"

// BenchmarkJIQQueueingTrajectory is the reference run: one queueing
// trajectory, R = 3, i_max = 100, t ∈ [0, 50], rtol 1e-8, from empty.
func BenchmarkJIQQueueingTrajectory(b *testing.B) {
	m := &JIQ{Scenario: Queueing, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}, IMax: 100}
	s := &TrajectorySettings{RTol: 1e-8, ATol: 1e-10}
	b.ReportAllocs()
	var steps int
	for b.Loop() {
		res, err := m.Trajectory(nil, 50, s)
		if err != nil {
			b.Fatal(err)
		}
		steps = res.Stats.Steps
	}
	b.ReportMetric(float64(steps), "steps/op")
}

// BenchmarkJIQLimitQueueing: the closed-form limit with its stability
// analysis (a dense eigenproblem of size ≈ IMax).
func BenchmarkJIQLimitQueueing(b *testing.B) {
	m := &JIQ{Scenario: Queueing, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Limit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJIQSettleBlocking: the long-time limit of the blocking ODE.
func BenchmarkJIQSettleBlocking(b *testing.B) {
	m := &JIQ{Scenario: Blocking, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}, Exchange: 0.5}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Settle(nil, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 8's target: each JSQ(d) fixed point under 100 ms.
func BenchmarkJSQdExp(b *testing.B) {
	for b.Loop() {
		if _, err := (&JSQd{D: 2, Load: 0.9}).FixedPoint(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSQdPSH2(b *testing.B) {
	for b.Loop() {
		if _, err := (&JSQd{D: 2, Load: 0.9, Discipline: PS, SCV: 30}).FixedPoint(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSQdFCFSH2(b *testing.B) {
	for b.Loop() {
		if _, err := (&JSQd{D: 2, Load: 0.9, Discipline: FCFS, SCV: 30}).FixedPoint(); err != nil {
			b.Fatal(err)
		}
	}
}

// The periodic-update attractor (one map evaluation is a uniformised
// evolution of every board class over T).
func BenchmarkStaleBoardExp(b *testing.B) {
	for b.Loop() {
		if _, err := (&StaleBoard{D: 2, Load: 0.9, Period: 100}).Attractor(500); err != nil {
			b.Fatal(err)
		}
	}
}
