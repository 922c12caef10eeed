package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/model"
	"github.com/fluidlb/fluid/internal/param"
)

// Discipline is a server's service discipline (FCFS or PS), shared with
// the mean-field models.
type Discipline = model.Discipline

// The disciplines.
const (
	FCFS = model.FCFS
	PS   = model.PS
)

// ParseDiscipline parses fcfs or ps.
func ParseDiscipline(s string) (Discipline, error) { return model.ParseDiscipline(s) }

// SizeKind names a job-size distribution; every one has mean 1.
type SizeKind int

const (
	// Exponential sizes (SCV 1).
	Exponential SizeKind = iota
	// Deterministic sizes: every job has size 1 (SCV 0).
	Deterministic
	// H2 is the balanced-means hyperexponential of SPEC §2 with squared
	// coefficient of variation SCV > 1: with probability
	// p = (1 − √((c²−1)/(c²+1)))/2 a giant of mean 1/(2p), otherwise a small
	// job of mean 1/(2(1−p)); each class carries half the work.
	H2
	// Pareto is the Pareto (type I) law with shape a > 1 scaled to mean 1:
	// P(X > x) = (x_m/x)^a for x ≥ x_m = (a − 1)/a. Its SCV is 1/(a(a − 2))
	// for a > 2 and infinite for a ≤ 2.
	Pareto
)

// Sizes is a job-size distribution with mean 1.
type Sizes struct {
	Kind SizeKind
	// SCV is the squared coefficient of variation of H2 (> 1).
	SCV float64
	// Shape is the Pareto shape a (> 1).
	Shape float64
}

func (s Sizes) String() string {
	switch s.Kind {
	case Deterministic:
		return "det"
	case H2:
		return "h2:" + strconv.FormatFloat(s.SCV, 'g', -1, 64)
	case Pareto:
		return "pareto:" + strconv.FormatFloat(s.Shape, 'g', -1, 64)
	}
	return "exp"
}

// ParseSizes parses exp, det, h2:SCV or pareto:SHAPE.
func ParseSizes(s string) (Sizes, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	num := func() (float64, error) {
		v, err := strconv.ParseFloat(arg, 64)
		if !has || err != nil || !param.Finite(v) {
			return 0, param.Errorf("sizes", "%q: %s needs a number after the colon", s, name)
		}
		return v, nil
	}
	var z Sizes
	switch name {
	case "exp":
		z = Sizes{Kind: Exponential}
	case "det":
		z = Sizes{Kind: Deterministic}
	case "h2":
		v, err := num()
		if err != nil {
			return Sizes{}, err
		}
		z = Sizes{Kind: H2, SCV: v}
	case "pareto":
		v, err := num()
		if err != nil {
			return Sizes{}, err
		}
		z = Sizes{Kind: Pareto, Shape: v}
	default:
		return Sizes{}, param.Errorf("sizes", "unknown sizes %q (want exp, det, h2:SCV or pareto:SHAPE)", s)
	}
	if (name == "exp" || name == "det") && has {
		return Sizes{}, param.Errorf("sizes", "%q: %s takes no parameter", s, name)
	}
	return z, z.validate()
}

func (s Sizes) validate() error {
	switch s.Kind {
	case Exponential, Deterministic:
		return nil
	case H2:
		if !param.Finite(s.SCV) || s.SCV <= 1 {
			return param.Errorf("sizes", "H2 needs SCV > 1, got %v (use exp for SCV 1)", s.SCV)
		}
		return nil
	case Pareto:
		if !param.Finite(s.Shape) || s.Shape <= 1 {
			return param.Errorf("sizes", "Pareto needs shape > 1 for a finite mean, got %v", s.Shape)
		}
		return nil
	}
	return param.Errorf("sizes", "unknown size kind %d", int(s.Kind))
}

// SquaredCV is the squared coefficient of variation (+Inf for a Pareto
// shape ≤ 2).
func (s Sizes) SquaredCV() float64 {
	switch s.Kind {
	case Deterministic:
		return 0
	case H2:
		return s.SCV
	case Pareto:
		if s.Shape <= 2 {
			return math.Inf(1)
		}
		return 1 / (s.Shape * (s.Shape - 2))
	}
	return 1
}

// PolicyKind names a dispatch policy.
type PolicyKind int

