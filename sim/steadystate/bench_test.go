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

func BenchmarkLindleyH2(b *testing.B) {
	s, _ := NewSeries(4, nil)
	p := &lindley{lambda: 0.9, sizes: newH2(30), rng: newRand(1, 1)}
	n := int64(0)
	for b.Loop() {
		n++
		p.Fill(s, n)
	}
}
