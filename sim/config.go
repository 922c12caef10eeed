package sim

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Model is the system simulated: the farm, its dispatchers and policy,
// and its state at time 0. Zero fields take the defaults stated on each.
//
// Run's errors are *param.Error values whose Param is the name of the
// offending field of the Model or of the Settings (Servers, Load, Policy,
// Jobs, …).
type Model struct {
	// Servers N ≥ 1. Required.
	Servers int
	// Load λ per server: arrivals are Poisson of total rate λN. Required,
	// 0 < λ < 1 unless the system cannot be unstable (JIQ blocking, where
	// jobs without a token are lost) or AllowOverload is set.
	Load float64
	// AllowOverload permits λ ≥ 1 for any policy (the queues then grow
	// without bound: only for short transient runs).
	AllowOverload bool
	// Dispatchers k ≥ 1 (default 1, or len(Alpha)). Each job goes to
	// dispatcher r with probability Alpha[r].
	Dispatchers int
	// Alpha are the dispatchers' shares of the arrivals (default equal);
	// positive, summing to 1.
	Alpha []float64
	// Discipline of every server (default FCFS).
	Discipline farm.Discipline
	// Sizes of the jobs, mean 1 (default exponential). Heavy tails must be
	// resolvable by the run (see MaxSizeError) and, under FCFS, leave the
	// mean time in system finite (see Run).
	Sizes farm.Sizes
	// Policy of every dispatcher (default random). A sampling policy's D
	// is 1 to farm.MaxSampled (at most Servers without replacement);
	// Replacement applies only to the sampling policies.
	Policy farm.Policy
	// Period T > 0 of the board refresh: required by the board policies;
	// for the others it only sets when the board (queue lengths) is
	// recorded. Zero: no board.
	Period float64
	// Beta are the JIQ token shares (default farm.Allotment: 1/k each,
	// basic JIQ); an idle server's token goes to dispatcher r with
	// probability Beta[r].
	Beta []float64
	// Exchange ν ≥ 0 is the JIQ token-exchange rate (Enhancement 2): each
	// token moves at rate ν to a uniformly chosen dispatcher.
	Exchange float64
	// Start is the initial state (default empty). Its jobs arrive at time
	// 0 and are never measured.
	Start farm.Start
	// Queues, if not nil, is an explicit initial state instead of Start:
	// server i holds Queues[i] jobs (len(Queues) = Servers).
	Queues []int32
	// Push, if not zero, is a disturbance: extra jobs that land on part of
	// the farm at refresh Push.At (0: on top of the start), just before
	// the board is read (a restart, a scale-out, a burst; see farm.Push).
	// Its jobs, like the start's, are never measured, and a run counts as
	// tipped only at a refresh after the push. It needs a board
	// (Period > 0) unless it lands at the start, and is refused with the
	// join-the-idle-queue policies (their tokens follow idle servers).
	// Starts and pushes given in units of T (PerPeriod) are resolved to
	// whole jobs at Period.
	Push farm.Push
}

