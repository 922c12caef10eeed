package sim

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Bounds on a run, checked by Run (and Normalized) before anything
// of the size of the run is allocated or simulated, so that a mistyped
// number gives an error naming its field instead of exhausting memory,
// running for months or printing a number the run cannot support.
const (
	// MaxHorizon bounds Settings.Horizon.
	MaxHorizon = 1_000_000
	// MaxReps bounds Settings.Reps (each replication
	// keeps its own result: about a kilobyte, more with SampleTimes,
	// Series or RecordFinal).
	MaxReps = 100_000
	// MaxArrivals is the work budget of a whole run, in operations of
	// about the cost of one arrival: the arrivals of every replication
	// (warm-up, and those that arrive while the measured jobs drain,
	// included), each with its policy's extra work (the D draws of best of
	// D, the N servers that least-work scans; an arrival at N servers costs
	// 1 + log₂(N/100)/2, the heap's cache misses), and N server reads at each
	// refresh of the board that follows a change, at each correlation
	// snapshot and at each sample time (expected numbers). 10¹² is about a
	// day of one core.
	MaxArrivals = 1e12
	// MaxMemory bounds the memory of a run: one replication's state (its
	// servers, queues, board and tallies, JIQ tokens, start jobs) may use
	// at most half of it, and Run runs at once only as many replications
	// as fit in what the kept results leave (whatever Workers says: the
	// results do not depend on it). The kept results (Series, SampleTimes,
	// RecordFinal) of all replications are bounded by maxKept numbers.
	MaxMemory = 4 << 30
	// MaxPerArrival bounds the board refreshes (1/(λNT) per arrival) and
	// the token exchanges (ν/λ) of a run against its arrivals, or a
	// million of each per replication if that is more. A board refreshed
	// a thousand times between two arrivals is live in all but name, and
	// tokens that move a thousand times as often as jobs arrive are as
	// good as spread at once; below the bound these timers cost at most a
	// thousand cheap events per arrival (a refresh reads the queues only
	// after a change).
	MaxPerArrival = 1000
	// MaxSnapshotsPerArrival bounds the correlation snapshots per arrival
	// (1/(λNA)), each of which reads the N queues: at most 10 (or 10⁴ per
	// replication). Between two snapshots less than a tenth of the time
	// between arrivals apart, most of the time nothing moves.
	MaxSnapshotsPerArrival = 10
	// MaxTime bounds the simulated duration of a replication (the
	// expected time of its arrivals, plus the largest start queue to
	// drain, or the Horizon, or the last sample time), in mean service
	// times: 2⁴⁰ ≈ 1.1·10¹², where event times still resolve 2⁻¹² of a
	// mean service time.
	MaxTime = 1 << 40
	// MaxSizeError bounds how badly a replication can miss the mean job
	// size (see SizeError): the typical relative error of the mean size of
	// the jobs that make one sample of the intervals (a replication's
	// measured jobs; a batch's, with one replication) must be at most
	// max(MaxSizeError, 3/√n), the second term allowing anything within
	// three times the error of n exponential sizes. Heavier tails are
	// refused: their rare large jobs, which carry the mean, would be
	// missing from most samples, and the intervals would be narrow around
	// a wrong value (h2:10¹² with 100,000 jobs: 0.527 ± 0.001).
	MaxSizeError = 0.1
	// MaxLevel bounds Settings.Level (the Student t quantile must stay
	// finite).
	MaxLevel = 0.999999
	// MaxSampleTimes bounds len(Settings.SampleTimes).
	MaxSampleTimes = 100_000
	// maxKept bounds the numbers kept per replication, all replications
	// together (Samples, FinalQueues, board series).
	maxKept = 1 << 28
	// minTimerEvents is the number of events of each timer that a
	// replication may have whatever its arrivals (MaxPerArrival).
	minTimerEvents = 1_000_000
	// maxServers bounds Model.Servers (server indices are int32); the
	// memory bound is usually the tighter one.
	maxServers = 1 << 28
)

