package sim

import (
	"math"

	"github.com/fluidlb/fluid/farm"
)

// sizeLaw draws job sizes of mean 1 from a farm.Sizes law, with its
// parameters worked out once.
type sizeLaw struct {
	kind farm.SizeKind
	// H2: a giant of mean giantMean with probability giantProb, otherwise
	// a small job of mean smallMean (farm.H2Params).
	giantProb, giantMean, smallMean float64
	// Pareto: x_m·U^(−1/a) with x_m = paretoMin, −1/a = paretoExponent.
	paretoMin, paretoExponent float64
}

// newSizeLaw works out the parameters of z.
func newSizeLaw(z farm.Sizes) sizeLaw {
	l := sizeLaw{kind: z.Kind}
	switch z.Kind {
	case farm.H2:
		l.giantProb, l.giantMean, l.smallMean = farm.H2Params(z.SCV)
	case farm.Pareto:
		l.paretoMin, l.paretoExponent = (z.Shape-1)/z.Shape, -1/z.Shape
	}
	return l
}

// draw returns a job size, positive and finite: no draw (deterministic),
// one exponential, a uniform then an exponential (H2), or one uniform
// (Pareto; two in one draw out of 2,048, see rng.tailUniform).
func (l *sizeLaw) draw(r *rng) float64 {
	if l.kind == farm.Exponential { // the common case first
		return r.exp()
	}
	switch l.kind {
	case farm.H2:
		if r.float64() < l.giantProb {
			return l.giantMean * r.exp()
		}
		return l.smallMean * r.exp()
	case farm.Pareto:
		return l.paretoMin * math.Pow(r.tailUniform(), l.paretoExponent)
	}
	return 1 // farm.Deterministic
}
