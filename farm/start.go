package farm

import (
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

// StartKind names an initial state.
type StartKind int

const (
	// Empty: every server idle (JIQ: every token placed by β). The same as
	// Balanced with Jobs = 0.
	Empty StartKind = iota
	// Balanced: every server holds Jobs jobs.
	Balanced
	// Half: half the servers (the first ⌊N/2⌋) hold Jobs jobs each, the
	// rest are empty — the half-loaded start, with backlog B = Jobs.
	Half
	// Spread: queue lengths spread evenly from 0 to Jobs.
	Spread
	// Hot: one server holds Jobs jobs, the others none.
	Hot
)

// Start is an initial state: what the servers hold at time 0.
type Start struct {
	Kind StartKind
	Jobs int
	// PerPeriod, if positive, gives the jobs in units of the refresh
	// period T instead (the words "half:0.1T"): At(T) resolves them to
	// Jobs = round(PerPeriod·T), so that one start means the same push at
	// every period of a sweep. Jobs is then 0 until resolved.
	PerPeriod float64
}

// MaxPerPeriod bounds Start.PerPeriod and Push.PerPeriod: a backlog of
// 100 refresh periods' worth of jobs per server (the herd holds about
// 0.8·T).
const MaxPerPeriod = 100

// At is the start at refresh period T: its jobs in units of T (PerPeriod)
// resolved to whole jobs, round(PerPeriod·T); a start given in jobs is
// returned as it is. T must be positive where PerPeriod is.
func (s Start) At(period float64) Start {
	if s.PerPeriod > 0 {
		s.Jobs, s.PerPeriod = perPeriodJobs(s.PerPeriod, period), 0
	}
	return s
}

// perPeriodJobs is round(x·T), at most 1<<31 − 1.
func perPeriodJobs(x, period float64) int {
	return int(math.Min(math.Round(x*period), math.MaxInt32))
}

// String gives the words that ParseStart reads.
func (s Start) String() string {
	switch s.Kind {
	case Balanced:
		if s.Jobs == 0 && s.PerPeriod == 0 {
			return "empty"
		}
		return "balanced:" + s.amount()
	case Half:
		return "half:" + s.amount()
	case Spread:
		return "spread:" + s.amount()
	case Hot:
		return "hot:" + s.amount()
	}
	return "empty"
}

// amount is the jobs as ParseStart reads them: a count, or "0.1T".
func (s Start) amount() string { return jobWords(s.Jobs, s.PerPeriod) }

// jobWords writes a number of jobs, or x·T as "xT".
func jobWords(jobs int, perPeriod float64) string {
	if perPeriod > 0 {
		return strconv.FormatFloat(perPeriod, 'g', -1, 64) + "T"
	}
	return strconv.Itoa(jobs)
}

// IsEmpty reports whether no server holds a job at the start.
func (s Start) IsEmpty() bool {
	return s.Kind == Empty || s.Jobs == 0 && s.PerPeriod == 0
}

// Validate checks the start (*param.Error naming Start).
func (s Start) Validate() error {
	if s.Kind < Empty || s.Kind > Hot {
		return param.Errorf("Start", "unknown start kind %d", int(s.Kind))
	}
	if s.Jobs < 0 {
		return param.Errorf("Start", "%d jobs, want ≥ 0", s.Jobs)
	}
	if s.Kind == Empty && (s.Jobs != 0 || s.PerPeriod != 0) {
		return param.Errorf("Start", "an empty start holds no jobs (got %s)", s.amount())
	}
	if !(s.PerPeriod >= 0 && s.PerPeriod <= MaxPerPeriod) {
		return param.Errorf("Start", "%v·T jobs, want 0 to %v periods' worth", s.PerPeriod, MaxPerPeriod)
	}
	if s.PerPeriod > 0 && s.Jobs != 0 {
		return param.Errorf("Start", "both %d jobs and %v·T: give one", s.Jobs, s.PerPeriod)
	}
	return nil
}

// MaxJobs is the most jobs any one server holds at the start.
func (s Start) MaxJobs() int {
	if s.Kind == Empty {
		return 0
	}
	return s.Jobs
}

// ParseStart parses the words of a start (any case):
//
//	empty        every server idle (also: balanced, balanced:0)
//	balanced:L   every server holds L jobs
//	half:B       half the servers hold B jobs, the rest none
//	spread:S     queue lengths spread evenly from 0 to S
//	hot:X        one server holds X jobs, the others none
//
// Every count may be given in units of the refresh period T instead, as
// a number followed by T ("half:0.1T"); At resolves it.
func ParseStart(s string) (Start, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	kinds := map[string]StartKind{"empty": Empty, "balanced": Balanced, "half": Half, "spread": Spread, "hot": Hot}
	k, ok := kinds[name]
	if !ok {
		return Start{}, param.Errorf("Start", "unknown start %q (want empty, balanced:L, half:B, spread:S or hot:X)", s)
	}
	if k == Empty || (k == Balanced && !has) {
		if has {
			return Start{}, param.Errorf("Start", "%q: empty takes no number", s)
		}
		return Start{}, nil
	}
	n, per, err := parseJobs(arg)
	if !has || err != nil {
		return Start{}, param.Errorf("Start", "%q: %s needs a whole number of jobs ≥ 0 (or a multiple of T such as 0.1T, at most %vT) after the colon", s, name, MaxPerPeriod)
	}
	if n == 0 && per == 0 {
		return Start{}, nil // every kind with no jobs is the empty start
	}
	return Start{Kind: k, Jobs: n, PerPeriod: per}, nil
}

// parseJobs reads a count of jobs: a whole number, or a multiple of the
// refresh period written xT (0 ≤ x ≤ MaxPerPeriod).
func parseJobs(s string) (int, float64, error) {
	if x, ok := strings.CutSuffix(s, "t"); ok {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil || !(v >= 0 && v <= MaxPerPeriod) {
			return 0, 0, strconv.ErrRange
		}
		return 0, v, nil
	}
	n, err := parseCount(s)
	return n, 0, err
}

// parseCount reads a decimal whole number ≥ 0 (leading zeros are decimal,
// never octal).
func parseCount(s string) (int, error) {
	n, err := strconv.ParseUint(s, 10, 31)
	return int(n), err
}

// ServerJobs returns the jobs that server i of n holds at the start.
func (s Start) ServerJobs(i, n int) int {
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