// SizeError is the typical relative error of the mean of n job sizes
// drawn from z (mean 1): √(SCV/n) for exp, det and H2; for Pareto of shape
// a, the mass that n draws typically miss, n^(−(a−1)/a) (the mean of the
// sizes above the one exceeded once in n draws), plus √(v/n) with v the
// variance of a size truncated there — √(SCV/n) for large n when a > 2,
// and of order n^(−(a−1)/a) too when a ≤ 2, where the variance is
// infinite. Run refuses runs whose samples would miss the
// mean size by more than max(MaxSizeError, 3/√n).
func SizeError(z farm.Sizes, n float64) float64 {
	if !(n >= 1) {
		n = 1
	}
	if z.Kind != farm.Pareto {
		return math.Sqrt(z.SquaredCV() / n)
	}
	a := z.Shape
	xm := (a - 1) / a
	l := math.Log(n)
	miss := math.Exp(-(a - 1) / a * l) // 1 − E[S; S ≤ M], M = x_m·n^(1/a)
	// E[S²; S ≤ M] = a·x_m^a·(M^(2−a) − x_m^(2−a))/(2−a) = x_m²·(e^(gL) − 1)/g
	// with g = (2−a)/a (x_m²·L at a = 2).
	g := (2 - a) / a
	m2 := xm * xm * l
	if g != 0 {
		m2 = xm * xm * math.Expm1(g*l) / g
	}
	m1 := 1 - miss
	v := math.Max(m2-m1*m1, 0)
	return miss + math.Sqrt(v/n)
}

// sizeSample is the number of jobs behind one sample of the intervals: a
// replication's observed jobs over the fewest batches it may be cut into
// (minBatchesPerRep), or a transient replication's jobs (for a Horizon
// run, the expected measured arrivals). A sequential run is judged by its
// share of the budget: whether the longest run it may take resolves the
// sizes.
func (c *config) sizeSample() float64 {
	n := float64(c.Jobs)
	if c.sequential() {
		n = float64(c.jobsPerRep()) // what the budget can resolve
	}
	if c.Horizon > 0 {
		n = c.Load*float64(c.Servers)*float64(c.Horizon)*c.Period - float64(c.Warmup)
	}
	if c.steady() {
		n /= float64(c.minBatchesPerRep())
	}
	return max(n, 1)
}

// minBatchesPerRep is the fewest batches a replication's observations are
// cut into for an interval: ⌈MinBatches/Reps⌉ (one when there are enough
// replications; see package steadystate).
func (c *config) minBatchesPerRep() int {
	return max(1, (MinBatches+c.Reps-1)/c.Reps)
}

// checkSizes refuses the job sizes whose mean the run cannot resolve (see
// MaxSizeError) and, under FCFS, the Pareto laws that make the mean time
// in system infinite (see sojournFinite).
func (c *config) checkSizes() error {
	z := c.Sizes
	if finite, why := c.sojournFinite(); !finite {
		return param.Errorf("Sizes", "%s", why)
	}
	if z.Kind == farm.H2 || z.Kind == farm.Pareto {
		n := c.sizeSample()
		e, allowed := SizeError(z, n), math.Max(MaxSizeError, 3/math.Sqrt(n))
		if e > allowed {
			what := "a replication's"
			if c.steady() && c.minBatchesPerRep() > 1 {
				what = fmt.Sprintf("a batch's (%d batches per replication)", c.minBatchesPerRep())
			}
			need := "a smaller SCV"
			if z.Kind == farm.Pareto {
				need = "a larger shape"
			}
			if m := jobsToResolve(z); m > 0 {
				per := m
				if c.steady() {
					per *= float64(c.minBatchesPerRep())
				}
				need += fmt.Sprintf(", or at least %.3g measured jobs per replication", per)
			}
			return param.Errorf("Sizes", "%v sizes cannot be resolved by this run: the mean size of %s %.6g jobs would typically be off by %.3g%%, more than the %.3g%% allowed (the rare large jobs that carry the mean would be missing); use %s",
				z, what, n, 100*e, 100*allowed, need)
		}
	}
	return nil
}

