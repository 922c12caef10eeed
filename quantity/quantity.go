package quantity

import (
	"fmt"
	"sort"
)

// Domain is the set of values a quantity may take. Every number must also
// be finite, whatever its domain.
type Domain int

const (
	// Text: not a number (a word, a flag, a structure); nothing to check.
	Text Domain = iota
	// Real: any finite number.
	Real
	// NonNegative: ≥ 0 (counts of jobs, means of non-negative times,
	// periods, tolerances, half-widths).
	NonNegative
	// Positive: > 0.
	Positive
	// Probability: in [0, 1] (probabilities, fractions of servers or jobs,
	// masses of a distribution).
	Probability
	// Correlation: in [−1, 1].
	Correlation
	// Sojourn: a mean time in system, at least the mean job size 1 (a
	// job's time in system is its wait plus its service). A simulated
	// estimate is held to > 0 and to being above its own mean delay
	// instead: its measured jobs' mean size is 1 only on average.
	Sojourn
	// Count: a whole number ≥ 0.
	Count
	// Level: a confidence level, in (0, 1).
	Level
)

var domainNames = [...]string{
	Text: "text", Real: "a finite number", NonNegative: "≥ 0", Positive: "> 0",
	Probability: "in [0, 1]", Correlation: "in [−1, 1]", Sojourn: "≥ 1 (the mean job size)",
	Count: "a whole number ≥ 0", Level: "in (0, 1)",
}

func (d Domain) String() string {
	if d >= 0 && int(d) < len(domainNames) {
		return domainNames[d]
	}
	return fmt.Sprintf("Domain(%d)", int(d))
}

// Quantity is one declared quantity.
type Quantity struct {
	// Name is the JSON field name, the CSV column and the sweep-table
	// column (snake_case).
	Name string
	// Label is the quantity in a few words, for figures and help.
	Label string
	// Unit is its unit ("" for pure numbers and probabilities). Times are
	// in mean service times; loads and rates per server.
	Unit string
	// Domain is where its values lie.
	Domain Domain
	// Doc is a one-line description.
	Doc string
}

// Units used below.
const (
	unitTime    = "mean service times"
	unitRate    = "per mean service time"
	unitJobs    = "jobs per server"
	unitSeconds = "seconds of wall time"
)

