package sim

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Issue 16: inputs that crashed, exhausted memory, hung or printed a wrong
// number are refused by Run before any work (by Normalized, which
// Run calls first), fast, with an error naming the Model or Settings field and
// stating the bound.
func TestRefusedBeforeWork(t *testing.T) {
	base := config{Model: Model{Servers: 100, Load: 0.9}, Settings: Settings{Jobs: 100_000}}
	pol := func(s string) farm.Policy {
		p, err := farm.ParsePolicy(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name  string
		mod   func(*config)
		field string
		says  string // a fragment of the message: the bound
	}{
		{"a billion replications", func(c *config) { c.Reps, c.Jobs = 1e9, 1 }, "Reps", "at most 100000"},
		{"2²⁸ servers (was: 6 GB and counting)", func(c *config) { c.Servers, c.Jobs, c.Reps = 1<<28, 1000, 1 }, "Servers", "2 GiB"},
		{"2²⁸+1 servers", func(c *config) { c.Servers = 1<<28 + 1 }, "Servers", "at most"},
		{"board refreshed every 10⁻⁶ (was: hang)", func(c *config) { c.Policy, c.Period = pol("board-jsq"), 1e-6 }, "Period", "1000 per arrival"},
		{"correlation age 10⁻¹² (was: hang)", func(c *config) { c.CorrelationAge = 1e-12 }, "CorrelationAge", "10 per arrival"},
		{"token exchange 10³⁰⁸ (was: hang)", func(c *config) { c.Policy, c.Exchange = pol("jiq-queueing"), 1e308 }, "Exchange", "1000 per arrival"},
		{"token exchange 10⁶", func(c *config) { c.Policy, c.Exchange = pol("jiq-blocking"), 1e6 }, "Exchange", "ν ≤ 900"},
		{"best of 10⁹ with replacement", func(c *config) { c.Policy = farm.Policy{Kind: farm.JSQd, D: 1e9, Replacement: true} }, "Policy", "1 to 1000"},
		{"replacement without sampling", func(c *config) { c.Policy = farm.Policy{Kind: farm.Random, Replacement: true} }, "Policy", "replacement"},
		{"10¹⁵ jobs", func(c *config) { c.Jobs = 1e15 }, "Jobs", "2⁴⁰"},
		{"2·10¹¹ jobs, 8 replications", func(c *config) { c.Jobs = 2e11 }, "Jobs", "1e+12"},
		{"λ = 10⁻³⁰⁰", func(c *config) { c.Load = 1e-300 }, "Load", "2⁴⁰"},
		{"λ = 10³⁰⁸ under JIQ blocking (was: 0 ± 0)", func(c *config) { c.Policy, c.Load = pol("jiq-blocking"), 1e308 }, "Load", "λ ≤ 5e+03"},
		{"h2:10¹² (was: 0.527 ± 0.001)", func(c *config) { c.Sizes = farm.Sizes{Kind: farm.H2, SCV: 1e12} }, "Sizes", "2e+14 measured jobs"},
		{"h2:10⁴ in 10⁵ jobs", func(c *config) { c.Sizes = farm.Sizes{Kind: farm.H2, SCV: 1e4} }, "Sizes", "cannot be resolved"},
		{"h2:1000 in one replication of 10⁵ jobs", func(c *config) { c.Sizes, c.Reps = farm.Sizes{Kind: farm.H2, SCV: 1000}, 1 }, "Sizes", "batch"},
		{"pareto:1.0001 under PS (was: 0.0069)", func(c *config) {
			c.Sizes, c.Discipline = farm.Sizes{Kind: farm.Pareto, Shape: 1.0001}, farm.PS
		}, "Sizes", "cannot be resolved"},
		{"pareto:1.2 under PS in 10⁵ jobs", func(c *config) {
			c.Sizes, c.Discipline = farm.Sizes{Kind: farm.Pareto, Shape: 1.2}, farm.PS
		}, "Sizes", "6.12e+06 measured jobs"},
		{"pareto:2 under FCFS (was: a finite number)", func(c *config) { c.Sizes = farm.Sizes{Kind: farm.Pareto, Shape: 2} }, "Sizes", "infinite"},
		{"pareto:1.5 under FCFS, best of 2", func(c *config) {
			c.Sizes, c.Policy = farm.Sizes{Kind: farm.Pareto, Shape: 1.5}, pol("jsqd:2")
		}, "Sizes", "infinite"},
		{"pareto:1.05 under FCFS, least-work with 10 spare servers", func(c *config) {
			c.Sizes, c.Policy = farm.Sizes{Kind: farm.Pareto, Shape: 1.05}, pol("least-work")
		}, "Sizes", "1.1"},
		{"hot:2⁶² on 4 servers (the int64 product wrapped)", func(c *config) { c.Servers, c.Start = 4, farm.Start{Kind: farm.Hot, Jobs: 1 << 62} }, "Start", "too many jobs"},
		{"two billion jobs at one server", func(c *config) { c.Servers, c.Start = 1, farm.Start{Kind: farm.Hot, Jobs: 2e9} }, "Start", "GiB"},
		{"tally with 10⁴ dispatchers on 10⁵ servers", func(c *config) {
			c.Servers, c.Policy, c.Dispatchers, c.Period, c.Jobs = 100_000, pol("tally"), 10_000, 10, 1000
		}, "Dispatchers", "GiB"},
		{"least-work on 10⁶ servers", func(c *config) { c.Servers, c.Policy, c.Jobs = 1e6, pol("least-work"), 1e6 }, "Policy", "least-work scans"},
		{"confidence level 1 − 10⁻⁷", func(c *config) { c.Level = 1 - 1e-7 }, "Level", "0.999999"},
		{"a sample time at 10³⁰⁰", func(c *config) { c.SampleTimes = []float64{1e300} }, "SampleTimes", "2⁴⁰"},
		{"board series of 10⁶ refreshes × 1000 replications", func(c *config) {
			c.Period, c.Horizon, c.Series, c.Reps, c.Servers, c.Jobs = 1, MaxHorizon, true, 1000, 1, 0
		}, "Reps", "numbers"},
	} {
		cfg := base
		c.mod(&cfg)
		// Normalized is what Run does first (calling Run here would, if a
		// bound slipped, run the whole simulation).
		start := time.Now()
		_, err := cfg.normalized()
		elapsed := time.Since(start)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != c.field || !strings.Contains(pe.Msg, c.says) {
			t.Errorf("%s: %v; want an error naming %s and saying %q", c.name, err, c.field, c.says)
		}
		if elapsed > 100*time.Millisecond {
			t.Errorf("%s: refused after %v, not before any work", c.name, elapsed)
		}
	}
}

// What the bounds must not refuse: the infinite-mean rule spares PS, JIQ
// blocking and least-work with enough spare servers; the size rule spares
// shapes and SCVs the run resolves, however few jobs with light tails.
func TestAcceptedNearBounds(t *testing.T) {
	for _, c := range []config{
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 1.5}, Discipline: farm.PS}},
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 1.5}, Policy: farm.Policy{Kind: farm.JIQBlocking}}},
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 1.5}, Policy: farm.Policy{Kind: farm.LeastWork}}}, // 1.5 > 1 + 1/10
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 2.01}}},
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 1.3}, Discipline: farm.PS}, Settings: Settings{Jobs: 200_000}},
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.H2, SCV: 1000}}},
		{Model: Model{Servers: 100, Load: 0.9, Sizes: farm.Sizes{Kind: farm.H2, SCV: 9}}, Settings: Settings{Jobs: 1, Reps: 2}},
		{Model: Model{Servers: 100, Load: 0.9}, Settings: Settings{Jobs: 1, Warmup: -1, Reps: 2}},
		{Model: Model{Servers: 10, Load: 2, Policy: farm.Policy{Kind: farm.JIQBlocking}}, Settings: Settings{Jobs: 100, Reps: 2, Transient: true}},
		{Model: Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.BoardJSQ}, Period: 2e-5}}, // 556 refreshes per arrival
		{Model: Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JIQQueueing}, Exchange: 900}, Settings: Settings{Jobs: 100_000}},
		{Model: Model{Servers: 4, Load: 1e-9, Period: 0.5, Queues: []int32{0, 3, 7, 1}}, Settings: Settings{Horizon: 1, Reps: 2}}, // few timer events, no arrivals
		{Model: Model{Servers: 10_000_000, Load: 0.9}, Settings: Settings{Jobs: 1000, Reps: 2}},
		{Model: Model{Servers: 1000, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 1000}}, Settings: Settings{Jobs: 1000, Reps: 2}},
	} {
		if _, err := c.normalized(); err != nil {
			t.Errorf("%s: %v", c.Describe(), err)
		}
	}
}