// jobsToResolve is the least n with SizeError(z, n) ≤ MaxSizeError, or 0
// if it is beyond any run (10¹⁵).
func jobsToResolve(z farm.Sizes) float64 {
	lo, hi := 1.0, 1e15
	if SizeError(z, hi) > MaxSizeError {
		return 0
	}
	for hi/lo > 1.01 {
		mid := math.Sqrt(lo * hi)
		if SizeError(z, mid) > MaxSizeError {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Ceil(hi)
}

// sojournFinite reports whether the mean time in system E[T] of c's model
// is finite, and why not (one line). It is infinite only under FCFS with
// Pareto sizes of shape a ≤ 2, whose E[S²] is infinite:
//
//   - Under every policy that may send a job to a busy server without
//     knowing the work there (random, round robin, the JSQ and board
//     policies, the tallies, JIQ queueing), a job that finds its server
//     busy waits for the rest of the job in service, whose mean is
//     E[S²]/(2E[S]) = ∞ (with Poisson arrivals every server is busy with
//     positive probability). Each server is then a GI/G/1 queue or worse.
//   - Least-work is the M/G/N FCFS queue (a job starts as soon as a server
//     has finished all the work before it): its mean wait is finite
//     exactly when E[S^(1+1/(N−⌊λN⌋))] is (Scheller-Wolf and Vesilo,
//     Queueing Systems 54, 2006), that is a > 1 + 1/(N − ⌊λN⌋).
//   - JIQ blocking: no job waits (T = S).
//   - PS: finite (random dispatch gives M/G/1-PS, E[T] = 1/(1−λ) for
//     every size law; the other policies only do better).
//
// As for SlowdownFinite, the rule is about the long-run mean that a run of
// Jobs estimates; Horizon runs, which measure only the jobs that finish
// within the horizon, are not refused.
func (c config) sojournFinite() (finite bool, why string) {
	z := c.Sizes
	if c.Discipline != farm.FCFS || z.Kind != farm.Pareto || z.Shape > 2 || c.Horizon > 0 || c.Policy.Kind == farm.JIQBlocking {
		return true, ""
	}
	if c.Policy.Kind == farm.LeastWork && c.Load < 1 {
		n := float64(c.Servers)
		spare := n - math.Floor(c.Load*n)
		bound := 1 + 1/spare
		if z.Shape > bound {
			return true, ""
		}
		return false, fmt.Sprintf("the mean time in system is infinite: least-work with N = %d at λ = %v is the M/G/N FCFS queue, whose mean wait is finite only for a Pareto shape > 1 + 1/(N − ⌊λN⌋) = %.4g (Scheller-Wolf and Vesilo 2006), not %v; use a larger shape, --discipline ps, or more servers",
			c.Servers, c.Load, bound, z.Shape)
	}
	return false, fmt.Sprintf("the mean time in system is infinite under FCFS with %v sizes (shape ≤ 2: E[size²] = ∞): a job that finds its server busy waits for the rest of the job in service, of mean E[size²]/2 = ∞, under policy %v; use --discipline ps, a shape > 2, or jiq-blocking (or least-work with enough spare servers)",
		z, c.Policy)
}

// checkServed bounds the load of JIQ blocking, the one policy that may run
// at λ ≥ 1: at most a fraction 1/λ of the jobs is served (the servers
// complete at most N jobs per unit time), and the time in system is a
// mean over the served jobs, so each sample of the intervals (a
// replication, or a batch of one) must expect at least 10 served jobs.
func (c *config) checkServed() error {
	if c.Load < 1 || c.Horizon > 0 {
		return nil
	}
	const least = 10 // served jobs per sample
	served := c.sizeSample() / c.Load
	if served < least {
		return param.Errorf("Load", "λ = %v serves at most 1 job in %.3g: %.6g measured jobs per sample would leave fewer than %d served jobs to measure the time in system; use λ ≤ %.3g or more jobs",
			c.Load, c.Load, c.sizeSample(), least, c.sizeSample()/least)
	}
	return nil
}

// startJobs is (an upper bound on) the number of jobs at the start, and
// the most at one server.
func (c *config) startJobs() (total, most float64) {
	if c.Queues != nil {
		for _, q := range c.Queues {
			total += float64(q)
			most = max(most, float64(q))
		}
		return total, most
	}
	n, j := float64(c.Servers), float64(c.Start.MaxJobs())
	switch c.Start.Kind {
	case farm.Balanced:
		total = n * j
	case farm.Half:
		total = math.Floor(n/2) * j
	case farm.Spread:
		total = (n+1)*j/2 + n
	case farm.Hot:
		total = j
	}
	// A push adds its jobs on top (at most as many as on every server).
	if p := c.Push; !p.IsZero() {
		pj := float64(p.Jobs)
		switch p.Kind {
		case farm.Backlog:
			total += math.Round(p.Frac()*n) * pj
		case farm.SpreadPush:
			total += (n+1)*pj/2 + n
		case farm.HotPush:
			total += pj
		}
		j += pj
	}
	return total, j
}

// cost is the expected size of one replication of a normalized config.
type cost struct {
	time, arrivals, startJobs       float64
	refreshes, snapshots, exchanges float64
	work, bytes                     budgetTally // operations and bytes, with the field whose term is largest
	keptNumbers                     float64     // numbers kept in its Rep (Samples, FinalQueues, Series)
	timeField                       string      // the field whose term sets time
}

// budgetTally sums terms and remembers the field of the largest.
type budgetTally struct {
	total, top float64
	field      string
}

func (t *budgetTally) add(field string, x float64) {
	t.total += x
	if x > t.top {
		t.top, t.field = x, field
	}
}

// Sizes of the simulator's state, for the memory estimate.
const (
	jobBytes    = float64(unsafe.Sizeof(job{}))
	serverBytes = float64(unsafe.Sizeof(server{})) + 4 + 20 // + queueLen, + calendar (heap entry, pos)
	repBytes    = float64(unsafe.Sizeof(Rep{}))
	repOverhead = 64 << 10
)

// cost works out the expected size of one replication (c normalized).
func (c *config) cost() cost {
	n, k := float64(c.Servers), float64(c.Dispatchers)
	rate := c.Load * n
	var r cost
	var most float64
	r.startJobs, most = c.startJobs()
	lengthField := "Jobs"
	if c.sequential() {
		lengthField = "Budget"
	}
	if c.Horizon > 0 {
		lengthField = "Horizon"
		r.time = float64(c.Horizon) * c.Period
		r.timeField = "Horizon"
	} else {
		jobs := float64(c.jobsPerRep()) + float64(c.Warmup)
		served := rate // jobs leave as fast as they arrive, or at most N per unit time
		if c.Load >= 1 && c.Policy.Kind != farm.JIQBlocking {
			served = n
		}
		// The measured jobs arrive; the last of them may wait behind the
		// largest start queue (sizes have mean 1); and the run goes on,
		// with arrivals, until the slowest measured job has left: about
		// the largest of their sizes, times 1 plus what it waits or shares
		// with (the steady-state λ/(1−λ), at most the λ·t of work that can
		// have reached a server in the time t of the arrivals). With many
		// servers and few jobs this drain is most of the run.
		arrive := jobs / served
		drain := sizeMax(c.Sizes, float64(c.jobsPerRep()))
		if c.Load < 1 {
			drain *= 1 + math.Min(c.Load/(1-c.Load), c.Load*arrive)
		}
		r.time = arrive + most + drain
		r.timeField = lengthField
		if rate < 1 {
			r.timeField = "Load"
		}
		if most > arrive+drain {
			r.timeField = "Start"
		}
	}
	if m := len(c.SampleTimes); m > 0 && c.SampleTimes[m-1] > r.time {
		r.time, r.timeField = c.SampleTimes[m-1], "SampleTimes"
	}
	r.arrivals = rate * r.time
	if c.Horizon == 0 {
		r.arrivals = max(r.arrivals, float64(c.jobsPerRep())+float64(c.Warmup))
	}
	if c.Period > 0 {
		r.refreshes = r.time/c.Period + 1
	}
	if c.CorrelationAge > 0 {
		r.snapshots = r.time / c.CorrelationAge
	}
	if c.Policy.JIQ() {
		r.exchanges = c.Exchange * n * r.time
	}
	samples := float64(len(c.SampleTimes))

	// Work, in operations of about an arrival's cost.
	w := &r.work
	w.add("Servers", 4*n+k)
	w.add("Start", 2*r.startJobs)
	// An arrival and its departure move a server in the completion heap:
	// about log₂ N cache misses once the heap outgrows the caches (measured:
	// 260 ns per event at N = 100, 2.2 µs at N = 10⁶).
	w.add(lengthField, r.arrivals*(1+math.Log2(max(n/100, 1))/2))
	p := c.Policy
	if p.Sampled() {
		w.add("Policy", r.arrivals*(expectedDraws(p, c.Servers)+float64(p.D)))
	}
	if p.Kind == farm.LeastWork {
		w.add("Policy", r.arrivals*n)
	}
	// A refresh reads the N queue lengths only if a job arrived or left
	// since the last one (the engine repeats an unchanged board without
	// reading it), and rebuilds each dispatcher's sorted board or clears
	// its tally.
	changed := math.Min(r.refreshes, 2*r.arrivals+r.startJobs+1)
	reads := 1.0
	if p.UsesBoard() {
		reads = 2
		if p.Kind == farm.Tally || p.Kind == farm.TallyJSQd {
			reads += k
		}
	}
	w.add("Period", r.refreshes+changed*n*reads)
	w.add("CorrelationAge", 2*n*r.snapshots)
	w.add("Exchange", r.exchanges)
	w.add("SampleTimes", samples*(n+k))

	// Memory of the replication in progress.
	b := &r.bytes
	perServer := serverBytes
	if p.UsesBoard() {
		perServer += 4
	}
	switch p.Kind {
	case farm.JSQ, farm.BoardJSQ, farm.SharedTally, farm.Partitioned:
		perServer += 12 // one sorted level structure over the servers
	case farm.LeastWork:
		perServer += 8
	}
	if p.Sampled() && !p.Replacement && p.D > dedupScan {
		perServer += 4
	}
	if p.JIQ() {
		perServer += 16 // holder, slot, and the pools
	}
	if c.CorrelationAge > 0 {
		perServer += 4
	}
	// Job storage, allocated at a server's first job; and what every
	// replication has whatever its size (its goroutine's stack, the
	// engine, the random stream).
	b.add("Servers", repOverhead+n*perServer+math.Min(n, r.arrivals+r.startJobs)*initialQueue*jobBytes)
	perDispatcher := "Dispatchers"
	if c.Dispatchers == 1 {
		perDispatcher = "Servers"
	}
	switch p.Kind {
	case farm.Tally:
		b.add(perDispatcher, k*n*12)
	case farm.TallyJSQd:
		b.add(perDispatcher, k*n*4)
	}
	b.add("Dispatchers", k*64) // shares, round-robin cursors, token pools
	if p.Kind == farm.Tally || p.Kind == farm.Partitioned || p.Kind == farm.TallyJSQd {
		b.add("Dispatchers", k*400) // a sorted level structure or tally per dispatcher
	}
	b.add("Start", 2*r.startJobs*jobBytes)
	if c.Load >= 1 && p.Kind != farm.JIQBlocking {
		// An overloaded run keeps the jobs that have not left: up to a
		// fraction 1 − 1/λ of the arrivals.
		b.add("Load", 2*r.arrivals*(1-1/c.Load)*jobBytes)
	}
	b.add("Policy", 16*float64(p.D))

	// Numbers kept in the Rep.
	r.keptNumbers = samples * float64(2+OccupancyLevels+c.Dispatchers)
	if c.RecordFinal {
		r.keptNumbers += n
	}
	if c.Series {
		r.keptNumbers += 2 * r.refreshes
	}
	return r
}

// sizeMax is about the largest of n sizes drawn from z: its 1 − 1/n
// quantile, plus one mean of the tail beyond (exp: ln n + 1).
func sizeMax(z farm.Sizes, n float64) float64 {
	l := math.Log(max(n, 1))
	switch z.Kind {
	case farm.Deterministic:
		return 1
	case farm.H2:
		p, giant, small := farm.H2Params(z.SCV)
		return max(giant*(math.Log(max(n*p, 1))+1), small*(l+1))
	case farm.Pareto:
		return math.Exp(l / z.Shape) // x_m·n^(1/a) times a/(a−1), the mean of the tail beyond, over x_m = (a−1)/a
	}
	return l + 1
}

// expectedDraws is the expected number of uniform draws that best of D
// makes per job among n servers: D with replacement; without, the
// rejection sampling of D distinct servers takes n/(n−j) draws for the
// (j+1)-th.
func expectedDraws(p farm.Policy, n int) float64 {
	if p.Replacement {
		return float64(p.D)
	}
	var s float64
	for j := range min(p.D, n) {
		s += float64(n) / float64(n-j)
	}
	return s
}

// checkBudget bounds the simulated time, the timers, the work, the memory
// and the kept results of a run whose length has been normalized; a
// sequential run is bounded as if it spent its Budget.
func (c *config) checkBudget() error {
	if c.Reps > MaxReps {
		return param.Errorf("Reps", "%d replications, want at most %d", c.Reps, MaxReps)
	}
	r := c.cost()
	if r.time > MaxTime {
		return param.Errorf(r.timeField, "a replication would last about %.3g mean service times, more than 2⁴⁰ ≈ %.3g: event times would lose their resolution (a higher load, fewer jobs or an earlier end)", r.time, float64(MaxTime))
	}
	// Timers: at most MaxPerArrival events per arrival, or minTimerEvents
	// in all.
	limit := MaxPerArrival * math.Max(r.arrivals, minTimerEvents/MaxPerArrival)
	perArrival := func(x float64) float64 { return x / math.Max(r.arrivals, 1e-300) }
	if r.refreshes > limit {
		return param.Errorf("Period", "T = %v would refresh the board about %.3g times per replication, %.3g per arrival (1/(λNT)), more than the %d per arrival allowed: a board refreshed that often is live (use T ≥ %.3g, or a live policy such as jsq)",
			c.Period, r.refreshes, perArrival(r.refreshes), MaxPerArrival, r.time/limit)
	}
	if snapLimit := MaxSnapshotsPerArrival * math.Max(r.arrivals, minTimerEvents/MaxPerArrival); r.snapshots > snapLimit {
		return param.Errorf("CorrelationAge", "A = %v would take about %.3g snapshots of the queues per replication, %.3g per arrival (1/(λNA)), more than the %d per arrival allowed: the queues barely move in that time, so every correlation is about 1 (use A ≥ %.3g)",
			c.CorrelationAge, r.snapshots, perArrival(r.snapshots), MaxSnapshotsPerArrival, r.time/snapLimit)
	}
	if r.exchanges > limit {
		return param.Errorf("Exchange", "ν = %v would move tokens %s times per replication, %s per arrival (ν/λ), more than the %d per arrival allowed: the tokens are then as good as spread at once (use ν ≤ %.3g)",
			c.Exchange, about(r.exchanges), about(c.Exchange/c.Load), MaxPerArrival, limit/(float64(c.Servers)*r.time))
	}
	reps := c.Reps
	if work := float64(reps) * r.work.total; work > MaxArrivals {
		if c.sequential() {
			return param.Errorf("Budget", "a budget of %d jobs would do about %.3g operations (arrivals, policy work and board reads) in all, more than the %.0e allowed, about a day of one core (a smaller budget)", c.Budget, work, MaxArrivals)
		}
		return param.Errorf(r.work.field, "the run would do about %.3g operations (arrivals, policy work and board reads) in all, more than the %.0e allowed, about a day of one core (fewer replications, %s)", work, MaxArrivals, cheaper[r.work.field])
	}
	if limit := float64(MaxMemory / 2); r.bytes.total > limit {
		hint := ""
		if r.bytes.field == "Servers" {
			hint = fmt.Sprintf(" (at most about %.3g servers with these settings)", math.Floor(float64(c.Servers)*limit/r.bytes.total))
		}
		return param.Errorf(r.bytes.field, "one replication would need about %s of memory, more than the %s allowed%s", bytesString(r.bytes.total), bytesString(limit), hint)
	}
	if r.keptNumbers*float64(reps) > maxKept {
		field := "Reps"
		return param.Errorf(field, "%d replications would keep %.3g numbers each (samples, board series, final queues), more than %d in all", reps, r.keptNumbers, maxKept)
	}
	return nil
}

// ExpectedArrivals is about the number of arrivals that Run simulates for
// m and s, all replications together (a sequential run: if it spends its
// Budget, an upper bound), warm-up and the arrivals while the measured
// jobs drain included. 0 if they are invalid.
func ExpectedArrivals(m *Model, s *Settings) float64 {
	n, err := newConfig(m, s).normalized()
	if err != nil {
		return 0
	}
	return float64(n.Reps) * n.cost().arrivals
}

// ExpectedRefreshes is about the number of board refreshes of a run of m
// and s, all replications together (a sequential run: if it spends its
// Budget): the length of its board series (Settings.Series). 0 if they are
// invalid or have no board.
func ExpectedRefreshes(m *Model, s *Settings) float64 {
	n, err := newConfig(m, s).normalized()
	if err != nil {
		return 0
	}
	return float64(n.Reps) * n.cost().refreshes
}

// workers is the number of replications to run at once: c.Workers
// (default GOMAXPROCS, via parallel.For), but no more than fit in
// MaxMemory beside the kept results of every replication.
func (c *config) workers() int {
	r := c.cost()
	kept := float64(c.Reps) * (repBytes + 8*r.keptNumbers)
	fit := int(math.Max(1, math.Floor((MaxMemory-kept)/math.Max(r.bytes.total, 1))))
	if c.Workers > 0 {
		return min(c.Workers, fit)
	}
	return min(runtime.GOMAXPROCS(0), fit)
}

// cheaper says how to cut the largest term of the work.
var cheaper = map[string]string{
	"Jobs": "fewer jobs", "Horizon": "a shorter horizon", "Servers": "fewer servers", "Start": "a smaller start",
	"Policy": "a cheaper policy (a smaller D; least-work scans every server)", "Period": "a longer refresh period",
	"CorrelationAge": "a longer correlation age", "Exchange": "a slower token exchange", "SampleTimes": "fewer sample times",
}

// about writes a count: about 1.23e+45, or beyond 1.8e+308.
func about(x float64) string {
	if x > math.MaxFloat64 {
		return "beyond 1.8e+308"
	}
	return fmt.Sprintf("about %.3g", x)
}

// bytesString writes a size in bytes with a binary unit.
func bytesString(b float64) string {
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"} {
		if b < 1024 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1024
	}
	return fmt.Sprintf("%.3g EiB", b)
}
