package jiq

import "testing"

// BenchmarkQueueingTrajectory: one queueing trajectory, R = 3, IMax = 100,
// t ∈ [0, 50], rtol 1e-8, from empty.
func BenchmarkQueueingTrajectory(b *testing.B) {
	m := &Model{Scenario: Queueing, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}, IMax: 100}
	s := &TrajectorySettings{Until: 50, RTol: 1e-8, ATol: 1e-10}
	b.ReportAllocs()
	var steps int
	for b.Loop() {
		res, err := Trajectory(m, s)
		if err != nil {
			b.Fatal(err)
		}
		steps = res.Stats.Steps
	}
	b.ReportMetric(float64(steps), "steps/op")
}

// BenchmarkLimitQueueing: the closed-form limit with its stability
// analysis (a dense eigenproblem of size ≈ IMax).
func BenchmarkLimitQueueing(b *testing.B) {
	m := &Model{Scenario: Queueing, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Limit(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSettleBlocking: the long-time limit of the blocking ODE.
func BenchmarkSettleBlocking(b *testing.B) {
	m := &Model{Scenario: Blocking, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}, Exchange: 0.5}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Settle(m, nil); err != nil {
			b.Fatal(err)
		}
	}
}