// Replications run at once: Workers (default GOMAXPROCS), but no more than
// fit in MaxMemory; the result does not depend on it.
func TestWorkersFitMemory(t *testing.T) {
	small, err := config{Model: Model{Servers: 100, Load: 0.9}, Settings: Settings{Run: outcome.Run{Workers: 64}}}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	if w := small.workers(); w != 64 {
		t.Errorf("N = 100: %d workers, want the 64 asked", w)
	}
	def := config{Model: Model{Servers: 100, Load: 0.9}}.withDefaults(t)
	if w := def.workers(); w != runtime.GOMAXPROCS(0) {
		t.Errorf("N = 100: %d workers by default, want GOMAXPROCS", w)
	}
	big := config{Model: Model{Servers: 10_000_000, Load: 0.9}, Settings: Settings{Jobs: 1000, Reps: 8, Run: outcome.Run{Workers: 64}}}.withDefaults(t)
	r := big.cost()
	if w := big.workers(); w < 1 || float64(w)*r.bytes.total > MaxMemory {
		t.Errorf("N = 10⁷: %d workers of %s each exceed %s", w, bytesString(r.bytes.total), bytesString(MaxMemory))
	}
}

func (c config) withDefaults(t *testing.T) config {
	t.Helper()
	n, err := c.normalized()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The engine's shortcuts do not change a run: a refresh with no arrival
// or departure since the last repeats it without reading the queues, and
// best of D without replacement finds duplicates by marks above D = 16;
// forcing the long way gives the identical result (every replication,
// every board value, every tip).
func TestShortcutsExact(t *testing.T) {
	same := func(name string, a, b *Result) {
		t.Helper()
		if a.Sojourn != b.Sojourn || a.Delay != b.Delay || a.Evaluations != b.Evaluations || a.Tipped != b.Tipped ||
			!reflect.DeepEqual(a.BoardMean, b.BoardMean) {
			t.Errorf("%s: %+v vs %+v", name, a.Sojourn, b.Sojourn)
		}
		for i := range a.Reps {
			if !reflect.DeepEqual(a.Reps[i].Boards, b.Reps[i].Boards) || a.Reps[i].TippedAt != b.Reps[i].TippedAt {
				t.Errorf("%s: replication %d differs", name, i)
			}
		}
	}
	// Periods from far below the time between events (most refreshes
	// repeat) to above it, with tallies, a hot start that tips, and a
	// Horizon run stopped at the tip.
	for _, c := range []config{
		{Model: Model{Servers: 20, Load: 0.8, Dispatchers: 3, Policy: farm.Policy{Kind: farm.Tally}, Period: 0.002}, Settings: Settings{Jobs: 3000, Reps: 2, Series: true}},
		{Model: Model{Servers: 20, Load: 0.8, Policy: farm.Policy{Kind: farm.BoardJSQd, D: 3}, Period: 0.3, Start: farm.Start{Kind: farm.Hot, Jobs: 50}}, Settings: Settings{Jobs: 3000, Reps: 2, Series: true}},
		{Model: Model{Servers: 30, Load: 0.9, Dispatchers: 5, Policy: farm.Policy{Kind: farm.Tally}, Period: 20, Start: farm.Start{Kind: farm.Half, Jobs: 10}}, Settings: Settings{Horizon: 30, StopAtTip: true, Reps: 3, Series: true}},
		{Model: Model{Servers: 20, Load: 0.5, Period: 0.001}, Settings: Settings{Jobs: 2000, Reps: 2, Series: true, CorrelationAge: 1}},
	} {
		c.Transient = true // fixed runs of a few thousand jobs: the engine, not the statistics
		a := mustRun(t, c)
		alwaysReadBoard = true
		b, err := run(c)
		alwaysReadBoard = false
		if err != nil {
			t.Fatal(err)
		}
		same(c.Describe(), a, b)
	}
	for _, c := range []config{
		{Model: Model{Servers: 50, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 40}}, Settings: Settings{Jobs: 2000, Reps: 2}},
		{Model: Model{Servers: 40, Load: 0.8, Dispatchers: 2, Policy: farm.Policy{Kind: farm.TallyJSQd, D: 17}, Period: 1}, Settings: Settings{Jobs: 2000, Reps: 2}},
	} {
		c.Transient = true
		a := mustRun(t, c)
		old := dedupScan
		dedupScan = 1 << 30
		b, err := run(c)
		dedupScan = old
		if err != nil {
			t.Fatal(err)
		}
		same(c.Describe(), a, b)
	}
}

