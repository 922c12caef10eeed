package farm

import (
	"math"
	"strings"

	"github.com/fluidlb/fluid/internal/param"
)

// Discipline is a server's service discipline.
type Discipline int

const (
	// FCFS serves one job at a time in arrival order.
	FCFS Discipline = iota
	// PS (processor sharing) serves each of the n jobs present at rate 1/n.
	PS
)

func (d Discipline) String() string {
	if d == PS {
		return "ps"
	}
	return "fcfs"
}

// Valid reports whether d is FCFS or PS.
func (d Discipline) Valid() bool { return d == FCFS || d == PS }

// ParseDiscipline parses fcfs or ps (any case).
func ParseDiscipline(s string) (Discipline, error) {
	switch strings.ToLower(s) {
	case "fcfs":
		return FCFS, nil
	case "ps":
		return PS, nil
	}
	return 0, param.Errorf("Discipline", "unknown discipline %q (want fcfs or ps)", s)
}

// H2Params returns the balanced-means hyperexponential law with squared
// coefficient of variation c2 > 1: with probability
// p = (1 − s)/2, s = √((c²−1)/(c²+1)), a giant of mean 1/(2p), otherwise a
// small job of mean 1/(2(1−p)); the law has mean 1 and each class carries
// half the work.
//
// p is computed as 1/((c²+1)(1+s)), the same number without the
// cancellation of 1 − s: the textbook form loses log₁₀(c²) digits (a
// relative error of 10⁻⁴ in p, hence in the SCV, at c² = 10¹²) and gives
// p = 0, a law of mean ½, from c² ≈ 10¹⁶ on.
func H2Params(c2 float64) (p, giant, small float64) {
	s := math.Sqrt((c2 - 1) / (c2 + 1))
	p = 1 / ((c2 + 1) * (1 + s))
	return p, 1 / (2 * p), 1 / (2 * (1 - p))
}
