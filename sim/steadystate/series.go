package steadystate

import (
	"fmt"

	"github.com/fluidlb/fluid/internal/param"
)

// Bounds on what sets a Series' memory: at most MaxChannels sums per
// observation and 2·MaxFineBatches fine batches, so one Series holds at
// most 2·MaxFineBatches·MaxChannels float64 values (8 MiB).
const (
	MaxChannels    = 64
	MaxFineBatches = 1 << 13
	// MinFineBatches bounds SeriesSettings.FineBatches from below (fewer
	// leave the independence test too few batches for any batch count;
	// Analyze then reports no estimate).
	MinFineBatches = 64
	// MaxFirstSize bounds SeriesSettings.FirstSize.
	MaxFirstSize = 1 << 20
)

// Defaults of SeriesSettings.
const (
	// DefaultFineBatches is B: a series keeps between B and 2B fine
	// batches, so MSER locates the end of the transient to within 1/B of
	// the run (0.05% at B = 2048), and after a truncation (at most half)
	// at least B/2 = 1024 remain: the independence test's 4·64 = 256
	// batches are sums of at least 4 fine batches, the interval's 64 of at
	// least 16, so that their sizes differ by at most 1/4 and 1/16 (which
	// leaves the test's level at 10%: 10.3% measured at sizes 4 and 5).
	DefaultFineBatches = 2048
	// DefaultFirstSize is 5 observations per fine batch at the start:
	// until the first merge MSER works on batches of 5 exactly as in
	// MSER-5 (White, Cobb & Spratt 2000).
	DefaultFirstSize = 5
)

// SeriesSettings sets how a Series stores its fine batches. The zero value
// (or nil) is the default.
type SeriesSettings struct {
	// FineBatches is B (default DefaultFineBatches, MinFineBatches to
	// MaxFineBatches): a series keeps
	// between B and 2B complete fine batches once it has 2B·FirstSize
	// observations.
	FineBatches int
	// FirstSize is the number of observations in a fine batch at the
	// start (default DefaultFirstSize, at most MaxFirstSize). It doubles
	// whenever 2B complete fine batches are held.
	FirstSize int64
}

func (s *SeriesSettings) normalized() (SeriesSettings, error) {
	var n SeriesSettings
	if s != nil {
		n = *s
	}
	if n.FineBatches == 0 {
		n.FineBatches = DefaultFineBatches
	}
	if n.FirstSize == 0 {
		n.FirstSize = DefaultFirstSize
	}
	if n.FineBatches < MinFineBatches || n.FineBatches > MaxFineBatches {
		return n, param.Errorf("FineBatches", "%d, want %d to %d", n.FineBatches, MinFineBatches, MaxFineBatches)
	}
	if n.FirstSize < 1 || n.FirstSize > MaxFirstSize {
		return n, param.Errorf("FirstSize", "%d, want 1 to %d", n.FirstSize, MaxFirstSize)
	}
	return n, nil
}

// Series accumulates one output series: observations arriving in order
// (one per completed job, one per board refresh, …), each a vector of
// Channels values (a job's time in system, 1 if it was served, 1 if it
// waited, …). It keeps only sums over fine batches of consecutive
// observations: between B and 2B complete batches of Size observations
// each, plus the batch in progress. When 2B batches are complete, adjacent
// pairs merge and the size doubles, so memory is fixed at construction
// and the state depends only on the sequence of observations, never on
// how the calls to Add group them.
//
// A Series is not safe for concurrent use; one replication owns one.
// Analyze, Truncate and Controller.Check only read it.
type Series struct {
	channels int
	fine     int       // B
	first    int64     // the first fine batch size
	size     int64     // observations per complete fine batch
	full     int       // complete fine batches held (≤ 2B)
	inBatch  int64     // observations in the batch in progress
	count    int64     // observations added
	sums     []float64 // (2B+1)·channels: batch i's sums at [i·channels, (i+1)·channels); batch full is in progress
}

