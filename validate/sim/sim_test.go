package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/jackson"
)

// agrees reports whether the simulated estimate agrees with a theory value:
// |mean − x| ≤ 1.5·CI95 + rel·|x|. The factor 1.5 on a Student-t 95%
// half-width with 7 degrees of freedom covers about 99% (t₇ = 3.55), so a
// correct simulator fails such a check about once in a hundred seeds; rel
// is a stated finite-N or published-rounding allowance.
func agrees(e Estimate, x, rel float64) bool {
	return math.Abs(e.Mean-x) <= 1.5*e.CI95+rel*math.Abs(x)
}

func mustRun(t *testing.T, c Config) *Result {
	t.Helper()
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The calendar against a linear scan under random operations.
func TestCalendar(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const n = 50
	c := newCalendar(n)
	ref := make([]float64, n)
	for i := range ref {
		ref[i] = math.Inf(1)
	}
	for range 20000 {
		i := rnd.IntN(n)
		if rnd.IntN(3) == 0 {
			c.remove(i)
			ref[i] = math.Inf(1)
		} else {
			v := rnd.Float64()
			c.set(i, v)
			ref[i] = v
		}
		best, bv := -1, math.Inf(1)
		for j, v := range ref {
			if v < bv {
				best, bv = j, v
			}
		}
		s, v, ok := c.min()
		if ok != (best >= 0) || (ok && (s != best || v != bv)) {
			t.Fatalf("calendar min (%d, %v, %v), scan (%d, %v)", s, v, ok, best, bv)
		}
	}
}

// The level buckets against brute force: the minimum, membership of the
// picked server, and uniformity of the pick among the minimisers.
func TestLevels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	r := newRNG(5, 0)
	const n = 40
	for _, base := range []int{0, 7} {
		vals := make([]int32, base+n)
		for i := range n {
			vals[base+i] = int32(rnd.IntN(4))
		}
		l := newLevels(base, n)
		l.build(vals)
		for step := range 20000 {
			i := base + rnd.IntN(n)
			if rnd.IntN(2) == 0 || vals[i] == 0 {
				l.inc(i)
				vals[i]++
			} else {
				l.dec(i)
				vals[i]--
			}
			if step%1000 == 0 {
				l.build(vals)
			}
			lo := int32(math.MaxInt32)
			for _, v := range vals[base:] {
				lo = min(lo, v)
			}
			if int32(l.min) != lo {
				t.Fatalf("step %d: min %d, want %d", step, l.min, lo)
			}
			if p := l.pickMin(r); vals[p] != lo || p < base || p >= base+n {
				t.Fatalf("step %d: picked %d with value %d, min %d", step, p, vals[p], lo)
			}
			for j := range n {
				if l.val[j] != vals[base+j] || l.order[l.pos[j]] != int32(j) {
					t.Fatalf("step %d: server %d inconsistent", step, j)
				}
			}
		}
	}
	// Uniform among ties: 4 of 8 servers at the minimum, 40,000 picks;
	// each count is Binomial(40000, 1/4): sd 87, so ±500 is > 5 sd.
	vals := []int32{0, 1, 0, 2, 0, 1, 0, 3}
	l := newLevels(0, len(vals))
	l.build(vals)
	counts := map[int]int{}
	for range 40000 {
		counts[l.pickMin(r)]++
	}
	for _, i := range []int{0, 2, 4, 6} {
		if math.Abs(float64(counts[i])-10000) > 500 {
			t.Errorf("tie pick counts %v", counts)
		}
	}
}