// Settings say how long and how often a Model is simulated, and what is
// recorded. A nil *Settings or a zero field means the documented default.
// A run is a pure function of its Model and Settings (Seed included),
// whatever Workers says.
type Settings struct {
	// Horizon, if positive, runs each replication for Horizon refresh
	// periods (until time Horizon·Period) instead of a number of jobs:
	// Jobs must then be 0, every job is measured that completes in time
	// (after Warmup jobs), and Period must be positive.
	Horizon int
	// StopAtTip ends a replication at its first refresh after the start
	// whose board has tipped (farm.TipWatch; the herd is absorbing:
	// nothing after the tip is needed to say that it tipped).
	StopAtTip bool
	// RecordFinal keeps each replication's queue lengths at its end
	// (Rep.FinalQueues).
	RecordFinal bool
	// Jobs is the number of measured jobs per replication (default
	// 100,000): the jobs with arrival numbers Warmup … Warmup+Jobs−1.
	Jobs int
	// Warmup jobs are simulated but not measured (default Jobs/10).
	// Use -1 for none.
	Warmup int
	// Reps is the number of independent replications (default 8). With
	// Reps ≥ 2 the confidence intervals come from the replication means;
	// with Reps = 1, from 10 batch means of the measured jobs.
	Reps int
	// Level is the confidence level of Estimate.HalfWidth (default 0.95;
	// in (0, MaxLevel]). Estimate.CI95 stays the 95% half-width whatever it is.
	Level float64
	// RelPrecision, if positive, is a precision target: after the Reps
	// replications, Run adds replications in rounds until the half-width
	// of the mean time in system at Level is at most RelPrecision times
	// its mean (Status Converged), or MaxReps replications have run
	// (NotConverged). It needs Reps ≥ 2 (intervals from replication
	// means). Zero: exactly Reps replications (Status Completed).
	RelPrecision float64
	// MaxReps caps the replications of a run with a precision target
	// (default max(DefaultMaxReps, Reps); at least Reps, at most the
	// package bound MaxReps). Only with RelPrecision > 0. The work budget
	// (MaxArrivals) is checked for MaxReps replications.
	MaxReps int
	// Seed determines every random number; replication r uses a stream
	// derived from (Seed, r).
	Seed uint64
	// CorrelationAge A > 0 records, every A time units after the warm-up,
	// the correlation across servers between the queue lengths then and A
	// earlier (the board-age correlation). Zero: not recorded.
	CorrelationAge float64
	// Series keeps each replication's board mean at every refresh.
	Series bool
	// SampleTimes, increasing and ≥ 0, are times at which the state is
	// recorded (fraction of busy servers, occupancy, JIQ tokens): a
	// replication runs at least until the last of them. For trajectories
	// against the fluid limit.
	SampleTimes []float64
	// Run: Workers is the number of replications run at once (default
	// GOMAXPROCS; fewer if their state would not fit in MaxMemory).
	// Progress is told of the simulated arrivals, all replications
	// together, in chunks of 65,536, from the replications' goroutines at
	// once; its total is ExpectedArrivals (with a precision target, that
	// of MaxReps replications, an upper bound). A cancelled Context stops
	// the run: replications not yet started are not run, those in
	// progress are abandoned at their next 65,536th arrival, and the
	// result (Status Interrupted) holds the finished ones, each the same
	// numbers as in a run to the end.
	outcome.Run

	// noWarmup records that Warmup was −1 (none) in a run of Jobs, which
	// normalized turns into 0: normalizing the result again must not read
	// that 0 as the default Jobs/10.
	noWarmup bool
}

// config is a simulation as the engine sees it: the model and its
// settings, both normalized.
type config struct {
	Model
	Settings
}

// newConfig copies a model and its settings (nil: the defaults) into one
// config.
func newConfig(m *Model, s *Settings) config {
	c := config{Model: *m}
	if s != nil {
		c.Settings = *s
	}
	return c
}

// Defaults of Settings.Jobs, Settings.Reps, Settings.Level and
// Settings.MaxReps.
const (
	DefaultJobs    = 100_000
	DefaultReps    = 8
	DefaultLevel   = 0.95
	DefaultMaxReps = 1000
)

// normalized returns a copy with defaults filled in, or a *param.Error
// naming the offending field. Every bound on the size of the run (its
// work, memory, simulated time and timers) is checked before anything of
// the size of the run is allocated.
func (c config) normalized() (config, error) {
	m, err := c.Model.normalized()
	if err != nil {
		return c, err
	}
	c.Model = m
	if err := c.normalizeLength(); err != nil {
		return c, err
	}
	if err := c.normalizePrecision(); err != nil {
		return c, err
	}
	if c.Workers < 0 {
		return c, param.Errorf("Workers", "%d workers, want ≥ 0", c.Workers)
	}
	if len(c.SampleTimes) > MaxSampleTimes {
		return c, param.Errorf("SampleTimes", "%d sample times, want at most %d", len(c.SampleTimes), MaxSampleTimes)
	}
	for i, t := range c.SampleTimes {
		if !param.Finite(t) || t < 0 || (i > 0 && t <= c.SampleTimes[i-1]) {
			return c, param.Errorf("SampleTimes", "sample times must be finite, ≥ 0 and increasing (entry %d is %v)", i+1, t)
		}
	}
	if !param.Finite(c.CorrelationAge) || c.CorrelationAge < 0 {
		return c, param.Errorf("CorrelationAge", "A = %v, want a finite age ≥ 0", c.CorrelationAge)
	}
	if err := c.checkServed(); err != nil {
		return c, err
	}
	if err := c.checkSizes(); err != nil {
		return c, err
	}
	if err := c.checkBudget(); err != nil {
		return c, err
	}
	if c.Policy.JIQ() {
		c.Beta = farm.Allotment(c.Beta, c.Dispatchers)
	}
	return c, nil
}

