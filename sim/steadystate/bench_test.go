package steadystate

import "testing"

// BenchmarkAdd1 and BenchmarkAdd7: the per-observation path, one channel
// and the simulator's seven; ns/op is per observation, merges included
// (amortised), and it must not allocate.
func BenchmarkAdd1(b *testing.B) {
	s, err := NewSeries(1, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	x := 0.0
	for b.Loop() {
		x += 1
		s.Add(x)
	}
}

func BenchmarkAdd7(b *testing.B) {
	s, err := NewSeries(7, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	x := 0.0
	for b.Loop() {
		x += 1
		s.Add(x, 1, 0.5*x, 1, 0, 0, x)
	}
}

// BenchmarkCheck: one analysing check of a full series (between 2,048 and
// 4,096 fine batches): MSER, the independence tests and the interval.
// The simulator pays it once per check, a few dozen times a run.
func BenchmarkCheck(b *testing.B) {
	s, _ := NewSeries(1, nil)
	(&iid{mu: 1, sigma: 1, rng: newRand(1, 1)}).Fill(s, 3_000_000)
	c, _ := NewController(nil)
	b.ReportAllocs()
	for b.Loop() {
		c.Analyze(MeanOf("", 0), s)
	}
}