// Estimates leave out the replications (batches) with nothing to average
// instead of counting them as zeros, and an estimate of nothing is the
// zero Estimate, never a NaN.
func TestEmptySamplesLeftOut(t *testing.T) {
	res := &Result{cfg: config{Model: Model{Discipline: farm.FCFS}, Settings: Settings{Level: 0.95, Transient: true}}}
	served := func(n, soj float64) Rep {
		var r Rep
		r.tot = batchSums{arrivals: 10, served: n, blocked: 10 - n, sojourn: n * soj, slowdown: n * soj}
		return r
	}
	res.Reps = []Rep{served(5, 2), served(0, 0), served(5, 4)}
	res.aggregateTransient()
	if res.Sojourn.Mean != 3 || res.Sojourn.Samples != 2 || res.Blocking.Samples != 3 || math.Abs(res.Blocking.Mean-2.0/3) > 1e-12 {
		t.Errorf("sojourn %+v (want 3 over 2 samples), blocking %+v (want 2/3 over 3)", res.Sojourn, res.Blocking)
	}
	res.Reps = []Rep{served(0, 0), served(0, 0)}
	res.aggregateTransient()
	if e := res.Sojourn; e.Samples != 0 || e.Mean != 0 || e.CI95 != 0 {
		t.Errorf("no served job: %+v", e)
	}
	if e := estimate(nil, 0.95); e.Samples != 0 || math.IsNaN(e.Mean) {
		t.Errorf("estimate of nothing: %+v", e)
	}
}

