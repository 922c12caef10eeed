package farm

import (
	"fmt"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

// Scenario selects what a join-the-idle-queue dispatcher does with a job
// when it holds no token.
type Scenario int

const (
	// Blocking discards the job.
	Blocking Scenario = iota
	// Queueing sends the job to a server chosen uniformly at random,
	// revoking that server's token if it was idle.
	Queueing
)

func (s Scenario) String() string {
	switch s {
	case Blocking:
		return "blocking"
	case Queueing:
		return "queueing"
	}
	return fmt.Sprintf("scenario(%d)", int(s))
}

// Valid reports whether s is Blocking or Queueing.
func (s Scenario) Valid() bool { return s == Blocking || s == Queueing }

// ParseScenario parses blocking or queueing (also queuing; any case).
func ParseScenario(s string) (Scenario, error) {
	switch strings.ToLower(s) {
	case "blocking":
		return Blocking, nil
	case "queueing", "queuing":
		return Queueing, nil
	}
	return 0, param.Errorf("Scenario", "unknown scenario %q (want blocking or queueing)", s)
}

// Allotment returns the token allotment β in use: beta itself, or, when
// beta is nil, the basic join-the-idle-queue allotment β_r = 1/R over R
// dispatchers.
func Allotment(beta []float64, dispatchers int) []float64 {
	if beta != nil {
		return beta
	}
	b := make([]float64, dispatchers)
	for i := range b {
		b[i] = 1 / float64(dispatchers)
	}
	return b
}