const (
	// Random sends each job to a uniformly random server.
	Random PolicyKind = iota
	// RoundRobin: each dispatcher cycles through the servers.
	RoundRobin
	// JSQ (least loaded, live): the server with the fewest jobs now.
	JSQ
	// JSQd (best of d, live): the fewest jobs among D sampled servers.
	JSQd
	// LeastWork (oracle): the least remaining work now.
	LeastWork
	// BoardJSQ: the lowest value on the board (refreshed every Period).
	BoardJSQ
	// BoardJSQd: the lowest board value among D sampled servers.
	BoardJSQd
	// Tally (seed 000): each dispatcher sends to the server minimising
	// board + its own sends since the last refresh.
	Tally
	// SharedTally: as Tally with one tally counting every dispatcher's
	// sends.
	SharedTally
	// Partitioned: dispatcher r owns a contiguous block of about N/k
	// servers and applies Tally there.
	Partitioned
	// TallyJSQd: best of D sampled servers by board + own tally.
	TallyJSQd
	// JIQBlocking (seed 004): a dispatcher with a token sends to that idle
	// server; without one the job is blocked (lost).
	JIQBlocking
	// JIQQueueing: without a token the job goes to a uniformly random
	// server, revoking that server's token if it was idle.
	JIQQueueing
)

var policyNames = map[PolicyKind]string{
	Random: "random", RoundRobin: "rr", JSQ: "jsq", JSQd: "jsqd", LeastWork: "least-work",
	BoardJSQ: "board-jsq", BoardJSQd: "board-jsqd", Tally: "tally", SharedTally: "shared-tally",
	Partitioned: "partitioned", TallyJSQd: "tally-jsqd", JIQBlocking: "jiq-blocking", JIQQueueing: "jiq-queueing",
}

// Policy is a dispatch policy.
type Policy struct {
	Kind PolicyKind
	// D is the number of servers sampled by JSQd, BoardJSQd, TallyJSQd.
	D int
	// Replacement samples the D servers with replacement (default:
	// without, D distinct servers).
	Replacement bool
}

func (p Policy) String() string {
	s := policyNames[p.Kind]
	if p.sampled() {
		s += ":" + strconv.Itoa(p.D)
	}
	return s
}

func (p Policy) sampled() bool {
	return p.Kind == JSQd || p.Kind == BoardJSQd || p.Kind == TallyJSQd
}

// usesBoard reports whether the policy reads the stale board.
func (p Policy) usesBoard() bool {
	switch p.Kind {
	case BoardJSQ, BoardJSQd, Tally, SharedTally, Partitioned, TallyJSQd:
		return true
	}
	return false
}

// JIQ reports whether the policy is one of the JIQ variants.
func (p Policy) JIQ() bool { return p.Kind == JIQBlocking || p.Kind == JIQQueueing }

// ParsePolicy parses the names of the fluid sim --policy flag:
// random, rr, jsq, jsqd:D, least-work, board-jsq, board-jsqd:D, tally,
// shared-tally, partitioned, tally-jsqd:D, jiq-blocking, jiq-queueing.
func ParsePolicy(s string) (Policy, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	for k, n := range policyNames {
		if n != name {
			continue
		}
		p := Policy{Kind: k}
		if p.sampled() {
			d, err := strconv.Atoi(arg)
			if !has || err != nil || d < 1 {
				return Policy{}, param.Errorf("policy", "%q: %s needs the number of sampled servers, e.g. %s:2", s, name, name)
			}
			p.D = d
		} else if has {
			return Policy{}, param.Errorf("policy", "%q: %s takes no parameter", s, name)
		}
		return p, nil
	}
	return Policy{}, param.Errorf("policy", "unknown policy %q (want random, rr, jsq, jsqd:D, least-work, board-jsq, board-jsqd:D, tally, shared-tally, partitioned, tally-jsqd:D, jiq-blocking or jiq-queueing)", s)
}

// StartKind names an initial state.
type StartKind int

const (
	// Empty: every server idle (JIQ: every token placed by β).
	Empty StartKind = iota
	// Balanced: every server holds Jobs jobs.
	Balanced
	// Half: the first half of the servers (⌊N/2⌋) hold Jobs jobs each, the
	// rest are empty (seed 000's half-loaded start, backlog B = Jobs).
	Half
	// Spread: server i holds round(i·Jobs/(N−1)) jobs, queue lengths
	// spread evenly from 0 to Jobs.
	Spread
	// Hot: one server holds Jobs jobs, the others none.
	Hot
)

// Start is the initial state. Its jobs arrive at time 0 and are never
// measured.
type Start struct {
	Kind StartKind
	Jobs int
}

func (s Start) String() string {
	switch s.Kind {
	case Balanced:
		return "balanced:" + strconv.Itoa(s.Jobs)
	case Half:
		return "half:" + strconv.Itoa(s.Jobs)
	case Spread:
		return "spread:" + strconv.Itoa(s.Jobs)
	case Hot:
		return "hot:" + strconv.Itoa(s.Jobs)
	}
	return "empty"
}