// declared is every quantity, by JSON name. Names whose meaning depends on
// where they stand (mean, min, max) have the widest domain; the guard
// narrows them by context (the mean of an estimate takes the estimate's
// quantity).
var declared = []Quantity{
	// The inputs.
	{"load", "load λ", "jobs per server per mean service time", Positive, "arrival rate per server"},
	{"servers", "servers N", "", Count, "number of servers"},
	{"dispatchers", "dispatchers k", "", Count, "number of dispatchers (the length of alpha in join-the-idle-queue)"},
	{"map_dispatchers", "dispatchers of the map", "", Count, "k of the refresh-period map computed (1 for a shared tally or partitioned dispatchers)"},
	{"alpha", "arrival shares α", "", Probability, "share of the arrivals that dispatcher r receives (sum 1)"},
	{"beta", "token shares β", "", Probability, "share of the idle servers' tokens sent to dispatcher r (sum 1)"},
	{"exchange", "token exchange rate ν", "per token per mean service time", NonNegative, "rate at which each token held by a dispatcher moves to a uniformly chosen dispatcher"},
	{"period", "refresh period T", unitTime, Positive, "time between two refreshes of the load board"},
	{"horizon", "horizon H", "refresh periods", Count, "refresh periods within which a finite system started balanced must tip"},
	{"floor", "lowest T(1−λ)² searched", unitTime, NonNegative, "bottom of the edge search range, as T(1−λ)²"},
	{"tol", "tolerance", "", NonNegative, "‖·‖₁ distance between successive boards that counts as settled"},
	{"max_iterations", "most refresh periods", "refresh periods", Count, "most refresh periods iterated"},
	{"imax", "truncation i_max", "jobs", Count, "queue length at which the queueing-scenario ODE is truncated"},
	{"tail_tol", "tail tolerance", "", Probability, "largest stationary mass allowed above imax when imax is chosen"},
	{"until", "end time", unitTime, NonNegative, "end of a trajectory"},
	{"every", "output interval", unitTime, Positive, "interval between the points of a trajectory"},
	{"rtol", "relative tolerance", "", Positive, "relative error tolerance of the integrator"},
	{"seed", "random seed", "", Count, "seed of every random number of a simulation"},
	{"jobs", "jobs per replication", "jobs", Count, "observed jobs per replication of a run of fixed length (0: run to the precision)"},
	{"warmup", "warm-up jobs", "jobs", Count, "jobs deleted as the initial transient (MSER-5 truncation), all replications together"},
	{"deleted", "jobs deleted", "jobs", Count, "jobs per replication deleted before any analysis"},
	{"budget", "budget", "jobs", Count, "most jobs a run to the precision observes, all replications together"},
	{"reps", "replications", "", Count, "independent replications (or runs per simulated period)"},
	{"level", "confidence level", "", Level, "confidence level of half_width"},
	{"rel_precision", "relative precision", "", NonNegative, "relative error of the mean time in system aimed at"},
	{"relaxation_time", "relaxation time", unitTime, NonNegative, "the planner's relaxation time of a server's queue (Whitt's heavy-traffic approximation)"},
	{"correlation_age", "correlation age", unitTime, NonNegative, "lag at which a server's queue length is correlated with itself"},

	// Times, counts and probabilities the models compute.
	{"sojourn", "mean time in system", unitTime, Sojourn, "mean time from a job's arrival to its departure"},
	{"sojourn_points", "mean time in system per period", unitTime, NonNegative, "the map's time-averaged queue over λ, period by period of the cycle"},
	{"mean_wait", "mean wait", unitTime, NonNegative, "mean time before service starts (FCFS)"},
	{"mean_delay", "mean delay", unitTime, NonNegative, "mean time in system minus size"},
	{"prob_wait", "P(wait > 0)", "", Probability, "probability that a job waits before its service starts (FCFS)"},
	{"busy_at_arrival", "P(server busy at arrival)", "", Probability, "probability that a job's server held a job when it arrived"},
	{"slowdown", "mean slowdown E[T/S]", "", Sojourn, "mean of time in system divided by size"},
	{"prob_slowdown_over_10", "P(T > 10·S)", "", Probability, "probability that time in system exceeds ten times the size"},
	{"blocking", "blocking probability", "", Probability, "fraction of jobs lost"},
	{"fraction_random", "fraction sent at random", "", Probability, "fraction of jobs sent without a token (JIQ queueing)"},
	{"busy", "busy servers", "", Probability, "fraction of servers with at least one job"},
	{"tokens", "tokens per server", "", Probability, "tokens held by dispatcher r, divided by N"},
	{"token_shares", "token shares", "", Probability, "share of the held tokens at dispatcher r"},
	{"no_tokens", "P(no tokens)", "", Probability, "probability that dispatcher r holds no token"},
	{"occupancy", "occupancy", "", Probability, "fraction of servers with exactly i jobs"},
	{"tail", "P(count ≥ n)", "", Probability, "fraction of servers with at least n jobs"},
	{"board", "board distribution", "", Probability, "fraction of servers showing n jobs on the board at a refresh"},
	{"board_mean", "mean board", unitJobs, NonNegative, "mean queue length shown on the board at a refresh"},
	{"series", "board mean at each refresh", unitJobs, NonNegative, "the board mean at every refresh of a replication"},
	{"mean_queue", "mean jobs per server", unitJobs, NonNegative, "mean number of jobs at a server"},
	{"random_rate", "random-dispatch rate λ₂", unitRate, NonNegative, "rate of jobs sent to random servers (JIQ queueing)"},
	{"nu_star", "ν*", "per token per mean service time", NonNegative, "smallest token exchange rate with zero blocking or wait in the limit"},
	{"limit", "N → ∞ blocking", "", Probability, "blocking in the N → ∞ limit"},
	{"limit_diff", "B − B∞", "", Real, "finite-N blocking minus its N → ∞ limit"},
	{"correlation", "correlation", "", Correlation, "correlation across servers of queue lengths correlation_age apart"},
	{"truncated_mass", "truncated mass", "", Probability, "stationary probability mass cut off by a truncation"},
	{"boundary_mass", "boundary mass", "", Probability, "largest fraction of servers at the truncation level seen"},
	{"lost", "mass lost", "", Probability, "largest probability mass lost to a truncation in one period (or fraction of arrivals lost)"},
	{"margins", "token margins", unitRate, Real, "α_r·λ minus the token inflow of an empty pool"},
	{"fraction", "fraction tipped", "", Probability, "fraction of runs that tipped into the herd"},
	{"tipped", "runs tipped", "", Count, "runs that tipped into the herd"},
	{"finite_theory", "finite-N theory", "", Text, "the theory of a finite-N edge: escape (the one-coordinate escape chain) or noisy-map (Monte Carlo of the noisy map)"},
	{"probability", "tipping probability", "", Probability, "probability of tipping within the horizon from the balanced state (the noisy map: the isotonic fit of the tipped fractions)"},
	{"mean_time_to_tip", "mean time to tip", "refresh periods", NonNegative, "mean time to tip from the balanced state: periods watched per tip (null: no run tipped)"},
	{"curve", "tipping curve", "", Text, "the theory's tipping probability at the periods its search computed"},

	// The stale board's edge and attractors.
	{"scaled", "T(1−λ)²", unitTime, NonNegative, "a refresh period scaled by (1 − λ)² (the tipping edge T*(1−λ)²)"},
	{"infinite_scaled", "T*(1−λ)² at N = ∞", unitTime, NonNegative, "the N → ∞ edge a finite-N edge lies above"},
	{"bracket", "bracket", unitTime, NonNegative, "[lo, hi] refresh periods around the edge"},
	{"collision", "border collision", unitTime, NonNegative, "refresh period where the end of the pass in progress extrapolates to T"},
	{"branch", "branch", "", Count, "the pass in progress at T on a balanced fixed point"},
	{"line", "0.9(k − 2)", unitTime, Real, "the rule of thumb for the edge"},
	{"ratio", "ratio to the rule of thumb", "", Real, "scaled divided by line"},
	{"radius", "spectral radius", "", NonNegative, "modulus of the leading eigenvalue"},
	{"abscissa", "spectral abscissa", "", Real, "largest real part of the Jacobian's eigenvalues"},
	{"re", "real part", "", Real, "real part of a complex number"},
	{"im", "imaginary part", "", Real, "imaginary part of a complex number"},
	{"cycle_period", "cycle length", "refresh periods", Count, "length of the attractor's cycle (1 for a fixed point)"},
	{"iterations", "iterations", "refresh periods", Count, "refresh periods iterated"},
	{"transient", "transient", "refresh periods", Count, "refresh periods before the last phase"},
	{"from", "from", "refresh periods", Count, "first period of a phase"},
	{"to", "to", "refresh periods", Count, "period after the last of a phase"},
	{"stderr", "standard error", unitTime, NonNegative, "standard error of a phase's mean"},
	{"stddev", "standard deviation", unitTime, NonNegative, "spread of a phase's values"},
	{"above", "period above", unitTime, NonNegative, "period just above T* where the confirmation runs"},
	{"above_decay", "decay above", "", NonNegative, "perturbation after 100 periods over the one at start"},
	{"below", "period below", unitTime, NonNegative, "0.99·T*, where the confirmation checks the board tips"},
	{"below_periods", "periods to tip", "refresh periods", Count, "refresh periods until the board mean doubled"},
	{"below_sojourn", "herd's mean time in system", unitTime, Sojourn, "mean time in system of the herd below the edge"},
	{"evaluations", "evaluations", "", Count, "map evaluations"},
	{"part_servers", "servers per part", "servers", Count, "servers of the map's farm at finite N: N/k for partitioned dispatchers, N otherwise"},
	{"sojourn_refined", "refined mean time in system", unitTime, Sojourn, "the balanced state's mean time in system at N servers to order 1/N (the refined mean)"},
	{"sojourn_coef", "1/N coefficient", unitTime, Real, "c of the refined mean time in system S* + c/N"},
	{"step_error", "finite-difference error", unitTime, Real, "change of sojourn_coef when the second differences' steps are halved"},
	{"board_mean_refined", "refined mean board", unitJobs, NonNegative, "the balanced state's mean board at N servers to order 1/N"},
	{"border_gap", "border gap", unitTime, NonNegative, "distance from T of the nearest pass boundary at the balanced fixed point"},
	{"border_spread", "border spread", unitTime, NonNegative, "standard deviation at N servers of the cut between the pass in progress and the next"},

	// Policies on a board and the crossing of two policies' curves.
	{"averaged", "periods averaged", "refresh periods", Count, "refresh periods a board policy's values are averaged over (1 for a fixed point)"},
	{"work", "state updates", "", Count, "server states updated in uniformised steps, the unit of a periodic board's cost"},
	{"work_estimate", "estimated state updates", "", NonNegative, "the state updates estimated before the run"},
	{"versus_sojourn", "other policy's mean time in system", unitTime, Sojourn, "mean time in system of the policy compared against"},
	{"difference", "difference of mean times", unitTime, Real, "sojourn minus versus_sojourn"},
	{"range", "range searched", unitTime, NonNegative, "[lo, hi] refresh periods searched for a crossing"},
	{"published_range", "published range", unitTime, NonNegative, "[lo, hi] grid cell in which a published simulation found the crossing"},

	// The trap door: the critical push and the mechanism.
	{"push", "push", "", Text, "a disturbance of the farm (farm.Push words)"},
	{"on_balanced", "on the balanced state", "", Text, "whether the push lands on the balanced fixed point itself"},
	{"raise", "difference d", unitJobs, Positive, "the jobs added to half the servers whose one-refresh response is reported"},
	{"critical", "critical push b*", unitJobs, NonNegative, "smallest push of its family whose orbit ends in the herd, in jobs per server hit"},
	{"critical_scaled", "b*/T", "", NonNegative, "the critical push in units of the refresh period"},
	{"push_bracket", "push bracket", unitJobs, NonNegative, "[largest push found to recover, smallest found to tip]"},
	{"orbits", "orbits", "", Count, "orbits of the map classified"},
	{"tip_periods", "periods to tip", "refresh periods", Count, "refresh periods the orbit at the bracket's top took to tip"},
	{"recover_periods", "periods to recover", "refresh periods", Count, "refresh periods the orbit at the bracket's bottom took to recover"},
	{"quantiles", "board quantiles", unitJobs, Count, "the board's 5%, 25%, 50%, 75% and 95% points"},
	{"gap", "two-group gap", unitJobs, NonNegative, "gap between the means of the board's two groups (the tipping definition's)"},
	{"board_range", "board range", unitJobs, NonNegative, "longest less shortest queue on the board (expected, for N servers drawn from it)"},
	{"scaled_range", "(max − min)·(1 − λ)", unitJobs, NonNegative, "the board range scaled by 1 − λ"},
	{"response", "response to d", unitJobs, Real, "the raised half's lead over the other half one refresh after a difference d"},
	{"response_factor", "response factor", "", Real, "response divided by d (the top-up alone gives −(k − 1))"},
	{"top_up", "top-up factor", "", Real, "−(k − 1): a difference's factor before any drain"},
	{"drained", "share drained", "", Real, "1 − response_factor/top_up: the share of the overshoot gone by the next refresh"},

	// Estimates and statistics.
	{"mean", "mean", "", Real, "a mean (the estimate's quantity gives its unit)"},
	{"ci95", "95% half-width", "", NonNegative, "half-width of the 95% interval (or the interval itself, [lo, hi])"},
	{"half_width", "half-width", "", NonNegative, "half-width of the interval at level"},
	{"half_width_999", "99.9% half-width", "", NonNegative, "half-width of the 99.9% interval a check uses"},
	{"samples", "samples", "", Count, "independent means the interval is computed from"},
	{"lower", "lower bound", "", Real, "lower end of the interval at level"},
	{"upper", "upper bound", "", Real, "upper end of the interval at level"},
	{"batches", "batch means", "", Count, "batch means the steady-state interval is formed from"},
	{"batch_size", "batch size", "jobs", NonNegative, "mean number of jobs per batch"},
	{"effective_jobs", "jobs used", "jobs", Count, "jobs a steady-state estimate uses (after the warm-up)"},
	{"analyses", "analyses", "", Count, "times the sequential procedure analysed the replications"},
	{"needed_jobs", "jobs needed", "jobs", Count, "about the jobs in all that would reach the precision (0 when reached)"},
	{"theory", "theory", "", Real, "a theoretical value checked"},
	{"allow", "allowance", "", NonNegative, "model error a check allows beyond the interval"},
	{"jobs_measured", "jobs measured", "jobs", Count, "measured jobs in all replications"},
	{"events", "events", "", Count, "events simulated"},
	{"steps", "steps", "", Count, "integrator steps"},
	{"residual", "residual", unitRate, NonNegative, "largest |dy/dt| at the end of an integration"},
	{"max_diff", "largest difference", "", NonNegative, "largest difference between the limit and the ODE's end state"},
	{"conservation_error", "conservation error", "", NonNegative, "largest violation of a conservation law along a trajectory"},
	{"t", "time", unitTime, NonNegative, "time"},
	{"dispatcher", "dispatcher", "", Count, "dispatcher number, 1-based"},
	{"states", "states", "", Count, "server states of the solved chain"},
	{"min", "smallest value", "", Real, "smallest value"},
	{"max", "largest value", "", Real, "largest value"},
	{"seconds", "wall time", unitSeconds, NonNegative, "wall time"},
	{"events_per_second", "events per second", "per second of wall time", NonNegative, "simulated events per second of wall time"},
	{"cases", "cases", "", Count, "cases run"},
	{"failed", "failed", "", Count, "failed checks or tasks"},
	{"done", "done", "", Count, "cases or tasks finished"},
	{"tasks", "tasks", "", Count, "tasks of a sweep"},
	{"remaining", "remaining", "", Count, "tasks not yet run"},
	{"lines", "lines", "", Count, "lines of a results file"},
	{"unknown", "unknown lines", "", Count, "lines of a results file whose task is not in the sweep's grid"},
	{"ok", "ok", "", Count, "tasks that succeeded"},
	{"schema_version", "schema version", "", Count, "version of the JSON documents"},
}