// Exact anchors (SPEC §2): random dispatch makes every server an M/G/1
// queue, with mean time in system 1 + λ(1+c²)/(2(1−λ)) under FCFS
// (Pollaczek–Khinchine) and 1/(1−λ) under PS for any size law.
func TestRandomDispatchAnchors(t *testing.T) {
	const load = 0.9
	for _, c := range []struct {
		sizes string
		jobs  int
	}{
		{"exp", 400_000}, {"det", 400_000}, {"h2:30", 2_000_000}, {"pareto:3.5", 800_000}, {"pareto:2.5", 800_000},
	} {
		z, err := ParseSizes(c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []Discipline{FCFS, PS} {
			want := 1 / (1 - load)
			if d == FCFS {
				if z.Kind == Pareto && z.Shape <= 3 {
					continue // E[S³] = ∞: the FCFS sample mean converges too slowly to test
				}
				want = 1 + load*(1+z.SquaredCV())/(2*(1-load))
			}
			// Ten servers: each is an M/G/1 queue whatever N is.
			r := mustRun(t, Config{Servers: 10, Load: load, Discipline: d, Sizes: z, Jobs: c.jobs, Seed: 11})
			if !agrees(r.Sojourn, want, 0) {
				t.Errorf("random %v %s: sojourn %.4f ± %.4f, theory %.4f", d, c.sizes, r.Sojourn.Mean, r.Sojourn.CI95, want)
			}
			if d == PS && !agrees(r.Slowdown, want, 0) {
				// M/G/1-PS: E[T | size x] = x/(1−λ), so time/size averages 1/(1−λ).
				t.Errorf("random PS %s: slowdown %.4f ± %.4f, theory %.4f", c.sizes, r.Slowdown.Mean, r.Slowdown.CI95, want)
			}
		}
	}
}

// Round robin with exponential FCFS servers: each server sees Erlang-N
// interarrival times, an E_N/M/1 queue with mean time 1/(1−σ), σ the root
// of σ = (λN/(λN + 1 − σ))^N. At N = 100, λ = 0.9: 5.2268.
func TestRoundRobinErlang(t *testing.T) {
	const n, load = 100, 0.9
	sigma := 0.5
	for range 200 {
		sigma = math.Pow(load*n/(load*n+1-sigma), n)
	}
	want := 1 / (1 - sigma)
	if math.Abs(want-5.2268) > 1e-4 {
		t.Fatalf("E_N/M/1 reference %.5f, the issue quotes 5.2268", want)
	}
	r := mustRun(t, Config{Servers: n, Load: load, Policy: Policy{Kind: RoundRobin}, Jobs: 500_000, Seed: 3})
	if !agrees(r.Sojourn, want, 0) {
		t.Errorf("round robin: %.4f ± %.4f, E_N/M/1 %.4f", r.Sojourn.Mean, r.Sojourn.CI95, want)
	}
}

// With exponential sizes a count-based policy sees the same count dynamics
// under FCFS and PS, so the mean time in system is the same.
func TestCountPoliciesInsensitiveToDiscipline(t *testing.T) {
	for _, p := range []string{"jsqd:2", "jsq", "tally"} {
		pol, _ := ParsePolicy(p)
		c := Config{Servers: 100, Load: 0.9, Policy: pol, Jobs: 400_000, Seed: 5}
		if pol.Kind == Tally {
			c.Dispatchers, c.Period = 5, 200
		}
		f := mustRun(t, c)
		c.Discipline = PS
		c.Seed = 6
		s := mustRun(t, c)
		diff := math.Abs(f.Sojourn.Mean - s.Sojourn.Mean)
		if diff > 1.5*math.Hypot(f.Sojourn.CI95, s.Sojourn.CI95) {
			t.Errorf("%s: FCFS %.4f ± %.4f, PS %.4f ± %.4f", p, f.Sojourn.Mean, f.Sojourn.CI95, s.Sojourn.Mean, s.Sojourn.CI95)
		}
	}
}

// JIQ blocking at N = 100 against the exact product form (SPEC §3.5): both
// are exact at finite N, so no allowance.
func TestJIQBlockingProductForm(t *testing.T) {
	for _, c := range []struct {
		load        float64
		alpha, beta []float64
	}{
		{0.9, []float64{0.7, 0.3}, nil},
		{1.2, []float64{0.5, 0.3, 0.2}, nil},
		{0.9, []float64{0.7, 0.3}, []float64{0.7, 0.3}},
	} {
		exact, err := jackson.JIQBlocking(100, c.load, c.alpha, c.beta)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, Config{Servers: 100, Load: c.load, Alpha: c.alpha, Beta: c.beta, Policy: Policy{Kind: JIQBlocking}, Jobs: 400_000, Seed: 9})
		if !agrees(r.Blocking, exact.Blocking, 0) {
			t.Errorf("λ=%v α=%v β=%v: blocking %.5f ± %.5f, product form %.5f", c.load, c.alpha, c.beta, r.Blocking.Mean, r.Blocking.CI95, exact.Blocking)
		}
		if r.Sojourn.Mean < 0.97 || r.Sojourn.Mean > 1.03 || r.WaitProb.Mean != 0 {
			t.Errorf("blocking JIQ jobs never wait: sojourn %v, P(wait>0) %v", r.Sojourn.Mean, r.WaitProb.Mean)
		}
	}
}

