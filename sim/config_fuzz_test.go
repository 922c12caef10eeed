package sim

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/fuzzing"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// fuzzQueues decodes queue lengths (int32, little-endian) from fuzz bytes.
func fuzzQueues(b []byte) []int32 {
	q := make([]int32, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		q = append(q, int32(binary.LittleEndian.Uint32(b[i:])))
	}
	return q
}

// config validation (normalized, what Run calls before any work) on any
// input: a normalized configuration or a *param.Error naming a field of
// config, never a panic, and never a simulation (the fuzz body runs no
// replication). A normalized configuration has its defaults filled in,
// is in the documented ranges and within the work and memory bounds.
func FuzzConfig(f *testing.F) {
	// servers, load, overload, dispatchers, alpha, amode, discipline,
	// sizes, scv, shape, policy, d, replacement, period, beta, bmode,
	// exchange, start, jobsAt, queues, qmode, horizon, stopAtTip,
	// recordFinal, jobs, warmup, reps, level, relPrecision, maxReps,
	// workers, correlationAge, series, times, tmode
	f.Add(100, 0.9, false, 0, []byte{}, uint8(3), 0, 0, 0.0, 0.0, 0, 0, false, 0.0, []byte{}, uint8(3), 0.0,
		0, 0, []byte{}, uint8(0), 0, false, false, 0, 0, 0, 0.0, 0.0, 0, 0, 0.0, false, []byte{}, uint8(3))
	f.Add(800, 0.9, false, 5, []byte{1, 1, 1, 1, 1}, uint8(1), 1, 2, 30.0, 0.0, int(farm.Tally), 0, false, 300.0, []byte{}, uint8(3), 0.0,
		int(farm.Half), 110, []byte{}, uint8(0), 100, true, true, 0, -1, 4, 0.9, 0.0, 0, 2, 5.0, true, []byte{1, 2, 3}, uint8(2))
	f.Add(50, 1.5, false, 2, []byte{7, 3}, uint8(1), 0, 1, 0.0, 0.0, int(farm.JIQBlocking), 0, false, 0.0, []byte{1, 0}, uint8(1), 0.5,
		0, 0, []byte{}, uint8(0), 0, false, false, 1000, 0, 2, 0.99, 0.05, 100, 0, 0.0, false, []byte{}, uint8(3))
	f.Add(4, 0.5, true, 0, []byte{}, uint8(3), 0, 3, 0.0, 2.5, int(farm.JSQd), 2, true, 0.0, []byte{}, uint8(3), 0.0,
		0, 0, []byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f}, uint8(1), 0, false, false, 10, 0, 1, 0.0, 0.0, 0, 0, 0.0, false, []byte{}, uint8(3))
	f.Add(1<<28, 0.9, false, 0, []byte{}, uint8(3), 0, 0, 0.0, 0.0, int(farm.BoardJSQ), 0, false, 1e308, []byte{}, uint8(3), 0.0,
		int(farm.Hot), 1<<62, []byte{}, uint8(0), MaxHorizon, false, false, 0, 0, MaxReps, 0.0, 0.0, 0, 0, 0.0, true, []byte{}, uint8(3))
	f.Add(4, 0.9, false, 0, []byte{}, uint8(3), 0, 0, 0.0, 0.0, 0, 0, false, 0.0, []byte{}, uint8(3), 0.0,
		int(farm.Hot), 1<<62, []byte{}, uint8(0), 0, false, false, 0, 0, 0, 0.0, 0.0, 0, 0, 0.0, false, []byte{}, uint8(3))
	f.Add(0, math.NaN(), false, -1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f}, uint8(0), 9, 9, math.Inf(1), math.NaN(),
		99, -1, false, math.Inf(-1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x7f}, uint8(0), math.NaN(),
		-1, -1, []byte{0xff, 0xff, 0xff, 0xff}, uint8(2), -1, true, true, -1, -2, -1, 1.0, -1.0, -1, -1, math.NaN(), true, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0xff}, uint8(0))
	f.Add(-1<<63, 5e-324, true, 1<<62, []byte{}, uint8(2), -1<<63, -1<<63, 5e-324, 5e-324, 1<<62, 1<<62, true, 5e-324, []byte{}, uint8(2), 5e-324,
		1<<62, -1<<63, []byte{}, uint8(0), 1<<62, true, true, 1<<62, 1<<62, 1<<62, 5e-324, 5e-324, 1<<62, 1<<62, 5e-324, true, []byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, servers int, load float64, overload bool, dispatchers int, alpha []byte, amode uint8,
		discipline, sizes int, scv, shape float64, policy, d int, replacement bool, period float64, beta []byte, bmode uint8,
		exchange float64, start, startJobs int, queues []byte, qmode uint8, horizon int, stopAtTip, recordFinal bool,
		jobs, warmup, reps int, level, relPrecision float64, maxReps, workers int, corrAge float64, series bool,
		times []byte, tmode uint8) {
		c := config{
			Model: Model{Servers: servers, Load: load, AllowOverload: overload, Dispatchers: dispatchers, Alpha: fuzzing.Floats(alpha, amode),
				Discipline: farm.Discipline(discipline), Sizes: farm.Sizes{Kind: farm.SizeKind(sizes), SCV: scv, Shape: shape},
				Policy: farm.Policy{Kind: farm.PolicyKind(policy), D: d, Replacement: replacement}, Period: period,
				Beta: fuzzing.Floats(beta, bmode), Exchange: exchange, Start: farm.Start{Kind: farm.StartKind(start), Jobs: startJobs}},
			Settings: Settings{Horizon: horizon, StopAtTip: stopAtTip, RecordFinal: recordFinal, Jobs: jobs, Warmup: warmup, Reps: reps,
				Level: level, RelPrecision: relPrecision, Budget: int64(maxReps), CorrelationAge: corrAge, Series: series, Run: outcome.Run{Workers: workers}},
		}
		switch qmode % 3 {
		case 1:
			c.Queues = fuzzQueues(queues)
		case 2: // as many queues as servers
			c.Queues = fuzzQueues(queues)
			c.Servers = len(c.Queues)
		}
		if ts := fuzzing.Floats(times, tmode); tmode%4 == 2 {
			for i := 1; i < len(ts); i++ { // increasing times
				ts[i] += ts[i-1]
			}
			c.SampleTimes = ts
		} else {
			c.SampleTimes = ts
		}
		_ = c.Describe()
		_, _ = c.SlowdownFinite()
		n, err := c.normalized()
		if err != nil {
			fuzzing.NamesField(t, err, config{})
			return
		}
		checkNormalized(t, c, n)
		again, err := n.normalized()
		if err != nil || !reflect.DeepEqual(again, n) {
			t.Fatalf("normalizing %+v again: %+v, %v", n, again, err)
		}
	})
}

