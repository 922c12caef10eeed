package queues

import "math"

// brent finds a zero of f in [a, b], where fa = f(a) and fb = f(b) have
// opposite signs (or one is zero), to within xtol + 4ε|x|: Brent's
// zeroin, which combines bisection with secant and inverse quadratic
// interpolation and never takes more steps than bisection by much (R. P.
// Brent, Algorithms for Minimization without Derivatives, Prentice-Hall
// 1973, ch. 4). It returns the zero, the evaluations of f, and whether
// the bracket shrank to the tolerance within maxIter evaluations.
func brent(f func(float64) float64, a, b, fa, fb, xtol float64, maxIter int) (x float64, evals int, ok bool) {
	if fa == 0 {
		return a, 0, true
	}
	if fb == 0 {
		return b, 0, true
	}
	c, fc := a, fa
	d := b - a
	e := d
	for evals < maxIter {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol := 2*2.220446049250313e-16*math.Abs(b) + 0.5*xtol
		m := 0.5 * (c - b)
		if math.Abs(m) <= tol || fb == 0 {
			return b, evals, true
		}
		if math.Abs(e) < tol || math.Abs(fa) <= math.Abs(fb) {
			d, e = m, m // bisection
		} else {
			s := fb / fa
			var p, q float64
			if a == c { // secant
				p = 2 * m * s
				q = 1 - s
			} else { // inverse quadratic interpolation
				q0 := fa / fc
				r := fb / fc
				p = s * (2*m*q0*(q0-r) - (b-a)*(r-1))
				q = (q0 - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			} else {
				p = -p
			}
			if 2*p < math.Min(3*m*q-math.Abs(tol*q), math.Abs(e*q)) {
				e, d = d, p/q
			} else {
				d, e = m, m
			}
		}
		a, fa = b, fb
		if math.Abs(d) > tol {
			b += d
		} else if m > 0 {
			b += tol
		} else {
			b -= tol
		}
		fb = f(b)
		evals++
	}
	return b, evals, false
}
