package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Every invalid configuration is a *param.Error naming the Model or Settings field
// at fault (Go spelling: the command line maps it to its flag).
func TestBadConfig(t *testing.T) {
	good := config{Model: Model{Servers: 10, Load: 0.5}}
	for _, c := range []struct {
		mod   func(*config)
		param string
	}{
		{func(c *config) { c.Servers = 0 }, "Servers"},
		{func(c *config) { c.Load = 0 }, "Load"},
		{func(c *config) { c.Load = math.NaN() }, "Load"},
		{func(c *config) { c.Load = 1 }, "Load"},
		{func(c *config) { c.Load = 1.5; c.Policy = farm.Policy{Kind: farm.JSQ} }, "Load"},
		{func(c *config) { c.Dispatchers = 20; c.Policy = farm.Policy{Kind: farm.Partitioned}; c.Period = 5 }, "Dispatchers"},
		{func(c *config) { c.Policy = farm.Policy{Kind: farm.Tally} }, "Period"},
		{func(c *config) { c.Period = -1 }, "Period"},
		{func(c *config) { c.Alpha = []float64{0.5, 0.6} }, "Alpha"},
		{func(c *config) { c.Alpha = []float64{1, 0} }, "Alpha"},
		{func(c *config) { c.Beta = []float64{1} }, "Beta"},
		{func(c *config) {
			c.Policy = farm.Policy{Kind: farm.JIQBlocking}
			c.Alpha = []float64{0.5, 0.5}
			c.Beta = []float64{1}
		}, "Beta"},
		{func(c *config) { c.Policy = farm.Policy{Kind: farm.JIQQueueing}; c.Exchange = -1 }, "Exchange"},
		{func(c *config) { c.Exchange = 1 }, "Exchange"},
		{func(c *config) { c.Policy = farm.Policy{Kind: farm.JSQd, D: 11} }, "Policy"},
		{func(c *config) { c.Policy = farm.Policy{Kind: farm.JSQd} }, "Policy"},
		{func(c *config) { c.Sizes = farm.Sizes{Kind: farm.H2, SCV: 1} }, "Sizes"},
		{func(c *config) { c.Sizes = farm.Sizes{Kind: farm.Pareto, Shape: 1} }, "Sizes"},
		{func(c *config) { c.Jobs = -5 }, "Jobs"},
		{func(c *config) { c.Reps = -1 }, "Reps"},
		{func(c *config) { c.Warmup = -2 }, "Warmup"},
		{func(c *config) { c.Servers = 1<<28 + 1 }, "Servers"},
		{func(c *config) { c.Dispatchers = -1 }, "Dispatchers"},
		{func(c *config) { c.Alpha = []float64{0.5, 0.5}; c.Dispatchers = 3 }, "Alpha"},
		{func(c *config) { c.Discipline = 7 }, "Discipline"},
		{func(c *config) { c.Sizes = farm.Sizes{Kind: 9} }, "Sizes"},
		{func(c *config) { c.Policy = farm.Policy{Kind: 99} }, "Policy"},
		{func(c *config) { c.Policy = farm.Policy{Kind: farm.JIQQueueing}; c.Beta = []float64{0.5, 0.6} }, "Beta"},
		{func(c *config) { c.Start = farm.Start{Kind: farm.Half, Jobs: -1} }, "Start"},
		{func(c *config) { c.Start = farm.Start{Kind: farm.Balanced, Jobs: 1 << 30} }, "Start"},
		{func(c *config) { c.Reps = 1; c.Jobs = 9 }, "Jobs"},
		{func(c *config) { c.Workers = -1 }, "Workers"},
		{func(c *config) { c.SampleTimes = []float64{2, 1} }, "SampleTimes"},
		{func(c *config) { c.SampleTimes = []float64{math.Inf(1)} }, "SampleTimes"},
		{func(c *config) { c.CorrelationAge = -1 }, "CorrelationAge"},
		// Bounds on the work and the memory of a run, checked before it starts.
		{func(c *config) { c.Reps = MaxReps + 1 }, "Reps"},
		{func(c *config) { c.Reps = 1000; c.Jobs = 1e9 }, "Jobs"},
		{func(c *config) {
			c.Policy = farm.Policy{Kind: farm.Tally}
			c.Dispatchers = 5
			c.Period = 1e-6 // 2·10⁵ refreshes per arrival
			c.Jobs = 1e7
		}, "Period"},
		{func(c *config) {
			c.Policy = farm.Policy{Kind: farm.Tally}
			c.Dispatchers = 5
			c.Period = 0.01 // two refreshes per arrival, each reading N servers and 5 tallies
			c.Servers = 1000
			c.Jobs = 1e8
			c.Reps = 100
		}, "Period"},
		{func(c *config) {
			c.Policy = farm.Policy{Kind: farm.Tally}
			c.Dispatchers = 5
			c.Period = 1e-3
			c.Horizon = MaxHorizon
			c.Servers = 1000 // 10⁶ refreshes × 1000 reads × 10⁴ reps
			c.Reps = 10000
		}, "Period"},
		{func(c *config) {
			c.Period = 1e3
			c.Horizon = MaxHorizon
			c.Servers = 1000 // 10⁹ time units × 500 arrivals
			c.Reps = 10
		}, "Horizon"},
		{func(c *config) { c.SampleTimes = make([]float64, MaxSampleTimes+1) }, "SampleTimes"},
		{func(c *config) { c.Servers = 1 << 20; c.RecordFinal = true; c.Reps = 1000 }, "Reps"},
		// Confidence level and precision target.
		{func(c *config) { c.Level = 1 }, "Level"},
		{func(c *config) { c.Level = -0.95 }, "Level"},
		{func(c *config) { c.Level = 95 }, "Level"},
		{func(c *config) { c.Level = math.NaN() }, "Level"},
		{func(c *config) { c.RelPrecision = -0.01 }, "RelPrecision"},
		{func(c *config) { c.RelPrecision = 1 }, "RelPrecision"},
		{func(c *config) { c.RelPrecision = math.Inf(1) }, "RelPrecision"},
		{func(c *config) { c.Budget = 100 }, "Budget"}, // a budget for a run of fixed length
		{func(c *config) { c.Jobs, c.Budget = 0, -1 }, "Budget"},
		{func(c *config) { c.Jobs, c.Budget = 0, 1e12 }, "Budget"}, // beyond MaxArrivals
		{func(c *config) { c.Jobs, c.Transient = 0, true }, "Jobs"},
	} {
		cfg := good
		c.mod(&cfg)
		_, err := run(cfg)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: error %v, want one naming %q", cfg, err, c.param)
		}
	}
	// Blocking JIQ may be overloaded.
	if _, err := run(config{Model: Model{Servers: 10, Load: 2, Policy: farm.Policy{Kind: farm.JIQBlocking}}, Settings: Settings{Jobs: 100, Reps: 2, Transient: true}}); err != nil {
		t.Errorf("JIQ blocking at λ = 2: %v", err)
	}
	for _, s := range []string{"exp:1", "h2", "h2:x", "gamma:2"} {
		if _, err := farm.ParseSizes(s); err == nil {
			t.Errorf("sizes %q accepted", s)
		}
	}
	for _, s := range []string{"jsqd", "jsqd:0", "random:2", "best"} {
		if _, err := farm.ParsePolicy(s); err == nil {
			t.Errorf("policy %q accepted", s)
		}
	}
	for _, s := range []string{"half", "half:-1", "empty:3", "hot:x", "cold:1"} {
		var pe *param.Error
		if _, err := farm.ParseStart(s); !errors.As(err, &pe) || pe.Param != "Start" {
			t.Errorf("start %q: %v, want an error naming Start", s, err)
		}
	}
}
