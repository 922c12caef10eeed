package sim

import "math"

// Draws by shares (the dispatchers' arrival shares α, the token shares β).

// equalShares reports whether every share in a is the same (or a is
// empty).
func equalShares(a []float64) bool {
	for _, x := range a {
		if x != a[0] {
			return false
		}
	}
	return true
}

// cumulative returns the running sums of the shares a, the last replaced
// by +Inf so that rounding can never pick past the end.
func cumulative(a []float64) []float64 {
	c := make([]float64, len(a))
	var s float64
	for i, x := range a {
		s += x
		c[i] = s
	}
	c[len(c)-1] = math.Inf(1)
	return c
}

// pick returns the first index whose cumulative share exceeds the uniform
// u: a scan for a few shares, a binary search (the same index) for many.
func pick(cum []float64, u float64) int {
	if len(cum) > 16 {
		lo, hi := 0, len(cum)-1 // cum[hi] = +Inf > u
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if u < cum[mid] {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	return len(cum) - 1
}
