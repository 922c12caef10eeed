package steadystate

import (
	"errors"
	"slices"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// Small integer observations, so that every sum is exact in float64 and
// merged batch sums can be compared with direct sums bit for bit.
func intObs(r interface{ IntN(int) int }, n, k int) []float64 {
	x := make([]float64, n*k)
	for i := range x {
		x[i] = float64(r.IntN(1000))
	}
	return x
}

// The fine batches after any number of observations are exactly the sums
// of consecutive runs of Size observations, however many merges it took.
func TestSeriesBatchesAreDirectSums(t *testing.T) {
	for _, set := range []SeriesSettings{{FineBatches: 64, FirstSize: 1}, {FineBatches: 64, FirstSize: 5}, {}} {
		for _, n := range []int{0, 1, 4, 5, 127, 128, 129, 640, 641, 5000, 100_003} {
			t.Run("", func(t *testing.T) {
				const k = 3
				s, err := NewSeries(k, &set)
				if err != nil {
					t.Fatal(err)
				}
				x := intObs(newRand(1, uint64(n)), n, k)
				s.AddRows(x)
				full, size := s.FineBatches()
				if s.Count() != int64(n) || full > 2*s.fine || (n >= 2*s.fine*int(s.first) && full < s.fine) {
					t.Fatalf("n %d: count %d, %d fine batches of %d (B = %d)", n, s.Count(), full, size, s.fine)
				}
				if int64(full)*size > int64(n) || int64(n)-int64(full)*size >= size {
					t.Fatalf("n %d: %d batches of %d leave %d in progress", n, full, size, int64(n)-int64(full)*size)
				}
				for i := range full {
					for ch := range k {
						var want float64
						for j := int64(i) * size; j < int64(i+1)*size; j++ {
							want += x[int(j)*k+ch]
						}
						if got := s.at(i, ch); got != want {
							t.Fatalf("n %d: batch %d channel %d sum %v, want %v", n, i, ch, got, want)
						}
					}
				}
			})
		}
	}
}

// The state depends only on the observations, not on how they arrive:
// one at a time, in rows, in chunks of any size.
func TestSeriesChunking(t *testing.T) {
	const k, n = 2, 54_321
	r := newRand(2, 0)
	x := make([]float64, n*k)
	for i := range x {
		x[i] = r.NormFloat64() * 1e3 // not exact: the order of the sums must match too
	}
	one, _ := NewSeries(k, nil)
	for i := range n {
		one.Add(x[2*i], x[2*i+1])
	}
	for _, chunk := range []int{1, 7, 4096, n} {
		s, _ := NewSeries(k, nil)
		for i := 0; i < n; i += chunk {
			s.AddRows(x[2*i : 2*min(i+chunk, n)])
		}
		if !slices.Equal(s.sums, one.sums) || s.count != one.count || s.size != one.size || s.full != one.full || s.inBatch != one.inBatch {
			t.Fatalf("chunks of %d: the state differs from one observation at a time", chunk)
		}
	}
	s := *one
	one.Reset()
	one.AddRows(x)
	if !slices.Equal(s.sums, one.sums) {
		t.Fatal("Reset and refill differ from the first fill")
	}
}

// Observations summed in place through Pending and Commit, in runs of
// any length up to the room left (a run stopped short, then resumed from
// the sums as they stand, as the simulator's fast path does at a pause),
// leave the state one Add per observation leaves, bit for bit: the
// values are not exact in float64, so a different order of the sums
// shows. Commit beyond the room panics.
func TestSeriesPendingCommit(t *testing.T) {
	const k, n = 3, 30_011
	r := newRand(3, 0)
	x := make([]float64, n*k)
	for i := range x {
		x[i] = r.NormFloat64() * 1e3
	}
	one, _ := NewSeries(k, &SeriesSettings{FineBatches: 64, FirstSize: 3})
	one.AddRows(x)
	for _, stop := range []int64{1, 2, 5, 1 << 40} {
		s, _ := NewSeries(k, &SeriesSettings{FineBatches: 64, FirstSize: 3})
		for i := 0; i < n; {
			sums, room := s.Pending()
			if room < 1 || len(sums) != k {
				t.Fatalf("Pending: %d sums, room %d", len(sums), room)
			}
			run := min(room, stop, int64(n-i))
			acc := slices.Clone(sums)
			for range run {
				for ch := range k {
					acc[ch] += x[i*k+ch]
				}
				i++
			}
			copy(sums, acc)
			s.Commit(run)
		}
		if !slices.Equal(s.sums, one.sums) || s.count != one.count || s.size != one.size || s.full != one.full || s.inBatch != one.inBatch {
			t.Fatalf("runs of at most %d: the state differs from one Add per observation", stop)
		}
	}
	_, room := one.Pending()
	defer func() {
		if recover() == nil {
			t.Errorf("Commit(%d) with room %d did not panic", room+1, room)
		}
	}()
	one.Commit(room + 1)
}

// Adding an observation never allocates, merges included.
func TestSeriesAddDoesNotAllocate(t *testing.T) {
	s, err := NewSeries(7, &SeriesSettings{FineBatches: 64, FirstSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := 0.0
	if a := testing.AllocsPerRun(100_000, func() { v++; s.Add(v, 1, v, 0, 1, v, 2) }); a != 0 {
		t.Fatalf("Add allocates %v times per observation", a)
	}
	if s.size < 64 {
		t.Fatalf("no merge happened (size %d)", s.size)
	}
}

func TestSeriesSettingsErrors(t *testing.T) {
	for _, c := range []struct {
		channels int
		set      SeriesSettings
		param    string
	}{
		{0, SeriesSettings{}, "Channels"},
		{MaxChannels + 1, SeriesSettings{}, "Channels"},
		{1, SeriesSettings{FineBatches: 63}, "FineBatches"},
		{1, SeriesSettings{FineBatches: MaxFineBatches + 1}, "FineBatches"},
		{1, SeriesSettings{FirstSize: -1}, "FirstSize"},
		{1, SeriesSettings{FirstSize: MaxFirstSize + 1}, "FirstSize"},
	} {
		t.Run(c.param, func(t *testing.T) {
			_, err := NewSeries(c.channels, &c.set)
			var pe *param.Error
			if !errors.As(err, &pe) || pe.Param != c.param {
				t.Fatalf("error %v, want one naming %s", err, c.param)
			}
		})
	}
}

func TestSeriesAddPanicsOnWrongLength(t *testing.T) {
	s, _ := NewSeries(2, nil)
	for _, f := range []func(){func() { s.Add(1) }, func() { s.AddRows([]float64{1, 2, 3}) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}
