package steadystate

import (
	"testing"
)

// stepSeries is iid N(0, 1) observations, shifted by offset for the first
// step of n: a transient of known length.
func stepSeries(t *testing.T, seed uint64, n, step int64, offset float64) *Series {
	t.Helper()
	s, err := NewSeries(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(seed, 0)
	for i := range n {
		x := r.NormFloat64()
		if i < step {
			x += offset
		}
		s.Add(x)
	}
	return s
}

// MSER finds a step transient: it deletes the shifted observations and at
// most a little more. A shift of 1 standard deviation per observation
// over 20% of the run is worth deleting (it would bias the mean by 0.2
// against a standard error of 1/√n); the minimiser is then the fine
// batch after the step or one close to it. Over these 200 seeds it never
// deletes less than the step; the median excess is 0, the 95th
// percentile 0.2% of the run and the largest 1.1%: the bound is 2%.
func TestTruncateFindsAStep(t *testing.T) {
	const n, step = 1_000_000, 200_000
	for seed := range uint64(200) {
		s := stepSeries(t, seed, n, step, 1)
		tr := Truncate(MeanOf("", 0), s)
		_, size := s.FineBatches()
		if !tr.Steady || tr.Point < step-size || tr.Point > step+n/50 {
			t.Fatalf("seed %d: truncation %+v, want steady at %d … %d", seed, tr, step-size, step+n/50)
		}
	}
}

// On a stationary series MSER deletes little and always finds a steady
// state: a minimiser past half would need the statistic there, σ²/(n−d)
// with n − d < n/2, to fall below its value at 0 by a factor 2, many
// standard deviations of a variance estimated from over 500 batches.
func TestTruncateStationary(t *testing.T) {
	// What MSER deletes from white noise is its own noise: on these 100
	// seeds a mean of 0.02% of the run and at most 0.4%; the bounds are 1%
	// on the mean and 5% on any one.
	var total float64
	for seed := range uint64(100) {
		s := stepSeries(t, seed, 200_000, 0, 0)
		tr := Truncate(MeanOf("", 0), s)
		if f := float64(tr.Point) / 200_000; !tr.Steady || f > 0.05 {
			t.Fatalf("seed %d: %+v", seed, tr)
		}
		total += float64(tr.Point) / 200_000
	}
	if total/100 > 0.01 {
		t.Errorf("mean fraction deleted %.3f from white noise", total/100)
	}
}

// A series that drifts through the whole run has no steady state inside
// it: the minimiser lies past half.
func TestTruncateDrift(t *testing.T) {
	for seed := range uint64(20) {
		s, _ := NewSeries(1, nil)
		r := newRand(seed, 1)
		const n = 100_000
		for i := range n {
			s.Add(10*float64(i)/n + r.NormFloat64())
		}
		if tr := Truncate(MeanOf("", 0), s); tr.Steady || tr.Batches <= tr.Of/2 {
			t.Fatalf("seed %d: a drift is found steady: %+v", seed, tr)
		}
	}
}

// For a ratio whose denominator is 1 per observation MSER is exactly the
// mean's; a constant series deletes nothing (ties go to the smallest d);
// too short a series is not steady.
func TestTruncateEdges(t *testing.T) {
	s, _ := NewSeries(2, nil)
	r := newRand(3, 0)
	for i := range 300_000 {
		x := r.NormFloat64()
		if i < 30_000 {
			x += 2
		}
		s.Add(x, 1)
	}
	m, q := Truncate(MeanOf("", 0), s), Truncate(RatioOf("", 0, 1), s)
	if m != q {
		t.Errorf("mean %+v, ratio over ones %+v", m, q)
	}
	c, _ := NewSeries(1, nil)
	for range 100_000 {
		c.Add(3)
	}
	if tr := Truncate(MeanOf("", 0), c); tr.Point != 0 || !tr.Steady {
		t.Errorf("constant series: %+v", tr)
	}
	short, _ := NewSeries(1, nil)
	for range 39 {
		short.Add(1)
	}
	if tr := Truncate(MeanOf("", 0), short); tr.Steady || tr.Of != 7 {
		t.Errorf("7 fine batches: %+v", tr)
	}
	none, _ := NewSeries(2, nil)
	for range 1000 {
		none.Add(1, 0) // a ratio with no denominator
	}
	if tr := Truncate(RatioOf("", 0, 1), none); tr.Steady {
		t.Errorf("a zero denominator is steady: %+v", tr)
	}
}
