package quantity

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Tol is the tolerance of the checks on exact and closed-form values,
// relative to the larger side (absolute near 0): far above the rounding
// of the computations (1e-15 … 1e-12) and far below a printed digit.
const Tol = 1e-9

// looseTol is the tolerance where a truncation, an integration or an
// iteration to a tolerance stands between the two sides (a distribution
// truncated at a mass of 1e-12, an ODE at rtol 1e-10, a map iterated to
// 1e-10 in ‖·‖₁).
const looseTol = 1e-6

// Violation is one failed invariant.
type Violation struct {
	// Path locates the value: JSON field names and array indices
	// ("rows[2].sojourn").
	Path string
	// Invariant is what should hold ("in [0, 1]", "busy + Σ tokens = 1").
	Invariant string
	// Values is the evidence.
	Values string
}

func (v Violation) String() string {
	if v.Path == "" {
		return fmt.Sprintf("%s does not hold (%s)", v.Invariant, v.Values)
	}
	return fmt.Sprintf("%s: %s does not hold (%s)", v.Path, v.Invariant, v.Values)
}

// Error is the error of a result that failed its invariants.
type Error struct{ Violations []Violation }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("the result failed its invariants, so it is not shown as an answer: ")
	for i, v := range e.Violations {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Violations)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Check holds a document (a report value, as encoding/json would write
// it) to the domains of its quantities and to the relations between
// them. It returns nil or an *Error listing every violation.
func Check(doc any) error {
	c := &checker{}
	root := tree(reflect.ValueOf(doc))
	c.walk("", "", root, Real, false)
	if o, ok := root.(*object); ok {
		c.relations("", o, nil)
	}
	if len(c.found) == 0 {
		return nil
	}
	return &Error{Violations: c.found}
}

type checker struct{ found []Violation }

func (c *checker) fail(path, invariant, format string, a ...any) {
	c.found = append(c.found, Violation{Path: path, Invariant: invariant, Values: fmt.Sprintf(format, a...)})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// isEstimate reports whether o is a simulated estimate {mean, ci95, …}.
func isEstimate(o *object) bool {
	_, m := o.get("mean")
	_, c := o.get("ci95")
	_, s := o.get("samples")
	return m && c && s
}

// walk checks every number under v against the domain of the quantity
// that holds it: key's own, or for the elements of an array the array's,
// or for the mean of an estimate the estimate's.
func (c *checker) walk(path, key string, v any, d Domain, estimate bool) {
	switch x := v.(type) {
	case float64:
		c.number(path, key, x, d, estimate)
	case []any:
		for i, e := range x {
			c.walk(path+"["+strconv.Itoa(i)+"]", key, e, d, estimate)
		}
	case *object:
		est := isEstimate(x)
		if est && !emptyEstimate(x) {
			c.walk(join(path, "mean"), key, x.vals["mean"], d, true)
		}
		for _, k := range x.keys {
			if est && k == "mean" {
				continue
			}
			kd := domainIn(key, k)
			c.walk(join(path, k), k, x.vals[k], kd, false)
		}
	}
}

// within overrides a quantity's domain where it stands inside another:
// a phase of the map is a stretch of periods, whose time-averaged queue
// over λ (its "sojourn") may be below 1 in a transient from an empty
// board.
var within = map[string]Domain{
	"phases.sojourn": NonNegative,
	"phases.min":     NonNegative,
	"phases.max":     NonNegative,
}

// domainIn is the domain of key inside the quantity parent.
func domainIn(parent, key string) Domain {
	if d, ok := within[parent+"."+key]; ok {
		return d
	}
	if q, ok := Lookup(key); ok {
		return q.Domain
	}
	return Real
}

func emptyEstimate(o *object) bool {
	n, _ := o.vals["samples"].(float64)
	return n == 0
}

func (c *checker) number(path, key string, x float64, d Domain, estimate bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		c.fail(path, "a finite number", "%s = %v", key, x)
		return
	}
	lo, hi, name := math.Inf(-1), math.Inf(1), d.String()
	switch d {
	case NonNegative, Count:
		lo = 0
	case Positive:
		if x <= 0 {
			c.fail(path, name, "%s = %v", key, x)
		}
		return
	case Probability:
		lo, hi = 0, 1
	case Correlation:
		lo, hi = -1, 1
	case Level:
		if x <= 0 || x >= 1 {
			c.fail(path, name, "%s = %v", key, x)
		}
		return
	case Sojourn:
		if estimate {
			// A sample mean of times in system is positive; that it is
			// above the mean delay is a relation (checked where both are).
			if x <= 0 {
				c.fail(path, "> 0 (a mean of times in system)", "%s = %v", key, x)
			}
			return
		}
		// Every mean time in system fluid computes goes through a
		// quadrature, a truncation or an iteration (the map at its
		// shortest period T = 0.01 gives 1 − 5.5e-9): held to 1 within
		// looseTol, still far from any wrong answer (−0.867, 0.0025).
		if x < 1-looseTol {
			c.fail(path, name, "%s = %v", key, x)
		}
		return
	}
	if x < lo-Tol*math.Max(1, math.Abs(lo)) || x > hi+Tol*math.Max(1, math.Abs(hi)) {
		c.fail(path, name, "%s = %v", key, x)
	}
	if d == Count && x != math.Trunc(x) {
		c.fail(path, name, "%s = %v", key, x)
	}
}