// Validate checks the model alone: a *param.Error names the offending
// field. Run checks more: the model with its settings (the size of the
// run, whether its means exist and can be resolved).
func (m *Model) Validate() error {
	_, err := m.normalized()
	return err
}

// normalized checks the model and returns a copy with Dispatchers set.
func (c Model) normalized() (Model, error) {
	if c.Servers < 1 {
		return c, param.Errorf("Servers", "N = %d, want at least 1 server", c.Servers)
	}
	if c.Servers > maxServers {
		return c, param.Errorf("Servers", "N = %d is too large: at most %d servers", c.Servers, maxServers)
	}
	if !param.Finite(c.Load) || c.Load <= 0 {
		return c, param.Errorf("Load", "λ = %v, want a finite load > 0", c.Load)
	}
	if c.Load >= 1 && c.Policy.Kind != farm.JIQBlocking && !c.AllowOverload {
		return c, param.Errorf("Load", "λ = %v ≥ 1: the queues are unstable under %v (only JIQ blocking allows λ ≥ 1)", c.Load, c.Policy)
	}
	if err := c.normalizeDispatchers(); err != nil {
		return c, err
	}
	if !c.Discipline.Valid() {
		return c, param.Errorf("Discipline", "unknown discipline %d", int(c.Discipline))
	}
	if err := c.Sizes.Validate(); err != nil {
		return c, err
	}
	if err := c.checkPolicy(); err != nil {
		return c, err
	}
	if err := c.checkTokens(); err != nil {
		return c, err
	}
	if err := c.Start.Validate(); err != nil {
		return c, err
	}
	if err := c.normalizePush(); err != nil {
		return c, err
	}
	if float64(c.Start.MaxJobs())*float64(c.Servers) > 1<<31 { // in float64: the int64 product can wrap (hot:2⁶² on 4 servers)
		return c, param.Errorf("Start", "%v puts too many jobs in the system", c.Start)
	}
	if err := c.checkQueues(); err != nil {
		return c, err
	}
	return c, nil
}

// Normalized returns the model and settings with their defaults filled in
// (Dispatchers, Jobs, Warmup, Reps, Level, MaxReps, Beta), or the error Run
// would return for them: a *param.Error naming the offending field. It
// does no simulation and allocates nothing of the size of the run.
func Normalized(m *Model, s *Settings) (Model, Settings, error) {
	c, err := newConfig(m, s).normalized()
	return c.Model, c.Settings, err
}

// normalizeDispatchers checks Alpha and sets Dispatchers from it or to
// its default.
func (c *Model) normalizeDispatchers() error {
	if len(c.Alpha) > 0 {
		if c.Dispatchers != 0 && c.Dispatchers != len(c.Alpha) {
			return param.Errorf("Alpha", "%d shares for %d dispatchers", len(c.Alpha), c.Dispatchers)
		}
		if err := param.Distribution("Alpha", c.Alpha, true); err != nil {
			return err
		}
		c.Dispatchers = len(c.Alpha)
	}
	if c.Dispatchers == 0 {
		c.Dispatchers = 1
	}
	if c.Dispatchers < 1 {
		return param.Errorf("Dispatchers", "k = %d, want at least 1", c.Dispatchers)
	}
	if c.Policy.Kind == farm.Partitioned && c.Dispatchers > c.Servers {
		return param.Errorf("Dispatchers", "k = %d partitioned dispatchers need at least k servers, N = %d", c.Dispatchers, c.Servers)
	}
	return nil
}

