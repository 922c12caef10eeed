package sim

import (
	"math"

	"github.com/fluidlb/fluid/spec"
)

// sizeLaw draws job sizes of mean 1 from a spec.Sizes law, with its
// parameters worked out once.
type sizeLaw struct {
	kind spec.SizeKind
	// H2: a giant of mean giantMean with probability giantProb, otherwise
	// a small job of mean smallMean (h2Params).
	giantProb, giantMean, smallMean float64
	// Pareto: x_m·U^(−1/a) with x_m = paretoMin, −1/a = paretoExponent.
	paretoMin, paretoExponent float64
}

// newSizeLaw works out the parameters of z.
func newSizeLaw(z spec.Sizes) sizeLaw {
	l := sizeLaw{kind: z.Kind}
	switch z.Kind {
	case spec.H2:
		l.giantProb, l.giantMean, l.smallMean = h2Params(z.SCV)
	case spec.Pareto:
		l.paretoMin, l.paretoExponent = (z.Shape-1)/z.Shape, -1/z.Shape
	}
	return l
}

// h2Params are the parameters of the balanced-means hyperexponential of
// mean 1 and squared coefficient of variation c > 1 (spec.H2Params): with
// probability p a giant of mean 1/(2p), otherwise a small job of mean
// 1/(2(1−p)), where p = (1 − s)/2 and s = √((c−1)/(c+1)).
//
// p is computed as 1/((c+1)(1+s)), the same number without the
// cancellation of 1 − s: the textbook form loses log₁₀(c) digits (a
// relative error of 10⁻⁴ in p, hence in the SCV, at c = 10¹²) and gives
// p = 0, a law of mean ½, from c ≈ 10¹⁶ on.
func h2Params(c float64) (p, giant, small float64) {
	s := math.Sqrt((c - 1) / (c + 1))
	p = 1 / ((c + 1) * (1 + s))
	return p, 1 / (2 * p), 1 / (2 * (1 - p))
}

// draw returns a job size, positive and finite: no draw (deterministic),
// one exponential, a uniform then an exponential (H2), or one uniform
// (Pareto; two in one draw out of 2,048, see rng.tailUniform).
func (l *sizeLaw) draw(r *rng) float64 {
	if l.kind == spec.Exponential { // the common case first
		return r.exp()
	}
	switch l.kind {
	case spec.H2:
		if r.float64() < l.giantProb {
			return l.giantMean * r.exp()
		}
		return l.smallMean * r.exp()
	case spec.Pareto:
		return l.paretoMin * math.Pow(r.tailUniform(), l.paretoExponent)
	}
	return 1 // spec.Deterministic
}