// JIQ queueing, R = 2 basic: the fraction sent at random tends to λ₂*/λ
// with λ₂* = λ(α₁ − ½)/(1 − λα₁)·(1 − λ₂*)… (SPEC §3.4: E[W] → λ(α₁ −
// ½)/(1 − λα₁)); at N = 2,000 the finite-N bias is a few per cent.
func TestJIQQueueingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 2,000 JIQ run")
	}
	const load, a1 = 0.5, 0.7
	ew := load * (a1 - 0.5) / (1 - load*a1) // E[W] → λ₂/(1−λ₂)
	l2 := ew / (1 + ew)
	r := mustRun(t, Config{Servers: 2000, Load: load, Alpha: []float64{a1, 1 - a1}, Policy: Policy{Kind: JIQQueueing}, Jobs: 1_000_000, Reps: 4, Seed: 13})
	t.Logf("E[W] %.4f ± %.4f (limit %.4f); sent at random %.4f ± %.4f (limit %.4f)", r.Wait.Mean, r.Wait.CI95, ew, r.RandomFraction.Mean, r.RandomFraction.CI95, l2/load)
	if !agrees(r.Wait, ew, 0.05) || !agrees(r.RandomFraction, l2/load, 0.05) {
		t.Errorf("E[W] %.4f ± %.4f (limit %.4f), sent at random %.4f ± %.4f (limit %.4f)", r.Wait.Mean, r.Wait.CI95, ew, r.RandomFraction.Mean, r.RandomFraction.CI95, l2/load)
	}
	// Token exchange above ν* = (Rα₁ − 1)λ/(1 − λ) = 0.4 gives zero wait
	// in the limit; at N = 2,000 the wait is small.
	r = mustRun(t, Config{Servers: 2000, Load: load, Alpha: []float64{a1, 1 - a1}, Policy: Policy{Kind: JIQQueueing}, Exchange: 2, Jobs: 400_000, Reps: 4, Seed: 14})
	if r.Wait.Mean > 0.02 {
		t.Errorf("with ν = 2 > ν* = 0.4: E[W] = %.4f, want ≈ 0", r.Wait.Mean)
	}
}

// Seed 000 at N = 100, k = 5, λ = 0.9, T = 1,100 (SPEC §1.3): the balanced
// start stays balanced (≈ 6.4), the half-loaded start (B = 0.1·T) herds
// (≈ 449, 0.40·T), both within 15%; partitioned dispatchers stay within
// 3.9–5.5 from either start.
func TestSeed000Bistability(t *testing.T) {
	if testing.Short() {
		t.Skip("herd runs of 20 refresh periods")
	}
	const T = 1100
	base := Config{Servers: 100, Load: 0.9, Dispatchers: 5, Policy: Policy{Kind: Tally}, Period: T,
		Jobs: 2_000_000, Warmup: 500_000, Reps: 4, Seed: 21}
	bal := mustRun(t, base)
	half := base
	half.Start = Start{Kind: Half, Jobs: T / 10}
	herd := mustRun(t, half)
	t.Logf("balanced start %.3f ± %.3f; half-loaded %.1f ± %.1f (%.3f·T)", bal.Sojourn.Mean, bal.Sojourn.CI95, herd.Sojourn.Mean, herd.Sojourn.CI95, herd.Sojourn.Mean/T)
	if !agrees(bal.Sojourn, 6.4, 0.15) || bal.Tipped != 0 {
		t.Errorf("balanced start: %.3f ± %.3f (seed 6.4), tipped %d", bal.Sojourn.Mean, bal.Sojourn.CI95, bal.Tipped)
	}
	if !agrees(herd.Sojourn, 449, 0.15) || herd.Tipped != base.Reps {
		t.Errorf("half-loaded start: %.1f ± %.1f (seed 449), tipped %d", herd.Sojourn.Mean, herd.Sojourn.CI95, herd.Tipped)
	}
	for _, st := range []Start{{}, {Kind: Half, Jobs: T / 10}} {
		c := base
		c.Policy, c.Start = Policy{Kind: Partitioned}, st
		r := mustRun(t, c)
		t.Logf("partitioned from %v: %.3f ± %.3f", st, r.Sojourn.Mean, r.Sojourn.CI95)
		if r.Sojourn.Mean < 3.9 || r.Sojourn.Mean > 5.5 || r.Tipped != 0 {
			t.Errorf("partitioned from %v: %.3f ± %.3f (seed 3.9–5.5), tipped %d", st, r.Sojourn.Mean, r.Sojourn.CI95, r.Tipped)
		}
	}
}

