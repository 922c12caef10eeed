package sim

import (
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/internal/parallel"
)

// Estimate is a simulated mean with the half-width of its 95% confidence
// interval (Student t on Samples independent means: replications, or the
// batch means of a single replication). With one sample there is no
// interval and CI95 is 0.
type Estimate struct {
	Mean    float64 `json:"mean"`
	CI95    float64 `json:"ci95"`
	Samples int     `json:"samples"`
}

// Contains reports whether x lies within the interval widened by allow.
func (e Estimate) Contains(x, allow float64) bool {
	return math.Abs(e.Mean-x) <= e.CI95+allow
}

// Rep is the outcome of one replication.
type Rep struct {
	// Per-job means over the measured jobs (Sojourn, Slowdown, Wait over
	// those served; Blocking, RandomFraction, WaitProb over all measured
	// arrivals; WaitProb counts jobs that found their server busy).
	Sojourn, Slowdown, Wait, WaitProb, Blocking, RandomFraction float64
	// BoardMean is the mean board value over the refreshes from the first
	// measured arrival on (Refreshes of them; 0 when there were none).
	BoardMean float64
	Refreshes int
	// Tipped (board runs, Period > 0, λ < 1): at some refresh after the
	// start the board mean exceeded spec.TipThreshold(T, λ) =
	// max(0.2·T, λ/(1−λ)) — the definition the theory uses too; TippedAt
	// is the first such refresh (1 = at time T), 0 if none. Periods is the
	// number of refresh periods simulated after the start.
	Tipped   bool
	TippedAt int
	Periods  int
	// FinalQueues are the queue lengths at the end of the run
	// (RecordFinal only).
	FinalQueues []int32
	// Boards is the board mean at every refresh from t = 0 (Series only),
	// at times BoardTimes.
	Boards, BoardTimes []float64
	// Correlation is the mean correlation across servers between queue
	// lengths CorrelationAge apart (Correlations pairs).
	Correlation  float64
	Correlations int
	// Samples are the states at Config.SampleTimes.
	Samples []Sample
	Jobs    int64              // measured jobs
	Events  int64              // events simulated
	Time    float64            // simulated time
	batch   [batches]batchSums // the measured jobs' sums in 10 batches (batch means when Reps = 1)
}

// Result of Run.
type Result struct {
	Config Config
	// Estimates over the replications (see Rep for each definition).
	Sojourn, Slowdown, Wait, WaitProb, Blocking, RandomFraction Estimate
	// BoardMean is nil when no board was kept (Period = 0) or no refresh
	// fell in the measured window; Correlation when it was not recorded.
	BoardMean, Correlation *Estimate
	// Tipped counts the replications that tipped (stale-board runs).
	Tipped int
	// Trajectory holds, for each of Config.SampleTimes, the mean state over
	// the replications with its interval.
	Trajectory []TrajectoryPoint
	Reps       []Rep
	// Jobs measured and events simulated in all replications; Seconds of
	// wall time.
	Jobs, Events    int64
	Seconds         float64
	EventsPerSecond float64
}

// Run simulates c.Reps independent replications, in parallel on
// c.Workers goroutines; the result depends only on c (not on Workers or
// GOMAXPROCS). An invalid c is an error naming the offending Config field.
func Run(c Config) (*Result, error) {
	c, err := c.normalized()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	reps := make([]Rep, c.Reps)
	_ = parallel.For(c.Reps, c.Workers, nil, func(r int) error {
		reps[r] = runRep(c, r)
		return nil
	})
	res := &Result{Config: c, Reps: reps}
	res.Seconds = time.Since(start).Seconds()
	for _, r := range reps {
		res.Jobs += r.Jobs
		res.Events += r.Events
		if r.Tipped {
			res.Tipped++
		}
	}
	if res.Seconds > 0 {
		res.EventsPerSecond = float64(res.Events) / res.Seconds
	}
	res.aggregate()
	res.trajectory()
	return res, nil
}

// runRep simulates replication rep of the normalized configuration c.
func runRep(c Config, rep int) Rep {
	e := newEngine(c, rep)
	e.run()
	r := e.measure.rep(e.events, e.now)
	if c.RecordFinal {
		r.FinalQueues = append([]int32(nil), e.queueLen...)
	}
	return r
}

// TrajectoryPoint is the replication mean of the state at one sample time.
type TrajectoryPoint struct {
	T         float64
	Busy      Estimate
	Occupancy [OccupancyLevels]Estimate
	Tokens    []Estimate
}

func (res *Result) trajectory() {
	c := res.Config
	for j, t := range c.SampleTimes {
		p := TrajectoryPoint{T: t}
		x := make([]float64, len(res.Reps))
		each := func(f func(s *Sample) float64) Estimate {
			for i := range res.Reps {
				x[i] = f(&res.Reps[i].Samples[j])
			}
			return estimate(x)
		}
		p.Busy = each(func(s *Sample) float64 { return s.Busy })
		for i := range OccupancyLevels {
			p.Occupancy[i] = each(func(s *Sample) float64 { return s.Occupancy[i] })
		}
		for r := range res.Reps[0].Samples[j].Tokens {
			p.Tokens = append(p.Tokens, each(func(s *Sample) float64 { return s.Tokens[r] }))
		}
		res.Trajectory = append(res.Trajectory, p)
	}
}

// aggregate forms the estimates: from replication means when there are
// several replications, from the batch means of one otherwise.
func (res *Result) aggregate() {
	var samples [6][]float64
	add := func(a batchSums) {
		v := [6]float64{}
		v[0], v[1], v[2], v[3], v[4], v[5] = a.means()
		for i := range v {
			samples[i] = append(samples[i], v[i])
		}
	}
	if len(res.Reps) > 1 {
		for _, r := range res.Reps {
			var tot batchSums
			for _, b := range r.batch {
				tot.add(b)
			}
			add(tot)
		}
	} else {
		for _, b := range res.Reps[0].batch {
			add(b)
		}
	}
	est := []*Estimate{&res.Sojourn, &res.Slowdown, &res.Wait, &res.WaitProb, &res.Blocking, &res.RandomFraction}
	for i, p := range est {
		*p = estimate(samples[i])
	}
	var boards, corrs []float64
	for _, r := range res.Reps {
		if r.Refreshes > 0 {
			boards = append(boards, r.BoardMean)
		}
		if r.Correlations > 0 {
			corrs = append(corrs, r.Correlation)
		}
	}
	if len(boards) > 0 {
		b := estimate(boards)
		res.BoardMean = &b
	}
	if len(corrs) > 0 {
		c := estimate(corrs)
		res.Correlation = &c
	}
}

// estimate is the mean of independent samples and the half-width of its
// Student-t 95% interval.
func estimate(x []float64) Estimate {
	n := len(x)
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	if n < 2 {
		return Estimate{Mean: m, Samples: n}
	}
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(n-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return Estimate{Mean: m, CI95: t * sd / math.Sqrt(float64(n)), Samples: n}
}