// checkNormalized checks a normalized configuration n of c.
func checkNormalized(t *testing.T, c, n config) {
	t.Helper()
	bad := func(what string) { t.Fatalf("%+v normalized to %+v: %s", c, n, what) }
	if n.Servers < 1 || !param.Finite(n.Load) || n.Load <= 0 || n.Load >= 1 && !n.AllowOverload && n.Policy.Kind != farm.JIQBlocking {
		bad("servers or load")
	}
	if n.Dispatchers < 1 || len(n.Alpha) > 0 && len(n.Alpha) != n.Dispatchers || n.Policy.Kind == farm.Partitioned && n.Dispatchers > n.Servers {
		bad("dispatchers")
	}
	if !n.Discipline.Valid() || n.Sizes.Validate() != nil || !n.Policy.Kind.Valid() || n.Start.Validate() != nil {
		bad("discipline, sizes, policy or start")
	}
	if n.Policy.Sampled() && (n.Policy.D < 1 || !n.Policy.Replacement && n.Policy.D > n.Servers) {
		bad("sampled servers")
	}
	if !param.Finite(n.Period) || n.Period < 0 || n.Policy.UsesBoard() && n.Period == 0 {
		bad("period")
	}
	if n.Policy.JIQ() != (n.Beta != nil) || n.Beta != nil && len(n.Beta) != n.Dispatchers || !param.Finite(n.Exchange) || n.Exchange < 0 {
		bad("tokens")
	}
	if float64(n.Start.MaxJobs())*float64(n.Servers) > 1<<31 {
		bad("too many jobs at the start")
	}
	if n.Queues != nil && len(n.Queues) != n.Servers {
		bad("queues")
	}
	if n.Horizon > 0 && (n.Jobs != 0 || n.Period <= 0 || n.Horizon > MaxHorizon || !n.Transient) || n.Horizon == 0 && (n.Jobs < 0 || n.StopAtTip) || n.Horizon < 0 {
		bad("length")
	}
	if n.Warmup < 0 || n.Reps < 1 || n.Reps > MaxReps {
		bad("warm-up or replications")
	}
	if !(n.Level > 0 && n.Level < 1) || !(n.RelPrecision > 0 && n.RelPrecision < 1) || n.sequential() != (n.Budget > 0) || n.Budget > 0 && n.Budget < int64(n.Reps) {
		bad("precision")
	}
	if n.Workers < 0 || !param.Finite(n.CorrelationAge) || n.CorrelationAge < 0 || len(n.SampleTimes) > MaxSampleTimes {
		bad("workers, correlation age or sample times")
	}
	// The work bound: arrivals (and board reads) of all replications.
	reps := float64(n.Reps)
	var perRep float64
	if n.Horizon > 0 {
		perRep = float64(n.Horizon) * (n.Period*float64(n.Servers)*n.Load + float64(n.Servers))
	} else {
		perRep = float64(n.jobsPerRep()) + float64(n.Warmup)
		if n.Period > 0 {
			perRep += perRep / (float64(n.Servers) * n.Load * n.Period) * float64(n.Servers)
		}
	}
	if reps*perRep > MaxArrivals*(1+1e-9) {
		bad("more work than MaxArrivals")
	}
}
