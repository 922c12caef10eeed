package farm

import (
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

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
	// BoardJSQ: the lowest value on a board of queue lengths refreshed
	// every period.
	BoardJSQ
	// BoardJSQd: the lowest board value among D sampled servers.
	BoardJSQd
	// Tally: each dispatcher sends to the server minimising the board value
	// plus its own sends since the last refresh (the stale board with k
	// dispatchers).
	Tally
	// SharedTally: as Tally with one tally counting every dispatcher's
	// sends.
	SharedTally
	// Partitioned: dispatcher r owns a contiguous block of about N/k
	// servers and applies Tally there.
	Partitioned
	// TallyJSQd: best of D sampled servers by board + own tally.
	TallyJSQd
	// JIQBlocking (join the idle queue): a dispatcher with a token sends to
	// that idle server; without one the job is blocked (lost).
	JIQBlocking
	// JIQQueueing: without a token the job goes to a uniformly random
	// server, revoking that server's token if it was idle.
	JIQQueueing
)

var policyNames = [...]string{
	Random: "random", RoundRobin: "rr", JSQ: "jsq", JSQd: "jsqd", LeastWork: "least-work",
	BoardJSQ: "board-jsq", BoardJSQd: "board-jsqd", Tally: "tally", SharedTally: "shared-tally",
	Partitioned: "partitioned", TallyJSQd: "tally-jsqd", JIQBlocking: "jiq-blocking", JIQQueueing: "jiq-queueing",
}

// String is the policy's name (without D).
func (k PolicyKind) String() string {
	if k.Valid() {
		return policyNames[k]
	}
	return "policy(" + strconv.Itoa(int(k)) + ")"
}

// Valid reports whether k is one of the policies.
func (k PolicyKind) Valid() bool { return k >= 0 && int(k) < len(policyNames) }

// Policy is a dispatch policy.
type Policy struct {
	Kind PolicyKind
	// D is the number of servers sampled by JSQd, BoardJSQd, TallyJSQd.
	D int
	// Replacement samples the D servers with replacement (default:
	// without, D distinct servers).
	Replacement bool
}

// String gives the words that ParsePolicy reads (jsqd:2, tally, …).
func (p Policy) String() string {
	s := p.Kind.String()
	if p.Sampled() {
		s += ":" + strconv.Itoa(p.D)
	}
	return s
}

// Sampled reports whether the policy samples D servers.
func (p Policy) Sampled() bool {
	return p.Kind == JSQd || p.Kind == BoardJSQd || p.Kind == TallyJSQd
}

// UsesBoard reports whether the policy reads the stale board.
func (p Policy) UsesBoard() bool {
	switch p.Kind {
	case BoardJSQ, BoardJSQd, Tally, SharedTally, Partitioned, TallyJSQd:
		return true
	}
	return false
}

// JIQ reports whether the policy is one of the join-the-idle-queue
// variants.
func (p Policy) JIQ() bool { return p.Kind == JIQBlocking || p.Kind == JIQQueueing }

// MaxSampled bounds D: a best of more than this many servers is least
// loaded in all but name.
const MaxSampled = 1000

// ParsePolicy parses a policy's words (any case): random, rr, jsq, jsqd:D,
// least-work, board-jsq, board-jsqd:D, tally, shared-tally, partitioned,
// tally-jsqd:D, jiq-blocking, jiq-queueing.
func ParsePolicy(s string) (Policy, error) {
	name, arg, has := strings.Cut(strings.ToLower(s), ":")
	for k, n := range policyNames {
		if n != name {
			continue
		}
		p := Policy{Kind: PolicyKind(k)}
		if p.Sampled() {
			d, err := parseCount(arg)
			if !has || err != nil || d < 1 || d > MaxSampled {
				return Policy{}, param.Errorf("Policy", "%q: %s needs the number of sampled servers, 1..%d, e.g. %s:2", s, name, MaxSampled, name)
			}
			p.D = d
		} else if has {
			return Policy{}, param.Errorf("Policy", "%q: %s takes no parameter", s, name)
		}
		return p, nil
	}
	return Policy{}, param.Errorf("Policy", "unknown policy %q (want random, rr, jsq, jsqd:D, least-work, board-jsq, board-jsqd:D, tally, shared-tally, partitioned, tally-jsqd:D, jiq-blocking or jiq-queueing)", s)
}
