package farm

import (
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

// PushKind names a disturbance of a running farm.
type PushKind int

const (
	// NoPush: no disturbance.
	NoPush PushKind = iota
	// Backlog: a fraction Fraction of the servers (the first
	// round(Fraction·N)) each receive Jobs extra jobs. With Fraction ½ on
	// an empty farm it is the half-loaded start; on a running farm it is
	// what a restart of the other servers or a scale-out by empty servers
	// leaves behind (the servers that kept running, or the old ones,
	// carry the backlog the rest do not).
	Backlog
	// SpreadPush: the extra jobs spread evenly from 0 to Jobs over the
	// servers (server i of N receives round(i·Jobs/(N − 1))).
	SpreadPush
	// HotPush: one server receives Jobs extra jobs.
	HotPush
)

// Push is a disturbance: extra jobs that land on part of the farm at a
// refresh, on top of what the servers hold then. The theory applies it to
// the board distribution (package meanfield/staleboard), the simulator to
// the servers' queues (package sim), in the same words.
type Push struct {
	Kind PushKind
	// Fraction is the share of servers a Backlog lands on, 0 < f ≤ 1
	// (zero: ½). Only for Backlog.
	Fraction float64
	// Jobs is the extra jobs per server hit (SpreadPush: the most any
	// server receives), 1..MaxPushJobs; or PerPeriod, if positive, gives
	// them in units of the refresh period T (At resolves them).
	Jobs      int
	PerPeriod float64
	// At is the refresh at which the push lands, 0..MaxPushAt: 0 is the
	// start (on top of the starting state, before the first board is
	// read); n is time n·T, just before the board is read then.
	At int
}

// Bounds of a push: the extra jobs per server (one board level each in
// the theory) and the refresh at which it lands (the periods run before
// it).
const (
	MaxPushJobs = 1 << 20
	MaxPushAt   = 100_000
)

// IsZero reports whether the push does nothing.
func (p Push) IsZero() bool { return p.Kind == NoPush }

// Frac is the share of servers the push lands on: Fraction (½ when
// zero) for Backlog, 1 for SpreadPush; HotPush lands on one server.
func (p Push) Frac() float64 {
	switch p.Kind {
	case Backlog:
		if p.Fraction == 0 {
			return 0.5
		}
		return p.Fraction
	case SpreadPush:
		return 1
	}
	return 0
}

// AtPeriod is the push at refresh period T: its jobs in units of T
// resolved to round(PerPeriod·T).
func (p Push) AtPeriod(period float64) Push {
	if p.PerPeriod > 0 {
		p.Jobs, p.PerPeriod = perPeriodJobs(p.PerPeriod, period), 0
	}
	return p
}

// Validate checks the push (*param.Error naming Push).
func (p Push) Validate() error {
	if p.Kind < NoPush || p.Kind > HotPush {
		return param.Errorf("Push", "unknown push kind %d", int(p.Kind))
	}
	if p.Kind == NoPush {
		if p != (Push{}) {
			return param.Errorf("Push", "no push, but jobs, a fraction or a refresh given")
		}
		return nil
	}
	if p.Kind == Backlog && !(p.Fraction >= 0 && p.Fraction <= 1) || p.Kind != Backlog && p.Fraction != 0 {
		return param.Errorf("Push", "fraction %v, want 0 < f ≤ 1 (a backlog only)", p.Fraction)
	}
	if !(p.PerPeriod >= 0 && p.PerPeriod <= MaxPerPeriod) || p.PerPeriod > 0 && p.Jobs != 0 {
		return param.Errorf("Push", "%v·T jobs (and %d), want one of 0 < x ≤ %vT or a count", p.PerPeriod, p.Jobs, MaxPerPeriod)
	}
	if p.PerPeriod == 0 && (p.Jobs < 1 || p.Jobs > MaxPushJobs) {
		return param.Errorf("Push", "%d extra jobs per server, want 1..%d", p.Jobs, MaxPushJobs)
	}
	if p.At < 0 || p.At > MaxPushAt {
		return param.Errorf("Push", "at refresh %d, want 0..%d", p.At, MaxPushAt)
	}
	return nil
}

// ServerJobs returns the extra jobs server i of n receives (the push
// resolved to whole jobs).
func (p Push) ServerJobs(i, n int) int {
	switch p.Kind {
	case Backlog:
		if i < int(math.Round(p.Frac()*float64(n))) {
			return p.Jobs
		}
	case SpreadPush:
		if n == 1 {
			return p.Jobs
		}
		return int(math.Round(float64(i) * float64(p.Jobs) / float64(n-1)))
	case HotPush:
		if i == 0 {
			return p.Jobs
		}
	}
	return 0
}

// String gives the words that ParsePush reads.
func (p Push) String() string {
	var s string
	switch p.Kind {
	case NoPush:
		return "none"
	case Backlog:
		s = "backlog:" + strconv.FormatFloat(p.Frac(), 'g', -1, 64) + ":" + jobWords(p.Jobs, p.PerPeriod)
	case SpreadPush:
		s = "spread:" + jobWords(p.Jobs, p.PerPeriod)
	case HotPush:
		s = "hot:" + jobWords(p.Jobs, p.PerPeriod)
	}
	if p.At > 0 {
		s += "@" + strconv.Itoa(p.At)
	}
	return s
}

// ParsePush parses the words of a push (any case):
//
//	none             no push
//	backlog:F:B      a fraction F of the servers receive B extra jobs each
//	half:B           backlog:0.5:B
//	spread:S         extra jobs spread evenly from 0 to S over the servers
//	hot:X            one server receives X extra jobs
//
// Every count may be a multiple of the refresh period, "0.1T"; "@n" after
// the words lands the push at refresh n instead of the start
// ("half:0.1T@20").
func ParsePush(s string) (Push, error) {
	bad := func(why string) (Push, error) {
		return Push{}, param.Errorf("Push", "%q: %s (want none, backlog:F:B, half:B, spread:S or hot:X, B a count or a multiple of T such as 0.1T, optionally @n for refresh n)", s, why)
	}
	w := strings.ToLower(strings.TrimSpace(s))
	if w == "none" || w == "" {
		return Push{}, nil
	}
	var p Push
	if body, at, ok := strings.Cut(w, "@"); ok {
		n, err := parseCount(at)
		if err != nil || n > MaxPushAt {
			return bad("the refresh after @ is a whole number 0.." + strconv.Itoa(MaxPushAt))
		}
		w, p.At = body, n
	}
	parts := strings.Split(w, ":")
	amount := parts[len(parts)-1]
	switch {
	case parts[0] == "backlog" && len(parts) == 3:
		f, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || !(f > 0 && f <= 1) {
			return bad("the fraction F is in (0, 1]")
		}
		p.Kind, p.Fraction = Backlog, f
	case parts[0] == "half" && len(parts) == 2:
		p.Kind, p.Fraction = Backlog, 0.5
	case parts[0] == "spread" && len(parts) == 2:
		p.Kind = SpreadPush
	case parts[0] == "hot" && len(parts) == 2:
		p.Kind = HotPush
	default:
		return bad("unknown push")
	}
	n, per, err := parseJobs(amount)
	if err != nil {
		return bad("the jobs are a whole number or a multiple of T")
	}
	p.Jobs, p.PerPeriod = n, per
	if err := p.Validate(); err != nil {
		return Push{}, err
	}
	return p, nil
}