// Seed 000 at N = 1,600, k = 5, λ = 0.9, T = 400: mean board 5.50 (SPEC
// §1.3 simulation column) within 2%.
func TestSeed000Board1600(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 1,600 over 20 refresh periods")
	}
	r := mustRun(t, Config{Servers: 1600, Load: 0.9, Dispatchers: 5, Policy: Policy{Kind: Tally}, Period: 400,
		Jobs: 5_000_000, Warmup: 1_000_000, Reps: 4, Seed: 22})
	if r.BoardMean != nil {
		t.Logf("mean board %.4f ± %.4f", r.BoardMean.Mean, r.BoardMean.CI95)
	}
	if r.BoardMean == nil || !agrees(*r.BoardMean, 5.50, 0.02) {
		t.Errorf("mean board %+v, seed 5.50 within 2%%", r.BoardMean)
	}
}

// Seed 002's table (SPEC §2), N = 100, λ = 0.9: every cell within 3% or
// 1.5 CI if wider (the published values are rounded to 0.1, which the 3%
// covers except at 1.07; their own noise is about 1%).
func TestSeed002Table(t *testing.T) {
	if testing.Short() {
		t.Skip("the 30-cell table runs about a minute")
	}
	type cell struct {
		policy, sizes string
		d             Discipline
		want          float64
		jobs          int
	}
	var cells []cell
	table := []struct {
		sizes string
		vals  [6]float64 // random, rr, best of two: FCFS then PS
	}{
		{"exp", [6]float64{10.0, 5.2, 2.64, 10.0, 5.2, 2.64}},
		{"h2:4", [6]float64{23.4, 18.6, 4.2, 10.0, 7.8, 2.64}},
		{"h2:10", [6]float64{51.1, 45.5, 6.8, 10.2, 8.8, 2.64}},
		{"h2:30", [6]float64{139.9, 132.5, 15.2, 10.0, 9.1, 2.66}},
	}
	for _, row := range table {
		for j, p := range []string{"random", "rr", "jsqd:2", "random", "rr", "jsqd:2"} {
			d := FCFS
			if j >= 3 {
				d = PS
			}
			jobs := 2_000_000
			cells = append(cells, cell{p, row.sizes, d, row.vals[j], jobs})
		}
	}
	cells = append(cells,
		cell{"jsq", "h2:30", PS, 1.07, 1_000_000},
		cell{"jsq", "exp", PS, 1.07, 1_000_000},
		cell{"jsq", "h2:30", FCFS, 1.50, 2_000_000},
		cell{"least-work", "h2:30", FCFS, 1.18, 2_000_000},
		cell{"least-work", "h2:30", PS, 1.21, 2_000_000},
	)
	for i, c := range cells {
		pol, err := ParsePolicy(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		z, err := ParseSizes(c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, Config{Servers: 100, Load: 0.9, Policy: pol, Discipline: c.d, Sizes: z, Jobs: c.jobs, Seed: uint64(100 + i)})
		ok := agrees(r.Sojourn, c.want, 0.03)
		t.Logf("%-10s %-6s %-4v seed %6.2f  sim %8.3f ± %.3f %v", c.policy, c.sizes, c.d, c.want, r.Sojourn.Mean, r.Sojourn.CI95, ok)
		if !ok {
			t.Errorf("%s %s %v: %.3f ± %.3f, seed %.2f", c.policy, c.sizes, c.d, r.Sojourn.Mean, r.Sojourn.CI95, c.want)
		}
	}
}

// A run is a pure function of its configuration: the same numbers on one
// worker and on four, and different numbers for another seed.
func TestDeterministic(t *testing.T) {
	c := Config{Servers: 50, Load: 0.8, Dispatchers: 3, Policy: Policy{Kind: Tally}, Period: 30, Jobs: 20_000, Reps: 4, Seed: 7, Series: true}
	c.Workers = 1
	a := mustRun(t, c)
	c.Workers = 4
	b := mustRun(t, c)
	for i := range a.Reps {
		ra, rb := a.Reps[i], b.Reps[i]
		if ra.Sojourn != rb.Sojourn || ra.Events != rb.Events || len(ra.Boards) != len(rb.Boards) {
			t.Fatalf("rep %d differs between 1 and 4 workers", i)
		}
	}
	if a.Sojourn != b.Sojourn {
		t.Errorf("estimates differ: %+v vs %+v", a.Sojourn, b.Sojourn)
	}
	c.Seed = 8
	if d := mustRun(t, c); d.Sojourn.Mean == a.Sojourn.Mean {
		t.Error("another seed gave the same mean")
	}
}

// Every policy runs, conserves jobs, and measures exactly the jobs asked.
func TestEveryPolicyRuns(t *testing.T) {
	for _, p := range []string{"random", "rr", "jsq", "jsqd:2", "least-work", "board-jsq", "board-jsqd:3", "tally",
		"shared-tally", "partitioned", "tally-jsqd:2", "jiq-blocking", "jiq-queueing"} {
		for _, d := range []Discipline{FCFS, PS} {
			pol, err := ParsePolicy(p)
			if err != nil {
				t.Fatal(err)
			}
			c := Config{Servers: 30, Load: 0.7, Dispatchers: 3, Policy: pol, Discipline: d, Sizes: Sizes{Kind: H2, SCV: 4},
				Period: 10, Jobs: 5000, Reps: 2, Seed: 1, Start: Start{Kind: Spread, Jobs: 4}, CorrelationAge: 5}
			if !pol.usesBoard() {
				c.Period = 0
			}
			if pol.JIQ() {
				c.Exchange = 0.5
			}
			r := mustRun(t, c)
			for _, rep := range r.Reps {
				if rep.Jobs != 5000 {
					t.Errorf("%s: %d jobs measured", p, rep.Jobs)
				}
			}
			if !(r.Sojourn.Mean > 0) || math.IsNaN(r.Sojourn.CI95) || r.Blocking.Mean < 0 || r.Blocking.Mean >= 1 {
				t.Errorf("%s %v: %+v", p, d, r.Sojourn)
			}
			if (pol.Kind == JIQBlocking) != (r.Blocking.Mean > 0) {
				t.Errorf("%s: blocking %v", p, r.Blocking.Mean)
			}
			if r.Correlation == nil || math.Abs(r.Correlation.Mean) > 1 {
				t.Errorf("%s: correlation %+v", p, r.Correlation)
			}
		}
	}
}

func TestBadConfig(t *testing.T) {
	good := Config{Servers: 10, Load: 0.5}
	for _, c := range []struct {
		mod   func(*Config)
		param string
	}{
		{func(c *Config) { c.Servers = 0 }, "servers"},
		{func(c *Config) { c.Load = 0 }, "load"},
		{func(c *Config) { c.Load = math.NaN() }, "load"},
		{func(c *Config) { c.Load = 1 }, "load"},
		{func(c *Config) { c.Load = 1.5; c.Policy = Policy{Kind: JSQ} }, "load"},
		{func(c *Config) { c.Dispatchers = 20; c.Policy = Policy{Kind: Partitioned}; c.Period = 5 }, "dispatchers"},
		{func(c *Config) { c.Policy = Policy{Kind: Tally} }, "period"},
		{func(c *Config) { c.Period = -1 }, "period"},
		{func(c *Config) { c.Alpha = []float64{0.5, 0.6} }, "alpha"},
		{func(c *Config) { c.Alpha = []float64{1, 0} }, "alpha"},
		{func(c *Config) { c.Beta = []float64{1} }, "beta"},
		{func(c *Config) {
			c.Policy = Policy{Kind: JIQBlocking}
			c.Alpha = []float64{0.5, 0.5}
			c.Beta = []float64{1}
		}, "beta"},
		{func(c *Config) { c.Policy = Policy{Kind: JIQQueueing}; c.Exchange = -1 }, "exchange"},
		{func(c *Config) { c.Exchange = 1 }, "exchange"},
		{func(c *Config) { c.Policy = Policy{Kind: JSQd, D: 11} }, "policy"},
		{func(c *Config) { c.Policy = Policy{Kind: JSQd} }, "policy"},
		{func(c *Config) { c.Sizes = Sizes{Kind: H2, SCV: 1} }, "sizes"},
		{func(c *Config) { c.Sizes = Sizes{Kind: Pareto, Shape: 1} }, "sizes"},
		{func(c *Config) { c.Jobs = -5 }, "jobs"},
		{func(c *Config) { c.Reps = -1 }, "reps"},
		{func(c *Config) { c.Warmup = -2 }, "warmup"},
	} {
		cfg := good
		c.mod(&cfg)
		_, err := Run(cfg)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: error %v, want one naming %q", cfg, err, c.param)
		}
	}
	// Blocking JIQ may be overloaded.
	if _, err := Run(Config{Servers: 10, Load: 2, Policy: Policy{Kind: JIQBlocking}, Jobs: 100, Reps: 2}); err != nil {
		t.Errorf("JIQ blocking at λ = 2: %v", err)
	}
	for _, s := range []string{"exp:1", "h2", "h2:x", "gamma:2"} {
		if _, err := ParseSizes(s); err == nil {
			t.Errorf("sizes %q accepted", s)
		}
	}
	for _, s := range []string{"jsqd", "jsqd:0", "random:2", "best"} {
		if _, err := ParsePolicy(s); err == nil {
			t.Errorf("policy %q accepted", s)
		}
	}
	for _, s := range []string{"half", "half:-1", "empty:3", "hot:x", "cold:1"} {
		if _, err := ParseStart(s); err == nil || !strings.Contains(err.Error(), "start") {
			t.Errorf("start %q: %v", s, err)
		}
	}
}