// The mean time in system is infinite exactly under FCFS with Pareto
// shape ≤ 2, except JIQ blocking, and least-work (M/G/N) with a shape
// above 1 + 1/(N − ⌊λN⌋).
func TestSojournFinite(t *testing.T) {
	p := func(a float64) farm.Sizes { return farm.Sizes{Kind: farm.Pareto, Shape: a} }
	for _, c := range []struct {
		c    config
		want bool
	}{
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(2)}}, false},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(2.0001)}}, true},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Discipline: farm.PS}}, true},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Policy: farm.Policy{Kind: farm.JIQBlocking}}}, true},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Policy: farm.Policy{Kind: farm.JIQQueueing}}}, false},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Policy: farm.Policy{Kind: farm.JSQ}}}, false},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Policy: farm.Policy{Kind: farm.LeastWork}}}, true},  // 1 + 1/5
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.2), Policy: farm.Policy{Kind: farm.LeastWork}}}, false}, // = 1 + 1/5
		{config{Model: Model{Servers: 10, Load: 0.95, Sizes: p(1.9), Policy: farm.Policy{Kind: farm.LeastWork}}}, false},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: farm.Sizes{Kind: farm.H2, SCV: 1e6}}}, true},
		{config{Model: Model{Servers: 10, Load: 0.5, Sizes: p(1.5), Period: 1}, Settings: Settings{Horizon: 10}}, true},
	} {
		if got, why := c.c.sojournFinite(); got != c.want || got == (why != "") {
			t.Errorf("%s: finite %v (%q), want %v", c.c.Describe(), got, why, c.want)
		}
	}
}