// ParseStart parses empty, balanced:L, half:B, spread:S or hot:X.
func ParseStart(s string) (Start, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	kinds := map[string]StartKind{"empty": Empty, "balanced": Balanced, "half": Half, "spread": Spread, "hot": Hot}
	k, ok := kinds[name]
	if !ok {
		return Start{}, param.Errorf("start", "unknown start %q (want empty, balanced:L, half:B, spread:S or hot:X)", s)
	}
	if k == Empty {
		if has {
			return Start{}, param.Errorf("start", "%q: empty takes no parameter", s)
		}
		return Start{}, nil
	}
	n, err := strconv.Atoi(arg)
	if !has || err != nil || n < 0 {
		return Start{}, param.Errorf("start", "%q: %s needs a whole number of jobs ≥ 0 after the colon", s, name)
	}
	return Start{Kind: k, Jobs: n}, nil
}

// jobs returns the initial number of jobs at server i of n.
func (s Start) jobs(i, n int) int {
	switch s.Kind {
	case Balanced:
		return s.Jobs
	case Half:
		if i < n/2 {
			return s.Jobs
		}
	case Spread:
		if n == 1 {
			return s.Jobs
		}
		return int(math.Round(float64(i) * float64(s.Jobs) / float64(n-1)))
	case Hot:
		if i == 0 {
			return s.Jobs
		}
	}
	return 0
}

// Config is one simulation: a pure function of its fields (Seed included).
// Zero fields take the defaults stated on each.
type Config struct {
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
	Discipline Discipline
	// Sizes of the jobs, mean 1 (default exponential).
	Sizes Sizes
	// Policy of every dispatcher (default random).
	Policy Policy
	// Period T > 0 of the board refresh: required by the board policies;
	// for the others it only sets when the board (queue lengths) is
	// recorded. Zero: no board.
	Period float64
	// Beta are the JIQ token shares (default 1/k each: basic JIQ); an idle
	// server's token goes to dispatcher r with probability Beta[r].
	Beta []float64
	// Exchange ν ≥ 0 is the JIQ token-exchange rate (Enhancement 2): each
	// token moves at rate ν to a uniformly chosen dispatcher.
	Exchange float64
	// Start is the initial state (default empty).
	Start Start
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
	// Seed determines every random number; replication r uses a stream
	// derived from (Seed, r).
	Seed uint64
	// Workers is the number of replications run at once (default
	// GOMAXPROCS). Results do not depend on it.
	Workers int
	// CorrelationAge A > 0 records, every A time units after the warm-up,
	// the correlation across servers between the queue lengths then and A
	// earlier (seed 002's board-age correlation). Zero: not recorded.
	CorrelationAge float64
	// Series keeps each replication's board mean at every refresh.
	Series bool
	// SampleTimes, increasing and ≥ 0, are times at which the state is
	// recorded (fraction of busy servers, occupancy, JIQ tokens): a
	// replication runs at least until the last of them. For trajectories
	// against the fluid limit.
	SampleTimes []float64
	// Progress, if not nil, is told of simulated arrivals in chunks of
	// 65,536, from the replications' goroutines at once (it must be safe
	// for concurrent use). The simulator does no I/O of its own.
	Progress func(arrivals int64) `json:"-"`
}

// Defaults.
const (
	DefaultJobs = 100_000
	DefaultReps = 8
)

