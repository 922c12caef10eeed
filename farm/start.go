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
}

// String gives the words that ParseStart reads.
func (s Start) String() string {
	switch s.Kind {
	case Balanced:
		if s.Jobs == 0 {
			return "empty"
		}
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

// IsEmpty reports whether no server holds a job at the start.
func (s Start) IsEmpty() bool {
	return s.Kind == Empty || s.Jobs == 0
}

// Validate checks the start (*param.Error naming Start).
func (s Start) Validate() error {
	if s.Kind < Empty || s.Kind > Hot {
		return param.Errorf("Start", "unknown start kind %d", int(s.Kind))
	}
	if s.Jobs < 0 {
		return param.Errorf("Start", "%d jobs, want ≥ 0", s.Jobs)
	}
	if s.Kind == Empty && s.Jobs != 0 {
		return param.Errorf("Start", "an empty start holds no jobs (got %d)", s.Jobs)
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
	n, err := parseCount(arg)
	if !has || err != nil {
		return Start{}, param.Errorf("Start", "%q: %s needs a whole number of jobs ≥ 0 after the colon", s, name)
	}
	if n == 0 {
		return Start{}, nil // every kind with no jobs is the empty start
	}
	return Start{Kind: k, Jobs: n}, nil
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