// No NaN or infinity in any estimate of a grid of extreme but valid runs.
func TestNoNonFiniteResults(t *testing.T) {
	p := func(s string) farm.Policy {
		q, err := farm.ParsePolicy(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for _, c := range []config{
		{Model: Model{Servers: 1, Load: 0.999}, Settings: Settings{Jobs: 2000, Reps: 2}},
		{Model: Model{Servers: 1, Load: 1e-6}, Settings: Settings{Jobs: 100, Reps: 2}},
		{Model: Model{Servers: 5, Load: 0.5}, Settings: Settings{Jobs: 10, Reps: 1}},
		{Model: Model{Servers: 20, Load: 0.9, Discipline: farm.PS, Sizes: farm.Sizes{Kind: farm.H2, SCV: 9}}, Settings: Settings{Jobs: 1, Warmup: -1, Reps: 2}},
		{Model: Model{Servers: 20, Load: 0.9, Discipline: farm.PS, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 1.5}}, Settings: Settings{Jobs: 5000, Reps: 3}},
		{Model: Model{Servers: 20, Load: 0.9, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 2.01}, Policy: p("least-work")}, Settings: Settings{Jobs: 5000, Reps: 3}},
		{Model: Model{Servers: 10, Load: 100, Policy: p("jiq-blocking")}, Settings: Settings{Jobs: 1000, Reps: 4}},
		{Model: Model{Servers: 10, Load: 0.9, Policy: p("jiq-queueing"), Exchange: 900, Alpha: []float64{0.999, 0.001}}, Settings: Settings{Jobs: 1000, Reps: 2}},
		{Model: Model{Servers: 10, Load: 0.9, Policy: p("board-jsq"), Period: 2e-4}, Settings: Settings{Jobs: 1000, Reps: 2, CorrelationAge: 0.012}},
		{Model: Model{Servers: 10, Load: 0.9, Policy: p("tally"), Dispatchers: 10, Period: 1e6, Start: farm.Start{Kind: farm.Hot, Jobs: 1000}}, Settings: Settings{Jobs: 1000, Reps: 2}},
		{Model: Model{Servers: 10, Load: 0.9}, Settings: Settings{Jobs: 1000, Reps: 3, Level: MaxLevel}},
		{Model: Model{Servers: 10, Load: 0.9}, Settings: Settings{Jobs: 1000, Reps: 2, Level: 1e-9}},
	} {
		// As a transient, and as a steady-state run, which may be refused
		// (a *param.Error naming Jobs, or the sizes or load that its
		// batches cannot resolve) but must not be filled with NaNs.
		for _, transient := range []bool{true, false} {
			c.Transient = transient
			r, err := run(c)
			var pe *param.Error
			if !transient && errors.As(err, &pe) && (pe.Param == "Jobs" || pe.Param == "Sizes" || pe.Param == "Load") {
				continue
			}
			if err != nil {
				t.Errorf("%s (transient %v): %v", c.Describe(), transient, err)
				continue
			}
			if path, ok := nonFiniteIn(reflect.ValueOf(r).Elem(), "Result"); ok {
				t.Errorf("%s (transient %v): %s is not finite", c.Describe(), transient, path)
			}
		}
	}
}

// nonFiniteIn finds a NaN or infinite float64 in v (the model, the
// settings and the per-replication series aside).
func nonFiniteIn(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.Float64:
		return path, math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)
	case reflect.Pointer:
		if v.IsNil() {
			return "", false
		}
		return nonFiniteIn(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Name == "Model" || f.Name == "Settings" {
				continue
			}
			if p, ok := nonFiniteIn(v.Field(i), path+"."+f.Name); ok {
				return p, true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, ok := nonFiniteIn(v.Index(i), path); ok {
				return p, true
			}
		}
	}
	return "", false
}