// normalized returns a copy with defaults filled in, or an error naming the
// offending parameter.
func (c Config) normalized() (Config, error) {
	if c.Servers < 1 {
		return c, param.Errorf("servers", "N = %d, want at least 1 server", c.Servers)
	}
	if c.Servers > 1<<28 {
		return c, param.Errorf("servers", "N = %d is too large", c.Servers)
	}
	blocking := c.Policy.Kind == JIQBlocking
	if !param.Finite(c.Load) || c.Load <= 0 {
		return c, param.Errorf("load", "λ = %v, want a finite load > 0", c.Load)
	}
	if c.Load >= 1 && !blocking && !c.AllowOverload {
		return c, param.Errorf("load", "λ = %v ≥ 1: the queues are unstable under %v (only JIQ blocking allows λ ≥ 1)", c.Load, c.Policy)
	}
	if len(c.Alpha) > 0 {
		if c.Dispatchers != 0 && c.Dispatchers != len(c.Alpha) {
			return c, param.Errorf("alpha", "%d shares for %d dispatchers", len(c.Alpha), c.Dispatchers)
		}
		if err := param.Distribution("alpha", c.Alpha, true); err != nil {
			return c, err
		}
		c.Dispatchers = len(c.Alpha)
	}
	if c.Dispatchers == 0 {
		c.Dispatchers = 1
	}
	if c.Dispatchers < 1 {
		return c, param.Errorf("dispatchers", "k = %d, want at least 1", c.Dispatchers)
	}
	if c.Policy.Kind == Partitioned && c.Dispatchers > c.Servers {
		return c, param.Errorf("dispatchers", "k = %d partitioned dispatchers need at least k servers, N = %d", c.Dispatchers, c.Servers)
	}
	if !c.Discipline.Valid() {
		return c, param.Errorf("discipline", "unknown discipline %d", int(c.Discipline))
	}
	if err := c.Sizes.validate(); err != nil {
		return c, err
	}
	if _, ok := policyNames[c.Policy.Kind]; !ok {
		return c, param.Errorf("policy", "unknown policy %d", int(c.Policy.Kind))
	}
	if c.Policy.sampled() {
		if c.Policy.D < 1 {
			return c, param.Errorf("policy", "%s samples D = %d servers, want at least 1", policyNames[c.Policy.Kind], c.Policy.D)
		}
		if !c.Policy.Replacement && c.Policy.D > c.Servers {
			return c, param.Errorf("policy", "best of %d without replacement needs at least %d servers, N = %d", c.Policy.D, c.Policy.D, c.Servers)
		}
	}
	if !param.Finite(c.Period) || c.Period < 0 {
		return c, param.Errorf("period", "T = %v, want a finite refresh period ≥ 0", c.Period)
	}
	if c.Policy.usesBoard() && c.Period == 0 {
		return c, param.Errorf("period", "policy %v reads a board: give its refresh period T > 0", c.Policy)
	}
	if c.Policy.JIQ() {
		if c.Beta == nil {
			c.Beta = make([]float64, c.Dispatchers)
			for i := range c.Beta {
				c.Beta[i] = 1 / float64(c.Dispatchers)
			}
		} else {
			if len(c.Beta) != c.Dispatchers {
				return c, param.Errorf("beta", "%d token shares for %d dispatchers", len(c.Beta), c.Dispatchers)
			}
			if err := param.Distribution("beta", c.Beta, false); err != nil {
				return c, err
			}
		}
		if !param.Finite(c.Exchange) || c.Exchange < 0 {
			return c, param.Errorf("exchange", "ν = %v, want a finite rate ≥ 0", c.Exchange)
		}
	} else {
		if c.Beta != nil {
			return c, param.Errorf("beta", "token shares only apply to the JIQ policies, not %v", c.Policy)
		}
		if c.Exchange != 0 {
			return c, param.Errorf("exchange", "token exchange only applies to the JIQ policies, not %v", c.Policy)
		}
	}
	if c.Start.Jobs < 0 || c.Start.Kind < Empty || c.Start.Kind > Hot {
		return c, param.Errorf("start", "invalid start %+v", c.Start)
	}
	if c.Start.Kind != Empty && int64(c.Start.Jobs)*int64(c.Servers) > 1<<31 {
		return c, param.Errorf("start", "%v puts too many jobs in the system", c.Start)
	}
	if c.Jobs == 0 {
		c.Jobs = DefaultJobs
	}
	if c.Jobs < 1 {
		return c, param.Errorf("jobs", "%d measured jobs, want at least 1", c.Jobs)
	}
	switch {
	case c.Warmup == 0:
		c.Warmup = c.Jobs / 10
	case c.Warmup == -1:
		c.Warmup = 0
	case c.Warmup < 0:
		return c, param.Errorf("warmup", "%d warm-up jobs, want ≥ 0 (or -1 for none)", c.Warmup)
	}
	if c.Reps == 0 {
		c.Reps = DefaultReps
	}
	if c.Reps < 1 {
		return c, param.Errorf("reps", "%d replications, want at least 1", c.Reps)
	}
	if c.Reps == 1 && c.Jobs < 10 {
		return c, param.Errorf("jobs", "one replication needs at least 10 measured jobs for its 10 batch means")
	}
	if c.Workers < 0 {
		return c, param.Errorf("workers", "%d workers, want ≥ 0", c.Workers)
	}
	for i, t := range c.SampleTimes {
		if !param.Finite(t) || t < 0 || (i > 0 && t <= c.SampleTimes[i-1]) {
			return c, param.Errorf("sample-times", "sample times must be finite, ≥ 0 and increasing (entry %d is %v)", i+1, t)
		}
	}
	if !param.Finite(c.CorrelationAge) || c.CorrelationAge < 0 {
		return c, param.Errorf("correlation-age", "A = %v, want a finite age ≥ 0", c.CorrelationAge)
	}
	return c, nil
}

// Describe is a one-line summary of the configuration.
func (c Config) Describe() string {
	s := fmt.Sprintf("N = %d, λ = %g, k = %d, %v, %v sizes, policy %v", c.Servers, c.Load, max(c.Dispatchers, 1), c.Discipline, c.Sizes, c.Policy)
	if c.Period > 0 {
		s += fmt.Sprintf(", T = %g", c.Period)
	}
	if c.Start.Kind != Empty {
		s += ", start " + c.Start.String()
	}
	return s
}