// NewSeries returns an empty series of observations with the given number
// of channels (1 to MaxChannels); s nil means the default settings. An
// invalid setting is a *param.Error naming its field.
func NewSeries(channels int, s *SeriesSettings) (*Series, error) {
	if channels < 1 || channels > MaxChannels {
		return nil, param.Errorf("Channels", "%d, want 1 to %d", channels, MaxChannels)
	}
	n, err := s.normalized()
	if err != nil {
		return nil, err
	}
	return &Series{channels: channels, fine: n.FineBatches, first: n.FirstSize, size: n.FirstSize,
		sums: make([]float64, (2*n.FineBatches+1)*channels)}, nil
}

// Add appends one observation: len(x) must equal Channels (it panics
// otherwise). It does not allocate; a merge of the fine batches costs
// O(B·Channels) once every B·Size observations.
func (s *Series) Add(x ...float64) {
	if len(x) != s.channels {
		panic(fmt.Sprintf("steadystate: Add with %d values to a series of %d channels", len(x), s.channels))
	}
	off := s.full * s.channels
	c := s.sums[off : off+len(x)]
	for i, v := range x {
		c[i] += v
	}
	s.count++
	s.inBatch++
	if s.inBatch == s.size {
		s.closeBatch()
	}
}

// AddRows appends len(rows)/Channels observations stored one after the
// other (observation i at rows[i·Channels:(i+1)·Channels]); the result is
// that of Add called on each in turn. It panics if len(rows) is not a
// multiple of Channels.
func (s *Series) AddRows(rows []float64) {
	k := s.channels
	if len(rows)%k != 0 {
		panic(fmt.Sprintf("steadystate: AddRows with %d values to a series of %d channels", len(rows), k))
	}
	for len(rows) > 0 {
		s.Add(rows[:k]...)
		rows = rows[k:]
	}
}

// closeBatch completes the batch in progress and, when 2B are complete,
// merges adjacent pairs into B batches of twice the size.
func (s *Series) closeBatch() {
	s.full++
	s.inBatch = 0
	if s.full < 2*s.fine {
		return
	}
	k := s.channels
	for i := range s.fine {
		dst, a, b := s.sums[i*k:(i+1)*k], s.sums[2*i*k:(2*i+1)*k], s.sums[(2*i+1)*k:(2*i+2)*k]
		for j := range k {
			dst[j] = a[j] + b[j]
		}
	}
	clear(s.sums[s.fine*k:])
	s.full = s.fine
	s.size *= 2
}

// Reset empties the series, keeping its memory and settings.
func (s *Series) Reset() {
	clear(s.sums)
	s.size, s.full, s.inBatch, s.count = s.first, 0, 0, 0
}

// Channels is the number of values per observation.
func (s *Series) Channels() int { return s.channels }

// Count is the number of observations added.
func (s *Series) Count() int64 { return s.count }

// FineBatches returns the number of complete fine batches and their size
// in observations. The Count − n·size observations of the batch in
// progress are not yet part of any analysis.
func (s *Series) FineBatches() (n int, size int64) { return s.full, s.size }

// Sum returns the sum of channel ch over the complete fine batches
// i0 … i1−1.
func (s *Series) Sum(ch, i0, i1 int) float64 {
	var t float64
	for i := i0; i < i1; i++ {
		t += s.sums[i*s.channels+ch]
	}
	return t
}

// fine returns channel ch of complete fine batch i.
func (s *Series) at(i, ch int) float64 { return s.sums[i*s.channels+ch] }

// Pending returns the fine batch in progress: its sums (Channels values,
// the series' own storage) and the observations it lacks to be complete
// (at least 1). It lets a caller that adds many observations keep the
// batch's sums in its own variables: it reads them, adds each observation
// in order (sums[c] += x[c]), writes them back and calls Commit with the
// number added, at most room. The series is then exactly what Add on each
// observation would have made it.
func (s *Series) Pending() (sums []float64, room int64) {
	off := s.full * s.channels
	return s.sums[off : off+s.channels], s.size - s.inBatch
}

// Commit records n observations added into the sums Pending returned
// (0 ≤ n ≤ room), completing the batch when it has them all. It panics
// if n is out of range.
func (s *Series) Commit(n int64) {
	if n < 0 || n > s.size-s.inBatch {
		panic(fmt.Sprintf("steadystate: Commit of %d observations to a batch lacking %d", n, s.size-s.inBatch))
	}
	s.count += n
	s.inBatch += n
	if s.inBatch == s.size {
		s.closeBatch()
	}
}
