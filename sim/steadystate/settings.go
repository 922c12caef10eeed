package steadystate

import (
	"math"

	"github.com/fluidlb/fluid/internal/param"
)

// Defaults of Settings, and the bounds that keep an analysis's memory
// small.
const (
	// DefaultLevel is the confidence level of the intervals.
	DefaultLevel = 0.95
	// DefaultPrecision is ε: a sequential run stops once every target's
	// relative error is at most 2% at DefaultLevel (Law & Kelton's
	// relative-error rule: half-width ≤ ε/(1+ε)·|mean|).
	DefaultPrecision = 0.02
	// DefaultBudget is the most observations a sequential run uses, all
	// replications together (about a minute of simulated jobs on one
	// core).
	DefaultBudget = 1_000_000_000
	// DefaultMaxBatches and DefaultMinBatches bound the number of batch
	// means. Schmeiser (1982) finds 10 to 30 batches lose little in a run
	// of fixed length; a sequential run stops when its half-width is small,
	// partly by chance, and the noisier the variance estimate the more
	// often (Glynn & Whitt 1992: fixed-width stopping is asymptotically
	// valid only with a consistent variance estimator). At least 32
	// batches (31 degrees of freedom) keep that loss near a point of
	// coverage; 64 when the data allow cost nothing in width. Against 16
	// to 32, this costs up to 2.7 times the run when the correlation, not
	// the precision, sets the run length, and gains about half a point of
	// coverage in every case tested.
	DefaultMaxBatches = 64
	DefaultMinBatches = 32
	// DefaultTestLevel is the level of the one-sided von Neumann test of
	// the batch means' lag-1 correlation (a rejection makes the batches
	// larger, so a false one costs only width: a liberal level protects
	// the coverage).
	DefaultTestLevel = 0.10
	// MaxTargets bounds Settings.Targets and MaxBatchesBound the batch
	// count.
	MaxTargets      = 64
	MaxBatchesBound = 1024
)

// Settings of a Controller. The zero value (or nil) takes the defaults
// stated on each field.
type Settings struct {
	// Targets are the quantities whose precision decides when a
	// sequential run stops (default: the mean of channel 0); at most
	// MaxTargets. The first is the primary, reported in Decision.
	Targets []Quantity
	// Level of the intervals (default DefaultLevel), in (0, 1).
	Level float64
	// Precision ε is the relative error to reach (default
	// DefaultPrecision), in (0, 1): a target meets it when its half-width
	// at Level is at most ε/(1+ε)·|mean|, which makes the relative error
	// |mean − true|/|true| at most ε with probability Level (Law & Kelton,
	// §9.4.1). Negative: no relative target (only AbsPrecision).
	Precision float64
	// AbsPrecision, if positive, is a half-width that is precise enough
	// whatever the mean (for quantities near 0, such as a small blocking
	// probability). Default 0: none.
	AbsPrecision float64
	// Budget is the most observations a sequential run may take, summed
	// over the replications (default DefaultBudget).
	Budget int64
	// MinObservations is the fewest observations, summed over the
	// replications, before a run may stop at its precision (default 0;
	// the plan's Minimum is the natural value). Every replication must
	// also have its B fine batches, whatever it is.
	MinObservations int64
	// MaxBatches is the largest number of batch means tried (default
	// DefaultMaxBatches); MinBatches the smallest (default
	// DefaultMinBatches); 3 ≤ MinBatches ≤ MaxBatches ≤ MaxBatchesBound.
	MaxBatches, MinBatches int
	// TestLevel is the level of the independence test (default
	// DefaultTestLevel), in (0, 0.5].
	TestLevel float64
	// Symmetric makes the intervals plain Student-t ones, without the
	// skewness correction (default false: corrected).
	Symmetric bool
}

func (s *Settings) normalized() (Settings, error) {
	var n Settings
	if s != nil {
		n = *s
		n.Targets = append([]Quantity(nil), s.Targets...)
	}
	if len(n.Targets) == 0 {
		n.Targets = []Quantity{{}}
	}
	if n.Level == 0 {
		n.Level = DefaultLevel
	}
	if n.Precision == 0 {
		n.Precision = DefaultPrecision
	}
	if n.Budget == 0 {
		n.Budget = DefaultBudget
	}
	if n.MaxBatches == 0 {
		n.MaxBatches = DefaultMaxBatches
	}
	if n.MinBatches == 0 {
		n.MinBatches = min(DefaultMinBatches, n.MaxBatches)
	}
	if n.TestLevel == 0 {
		n.TestLevel = DefaultTestLevel
	}
	switch {
	case len(n.Targets) > MaxTargets:
		return n, param.Errorf("Targets", "%d, want at most %d", len(n.Targets), MaxTargets)
	case !(n.Level > 0 && n.Level < 1):
		return n, param.Errorf("Level", "%v, want in (0, 1)", n.Level)
	case math.IsNaN(n.Precision) || n.Precision >= 1:
		return n, param.Errorf("Precision", "%v, want in (0, 1), or negative for none", n.Precision)
	case !param.Finite(n.AbsPrecision) || n.AbsPrecision < 0:
		return n, param.Errorf("AbsPrecision", "%v, want ≥ 0", n.AbsPrecision)
	case n.Precision < 0 && n.AbsPrecision == 0:
		return n, param.Errorf("Precision", "negative (no relative target) and no AbsPrecision: nothing to reach")
	case n.Budget < 1:
		return n, param.Errorf("Budget", "%d, want ≥ 1", n.Budget)
	case n.MinObservations < 0:
		return n, param.Errorf("MinObservations", "%d, want ≥ 0", n.MinObservations)
	case n.MaxBatches < 3 || n.MaxBatches > MaxBatchesBound:
		return n, param.Errorf("MaxBatches", "%d, want 3 to %d", n.MaxBatches, MaxBatchesBound)
	case n.MinBatches < 3 || n.MinBatches > n.MaxBatches:
		return n, param.Errorf("MinBatches", "%d, want 3 to MaxBatches (%d)", n.MinBatches, n.MaxBatches)
	case !(n.TestLevel > 0 && n.TestLevel <= 0.5):
		return n, param.Errorf("TestLevel", "%v, want in (0, 0.5]", n.TestLevel)
	}
	return n, nil
}

// target is the half-width that meets the precision for a mean m.
func (s *Settings) target(m float64) float64 {
	h := s.AbsPrecision
	if s.Precision > 0 {
		h = max(h, s.Precision/(1+s.Precision)*math.Abs(m))
	}
	return h
}
