package sim

import (
	"fmt"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"github.com/fluidlb/fluid/sim/steadystate"
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
	// Jobs, if positive, fixes the run (for scripts that need a fixed
	// cost): each replication ends at its Jobs-th observation, the first
	// Jobs jobs to leave (or be blocked) of those from arrival Warmup on;
	// a Transient run observes the jobs with arrival numbers Warmup …
	// Warmup+Jobs−1 and ends when they have left. Zero (the default):
	// the run is sequential, each replication observing every job from
	// arrival Warmup on, and its length is chosen from the precision
	// (RelPrecision, within Budget).
	Jobs int
	// Warmup jobs are simulated but not observed before any analysis
	// (default 0, or -1: none). Whatever it is, the end of the initial
	// transient is found in the data (MSER-5 truncation of each
	// replication's series); Warmup only adds a deletion of its own.
	Warmup int
	// Reps is the number of independent replications (default
	// DefaultReps). Each is truncated on its own; their batch means are
	// pooled (see package steadystate).
	Reps int
	// Level is the confidence level of Estimate.HalfWidth (default 0.95;
	// in (0, MaxLevel]). Estimate.CI95 stays the 95% half-width whatever it is.
	Level float64
	// RelPrecision ε is the relative precision of a steady-state run
	// (default DefaultPrecision, 2%; in (0, 1)): a sequential run stops
	// once the half-width of the mean time in system at Level is at most
	// ε/(1+ε) times its mean (so that the relative error is at most ε with
	// probability Level; JIQ blocking also needs that precision, or
	// ±AbsPrecision, on the blocking) and the batch means passed their
	// independence test: Status PrecisionReached. A run of fixed Jobs is
	// PrecisionReached if it happens to meet it, BudgetReached if not.
	RelPrecision float64
	// Budget is the most jobs a sequential run observes, all replications
	// together (default DefaultBudget); spent without the precision, the
	// run ends BudgetReached (or NotSteady if it found no steady state).
	// Only for sequential runs (Jobs 0).
	Budget int64
	// Transient measures the run from its start as a transient, not a
	// steady state: a run of fixed Jobs (or a Horizon) whose estimates are
	// the means over the observed jobs, with Student-t intervals across
	// the replications (Reps ≥ 2 for an interval), no truncation and no
	// planning. For the behaviour of a system that the run cannot take to
	// its steady state (λ near 1), or of the first jobs from a start.
	// Horizon runs are always transient.
	Transient bool
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
	// once; its total is ExpectedArrivals (for a sequential run, that of
	// its whole Budget: an upper bound). A cancelled Context stops the
	// run: replications in progress are stopped at their next 65,536th
	// arrival; a run of fixed Jobs keeps the replications that finished
	// (each the same numbers as in a run to the end), a sequential run the
	// observations so far, and the result has Status Interrupted.
	outcome.Run
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

// Defaults of Settings.Reps, Settings.Level, Settings.RelPrecision,
// Settings.Budget and the absolute precision of a blocking probability.
const (
	DefaultReps      = 8
	DefaultLevel     = 0.95
	DefaultPrecision = steadystate.DefaultPrecision
	DefaultBudget    = steadystate.DefaultBudget
	// AbsPrecision is the half-width that is precise enough for the
	// blocking probability whatever its value (a relative precision on a
	// blocking near 0 would never be met).
	AbsPrecision = 1e-3
)

// sequential reports whether a normalized c chooses its run length from
// the precision (no Jobs, no Horizon, not a transient).
func (c *config) sequential() bool { return c.Jobs == 0 && c.Horizon == 0 && !c.Transient }

// steady reports whether a normalized c's estimates are steady-state
// estimates (MSER truncation and batch means), not transient means.
func (c *config) steady() bool { return c.Horizon == 0 && !c.Transient }

// jobsPerRep is the most jobs one replication of a normalized c observes
// (a sequential run: its share of the budget), for the bounds on work.
func (c *config) jobsPerRep() int64 {
	if c.sequential() {
		return (c.Budget + int64(c.Reps) - 1) / int64(c.Reps)
	}
	return int64(c.Jobs)
}

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
// (Dispatchers, Warmup, Reps, Level, RelPrecision, Budget, Beta), or the error Run
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

// normalizePrecision checks and defaults Level, RelPrecision and Budget.
func (c *config) normalizePrecision() error {
	if c.Level == 0 {
		c.Level = DefaultLevel
	}
	if !param.Finite(c.Level) || c.Level <= 0 || c.Level > MaxLevel {
		return param.Errorf("Level", "confidence level %v, want 0 < level ≤ %v (e.g. 0.95)", c.Level, MaxLevel)
	}
	if c.RelPrecision == 0 {
		c.RelPrecision = DefaultPrecision
	}
	if !param.Finite(c.RelPrecision) || c.RelPrecision <= 0 || c.RelPrecision >= 1 {
		return param.Errorf("RelPrecision", "relative precision %v, want 0 < ε < 1 (e.g. 0.02)", c.RelPrecision)
	}
	if c.Budget != 0 && !c.sequential() {
		return param.Errorf("Budget", "a budget of %d jobs only applies to a sequential run (Jobs 0), not a run of fixed length", c.Budget)
	}
	if c.sequential() && c.Budget == 0 {
		c.Budget = DefaultBudget
	}
	if c.Budget < 0 || c.sequential() && c.Budget < int64(c.Reps) {
		return param.Errorf("Budget", "a budget of %d jobs, want at least one per replication", c.Budget)
	}
	return nil
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
		c.Transient = true
		return nil
	}
	if c.StopAtTip {
		return param.Errorf("StopAtTip", "stopping at the tip needs a Horizon of refresh periods")
	}
	if c.Jobs < 0 {
		return param.Errorf("Jobs", "%d observed jobs, want at least 1 (or 0: a sequential run, its length chosen from the precision)", c.Jobs)
	}
	if c.Jobs == 0 && c.Transient {
		return param.Errorf("Jobs", "a transient run needs a fixed number of jobs (or a Horizon)")
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