// Words, flags and structure: fields that are not numbers to check.
var textual = []string{
	"fluid", "command", "config", "status", "rows", "points", "phases", "shards", "shard", "files",
	"failures", "id", "point", "error", "name", "module", "version", "revision", "time", "modified",
	"go_version", "note", "verdict", "attractor", "mechanism", "method", "fallback", "policy",
	"discipline", "sizes", "start", "scenario", "tally", "sweep", "filter", "slowdown_note",
	"stability", "ode_check", "confirmation", "simulated", "refined", "eigenvalues", "leading",
	"empty_pools", "tokens_determined", "zero_limit", "confirm", "simulate", "replacement",
	"precision_reached", "partial", "empty", "above_ok", "below_tipped", "switches", "sim",
	"checks", "case", "source", "quantity", "pass", "quick", "interrupted", "recorded",
	"reason", "violations", "path", "invariant", "values", "ignored",
	"steady", "independent", "warnings",
	"approximate", "versus_policy", "correlations", "staleness", "inside",
}

var byName = func() map[string]Quantity {
	m := make(map[string]Quantity, len(declared)+len(textual))
	for _, q := range declared {
		if _, dup := m[q.Name]; dup {
			panic("quantity: " + q.Name + " declared twice")
		}
		m[q.Name] = q
	}
	for _, n := range textual {
		if _, dup := m[n]; dup {
			panic("quantity: " + n + " declared twice")
		}
		m[n] = Quantity{Name: n, Domain: Text}
	}
	return m
}()

// Lookup returns the quantity declared under a JSON name.
func Lookup(name string) (Quantity, bool) {
	q, ok := byName[name]
	return q, ok
}

// Names lists every declared name, sorted.
func Names() []string {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Axis is a quantity's axis label: its label with its unit in
// parentheses, or the name itself when it is not declared.
func Axis(name string) string {
	q, ok := Lookup(name)
	if !ok || q.Label == "" {
		return name
	}
	if q.Unit == "" {
		return q.Label
	}
	return q.Label + " (" + q.Unit + ")"
}