// checkPolicy checks the policy, its D and the board period it needs.
func (c *Model) checkPolicy() error {
	p := c.Policy
	if !p.Kind.Valid() {
		return param.Errorf("Policy", "unknown policy %d", int(p.Kind))
	}
	if p.Sampled() {
		if p.D < 1 || p.D > farm.MaxSampled {
			return param.Errorf("Policy", "%v samples D = %d servers, want 1 to %d", p.Kind, p.D, farm.MaxSampled)
		}
		if !p.Replacement && p.D > c.Servers {
			return param.Errorf("Policy", "best of %d without replacement needs at least %d servers, N = %d", p.D, p.D, c.Servers)
		}
	}
	if p.Replacement && !p.Sampled() {
		return param.Errorf("Policy", "sampling with replacement only applies to the policies that sample D servers (jsqd:D, board-jsqd:D, tally-jsqd:D), not %v", p)
	}
	if !param.Finite(c.Period) || c.Period < 0 {
		return param.Errorf("Period", "T = %v, want a finite refresh period ≥ 0", c.Period)
	}
	if p.UsesBoard() && c.Period == 0 {
		return param.Errorf("Period", "policy %v reads a board: give its refresh period T > 0", p)
	}
	return nil
}

// checkTokens checks Beta and Exchange, which only the JIQ policies take
// (normalized sets Beta's default at the end, once the run's size has been
// checked).
func (c *Model) checkTokens() error {
	if !c.Policy.JIQ() {
		if c.Beta != nil {
			return param.Errorf("Beta", "token shares only apply to the JIQ policies, not %v", c.Policy)
		}
		if c.Exchange != 0 {
			return param.Errorf("Exchange", "token exchange only applies to the JIQ policies, not %v", c.Policy)
		}
		return nil
	}
	if c.Beta != nil {
		if len(c.Beta) != c.Dispatchers {
			return param.Errorf("Beta", "%d token shares for %d dispatchers", len(c.Beta), c.Dispatchers)
		}
		if err := param.Distribution("Beta", c.Beta, false); err != nil {
			return err
		}
	}
	if !param.Finite(c.Exchange) || c.Exchange < 0 {
		return param.Errorf("Exchange", "ν = %v, want a finite rate ≥ 0", c.Exchange)
	}
	return nil
}

// checkQueues checks an explicit initial state.
func (c *Model) checkQueues() error {
	if c.Queues == nil {
		return nil
	}
	if len(c.Queues) != c.Servers {
		return param.Errorf("Queues", "%d queue lengths for %d servers", len(c.Queues), c.Servers)
	}
	if !c.Start.IsEmpty() {
		return param.Errorf("Queues", "an explicit initial state replaces Start (%v): give one of them", c.Start)
	}
	var total int64
	for i, q := range c.Queues {
		if q < 0 {
			return param.Errorf("Queues", "server %d holds %d jobs, want ≥ 0", i, q)
		}
		total += int64(q)
	}
	if total > 1<<31 {
		return param.Errorf("Queues", "%d jobs at the start is too many", total)
	}
	return nil
}

// normalizePrecision checks and defaults Level, RelPrecision and MaxReps
// (after normalizeLength: it reads Reps).
func (c *config) normalizePrecision() error {
	if c.Level == 0 {
		c.Level = DefaultLevel
	}
	if !param.Finite(c.Level) || c.Level <= 0 || c.Level > MaxLevel {
		return param.Errorf("Level", "confidence level %v, want 0 < level ≤ %v (e.g. 0.95)", c.Level, MaxLevel)
	}
	if !param.Finite(c.RelPrecision) || c.RelPrecision < 0 {
		return param.Errorf("RelPrecision", "relative precision %v, want a finite value ≥ 0 (0: no target)", c.RelPrecision)
	}
	if c.RelPrecision == 0 {
		if c.MaxReps != 0 {
			return param.Errorf("MaxReps", "a cap of %d replications only applies with a precision target", c.MaxReps)
		}
		return nil
	}
	if c.Reps < 2 {
		return param.Errorf("Reps", "a precision target needs at least 2 initial replications (intervals over replication means), not %d", c.Reps)
	}
	if c.MaxReps == 0 {
		c.MaxReps = max(DefaultMaxReps, c.Reps)
	}
	if c.MaxReps < c.Reps || c.MaxReps > MaxReps {
		return param.Errorf("MaxReps", "a cap of %d replications, want %d (Reps) to %d", c.MaxReps, c.Reps, MaxReps)
	}
	return nil
}

// maxReps is the most replications a normalized c may run.
func (c *config) maxReps() int {
	if c.RelPrecision > 0 {
		return c.MaxReps
	}
	return c.Reps
}

