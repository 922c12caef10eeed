package steadystate

import "math"

// Truncation is where MSER puts the end of a series' initial transient.
type Truncation struct {
	// Point is the number of observations deleted (Batches · fine batch
	// size).
	Point int64 `json:"point"`
	// Batches is the number of fine batches deleted, of Of complete ones.
	Batches int `json:"batches"`
	Of      int `json:"of"`
	// Steady reports that the minimiser lies in the first half of the
	// series (Batches ≤ Of/2): the series reached a steady state inside
	// the run. Otherwise the run is too short to say what the steady state
	// is, and no steady-state estimate should be reported.
	Steady bool `json:"steady"`
	// Statistic is the MSER statistic at the minimum: the squared standard
	// error (up to a constant factor) of the mean of what remains.
	Statistic float64 `json:"statistic"`
}

// minFineForMSER is the fewest complete fine batches MSER works on.
const minFineForMSER = 8

// Truncate applies MSER to quantity q of s: over the complete fine
// batches (sums N_i, D_i, with D_i the batch size for a mean), it chooses
// the number d of batches to delete minimising
//
//	MSER(d) = Σ_{i ≥ d} (N_i − R_d·D_i)² / (Σ_{i ≥ d} D_i)²,  R_d = Σ_{i≥d} N_i / Σ_{i≥d} D_i,
//
// which for a mean (D_i = m) is White's (1/(n−d)²)·Σ_{i≥d} (Ȳ_i − Ȳ_d)², and
// for a ratio the delta-method variance of the ratio of what remains. d
// ranges over 0 … ⌊3n/4⌋: the last quarter is never a candidate, because
// the statistic of the last few batches is a variance estimate from one or
// two degrees of freedom, small by chance often enough (about 5% of
// stationary runs of 1,000 batches at d = n − 2) to fake a transient that
// lasts the whole run. A minimiser past n/2 means no steady state inside
// the run (White 1997; White, Cobb & Spratt 2000). Ties go to the smallest
// d. With fewer than 8 complete fine batches, or none with a positive
// denominator, nothing is deleted and Steady is false.
//
// It panics if q reads a channel that s does not have.
func Truncate(q Quantity, s *Series) Truncation {
	q.check(s)
	n := s.full
	t := Truncation{Of: n}
	if n < minFineForMSER {
		return t
	}
	var sn, sd float64
	for i := range n {
		a, b := q.pair(s, i)
		sn += a
		sd += b
	}
	if !(sd > 0) || math.IsInf(sn, 0) || math.IsNaN(sn) {
		return t
	}
	r0 := sn / sd // shift: the sums below are of deviations, so the variance does not cancel
	dmax := 3 * n / 4
	var a, b, c, e, f float64
	best, bestD := math.Inf(1), -1
	for i := n - 1; i >= 0; i-- {
		num, den := q.pair(s, i)
		x := num - r0*den
		a += x
		b += den
		c += x * x
		e += x * den
		f += den * den
		if i > dmax || !(b > 0) {
			continue
		}
		r := a / b
		ss := max(c-2*r*e+r*r*f, 0)
		if v := ss / (b * b); v <= best {
			best, bestD = v, i
		}
	}
	if bestD < 0 {
		return t
	}
	t.Batches, t.Point, t.Statistic = bestD, int64(bestD)*s.size, best
	t.Steady = bestD <= n/2
	return t
}