// Seed 002: under random dispatch with PS servers, the correlation between
// a server's count on a 500-unit-old board and its count now is 0.05 for
// exponential sizes and 0.67 at SCV 30 (allowance 0.03: the seed's own
// estimates carry about that much noise at N = 100).
func TestBoardAgeCorrelation(t *testing.T) {
	if testing.Short() {
		t.Skip("long runs for the correlation")
	}
	for _, c := range []struct {
		sizes Sizes
		want  float64
	}{{Sizes{}, 0.05}, {Sizes{Kind: H2, SCV: 30}, 0.67}} {
		r := mustRun(t, Config{Servers: 100, Load: 0.9, Discipline: PS, Sizes: c.sizes, CorrelationAge: 500, Jobs: 2_000_000, Reps: 4, Seed: 31})
		t.Logf("%v: correlation %.3f ± %.3f (seed %.2f)", c.sizes, r.Correlation.Mean, r.Correlation.CI95, c.want)
		if r.Correlation == nil || math.Abs(r.Correlation.Mean-c.want) > 1.5*r.Correlation.CI95+0.03 {
			t.Errorf("%v: correlation %+v, seed %.2f", c.sizes, r.Correlation, c.want)
		}
	}
}

// No allocation per event: the only allocations after set-up are a queue
// doubling when it reaches a record length and the board series growing,
// both logarithmic in the run length, so nine times more events (≈ 360,000)
// may cost at most a few hundred more allocations (< 1e-3 per event; one
// per event would be 360,000).
func TestNoAllocationPerEvent(t *testing.T) {
	for _, p := range []Policy{{Kind: JSQd, D: 2}, {Kind: Tally}, {Kind: JIQQueueing}} {
		c, err := Config{Servers: 100, Load: 0.9, Dispatchers: 2, Policy: p, Period: 50, Discipline: PS, Jobs: 20_000, Warmup: -1, Reps: 1}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		small := testing.AllocsPerRun(2, func() { runRep(c, 0) })
		c.Jobs *= 10
		large := testing.AllocsPerRun(2, func() { runRep(c, 0) })
		if large-small > 1e-3*360_000 {
			t.Errorf("%v: %v allocations for 20,000 jobs, %v for 200,000 (%.2g events)", p, small, large, 2e5*2.0)
		}
	}
}