// normalizeLength checks and defaults Jobs (or Horizon), Warmup and Reps.
func (c *config) normalizeLength() error {
	if c.Horizon != 0 {
		if c.Horizon < 0 || c.Horizon > MaxHorizon {
			return param.Errorf("Horizon", "%d refresh periods, want 1..%d", c.Horizon, MaxHorizon)
		}
		if c.Period == 0 {
			return param.Errorf("Horizon", "a run of %d refresh periods needs a refresh period T > 0", c.Horizon)
		}
		if c.Jobs != 0 {
			return param.Errorf("Jobs", "%d jobs: a run lasts either a number of jobs or a Horizon of refresh periods, not both", c.Jobs)
		}
		if c.Warmup == -1 {
			c.Warmup = 0
		}
		if c.Warmup < 0 {
			return param.Errorf("Warmup", "%d warm-up jobs, want ≥ 0 (or -1 for none)", c.Warmup)
		}
		if c.Reps == 0 {
			c.Reps = DefaultReps
		}
		if c.Reps < 1 {
			return param.Errorf("Reps", "%d replications, want at least 1", c.Reps)
		}
		return nil
	}
	if c.StopAtTip {
		return param.Errorf("StopAtTip", "stopping at the tip needs a Horizon of refresh periods")
	}
	if c.Jobs == 0 {
		c.Jobs = DefaultJobs
	}
	if c.Jobs < 1 {
		return param.Errorf("Jobs", "%d measured jobs, want at least 1", c.Jobs)
	}
	switch {
	case c.Warmup == 0 && !c.noWarmup:
		c.Warmup = c.Jobs / 10
	case c.Warmup == -1:
		c.Warmup, c.noWarmup = 0, true
	case c.Warmup < 0:
		return param.Errorf("Warmup", "%d warm-up jobs, want ≥ 0 (or -1 for none)", c.Warmup)
	}
	if c.Reps == 0 {
		c.Reps = DefaultReps
	}
	if c.Reps < 1 {
		return param.Errorf("Reps", "%d replications, want at least 1", c.Reps)
	}
	if c.Reps == 1 && c.Jobs < batches {
		return param.Errorf("Jobs", "one replication needs at least %d measured jobs for its %d batch means", batches, batches)
	}
	return nil
}

// normalizePush checks the push and resolves the start and the push given
// in units of T to whole jobs.
func (c *Model) normalizePush() error {
	if c.Start.PerPeriod > 0 {
		if !(c.Period > 0) {
			return param.Errorf("Start", "%v is given in units of the refresh period, and there is none (Period)", c.Start)
		}
		c.Start = c.Start.At(c.Period)
	}
	if err := c.Push.Validate(); err != nil {
		return err
	}
	if c.Push.IsZero() {
		return nil
	}
	if (c.Push.At > 0 || c.Push.PerPeriod > 0) && !(c.Period > 0) {
		return param.Errorf("Push", "%v lands at a refresh or is given in units of T, and there is no refresh period (Period)", c.Push)
	}
	if c.Policy.JIQ() {
		return param.Errorf("Push", "%v under %v: the tokens of join-the-idle-queue follow idle servers, which a push would have to take away", c.Push, c.Policy)
	}
	c.Push = c.Push.AtPeriod(c.Period)
	if c.Push.Jobs < 1 {
		return param.Errorf("Push", "%v is no job at all at T = %g", c.Push, c.Period)
	}
	if float64(c.Push.Jobs)*float64(c.Servers) > 1<<31 {
		return param.Errorf("Push", "%v puts too many jobs in the system", c.Push)
	}
	return nil
}

// Describe is a one-line summary of the model.
func (c Model) Describe() string {
	s := fmt.Sprintf("N = %d, λ = %g, k = %d, %v, %v sizes, policy %v", c.Servers, c.Load, max(c.Dispatchers, 1), c.Discipline, c.Sizes, c.Policy)
	if c.Period > 0 {
		s += fmt.Sprintf(", T = %g", c.Period)
	}
	if !c.Start.IsEmpty() {
		s += ", start " + c.Start.String()
	}
	if !c.Push.IsZero() {
		s += ", push " + c.Push.String()
	}
	return s
}
