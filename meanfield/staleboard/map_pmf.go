package staleboard

import "math"

// Poisson and binomial terms to full relative precision (Loader's
// saddle-point expansion, "Fast and accurate computation of binomial
// probabilities", 2000): the log-gamma form exp(−μ + x·log μ − log x!)
// cancels terms of size x·log x and loses about x·log x·2⁻⁵³ — 4e-12 of
// Pois(3000; 3000) — which the kernels over a whole period would carry.

// stirlerr is log(n!) − log(√(2πn)·(n/e)ⁿ), n ≥ 1.
func stirlerr(n float64) float64 {
	if n <= 15 {
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - 0.5*math.Log(2*math.Pi)
	}
	const s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 is x·log(x/m) + m − x (x > 0, m > 0), by a series where x is near m.
func bd0(x, m float64) float64 {
	if math.Abs(x-m) < 0.1*(x+m) {
		v := (x - m) / (x + m)
		s := (x - m) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/m) + m - x
}

// poissonPMF is Pois(x; μ), μ > 0.
func poissonPMF(x int, mu float64) float64 {
	if x == 0 {
		return math.Exp(-mu)
	}
	fx := float64(x)
	return math.Exp(-stirlerr(fx)-bd0(fx, mu)) / math.Sqrt(2*math.Pi*fx)
}

// binomPMF is P(Binomial(n, ρ) = x), 0 < ρ < 1, 0 ≤ x ≤ n.
func binomPMF(n, x int, rho float64) float64 {
	q := 1 - rho
	switch x {
	case 0:
		return math.Exp(float64(n) * math.Log1p(-rho))
	case n:
		return math.Exp(float64(n) * math.Log(rho))
	}
	fn, fx := float64(n), float64(x)
	lc := stirlerr(fn) - stirlerr(fx) - stirlerr(fn-fx) - bd0(fx, fn*rho) - bd0(fn-fx, fn*q)
	lf := math.Log(2*math.Pi) + math.Log(fx) + math.Log1p(-fx/fn)
	return math.Exp(lc - 0.5*lf)
}