// SampleTimes: with one dispatcher and λ = 0.5, blocking JIQ from the
// empty system is (almost never blocking) an M/M/∞ system: the busy
// fraction is λ(1 − e^{−t}); allowance 2/N for the finite-N bias.
func TestSampleTimes(t *testing.T) {
	times := []float64{0, 1, 3}
	r := mustRun(t, Config{Servers: 1000, Load: 0.5, Policy: Policy{Kind: JIQBlocking}, Jobs: 1, Warmup: -1, Reps: 16, SampleTimes: times, Seed: 4})
	if len(r.Trajectory) != len(times) {
		t.Fatalf("%d trajectory points", len(r.Trajectory))
	}
	for i, p := range r.Trajectory {
		want := 0.5 * (1 - math.Exp(-times[i]))
		if p.T != times[i] || !agrees(p.Busy, want, 2.0/1000) || math.Abs(p.Busy.Mean+p.Tokens[0].Mean-1) > 1e-12 {
			t.Errorf("t=%v: busy %+v (want %.4f), tokens %+v", p.T, p.Busy, want, p.Tokens[0])
		}
		if math.Abs(p.Occupancy[0].Mean+p.Occupancy[1].Mean-1) > 1e-12 {
			t.Errorf("t=%v: blocking JIQ servers hold more than one job: %+v", p.T, p.Occupancy)
		}
	}
	if _, err := Run(Config{Servers: 10, Load: 0.5, SampleTimes: []float64{2, 1}}); err == nil {
		t.Error("decreasing sample times accepted")
	}
}
