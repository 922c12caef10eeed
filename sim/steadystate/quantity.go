package steadystate

import "fmt"

// Quantity is a steady-state mean read from a Series: the mean of channel
// Num per observation, or with Ratio set the ratio of the sums of
// channels Num and Den (a ratio estimator: the mean time in system over
// the served jobs is Σ sojourn / Σ served, with served = 1 for a served
// job and 0 for a blocked one; a time average is Σ value·dt / Σ dt). The
// zero value is the mean of channel 0.
type Quantity struct {
	// Name labels the estimate (Estimate.Name); it does not affect it.
	Name string
	// Num is the channel averaged (the numerator of a ratio).
	Num int
	// Den is the channel of the denominator, used only when Ratio is set.
	Den int
	// Ratio makes the quantity Σ Num / Σ Den instead of Σ Num / count.
	Ratio bool
}

// MeanOf is the mean per observation of channel ch.
func MeanOf(name string, ch int) Quantity { return Quantity{Name: name, Num: ch} }

// RatioOf is the ratio estimator Σ num / Σ den.
func RatioOf(name string, num, den int) Quantity {
	return Quantity{Name: name, Num: num, Den: den, Ratio: true}
}

// check panics if q reads a channel that s does not have (a programmer
// error).
func (q Quantity) check(s *Series) {
	if q.Num < 0 || q.Num >= s.channels || (q.Ratio && (q.Den < 0 || q.Den >= s.channels)) {
		panic(fmt.Sprintf("steadystate: quantity %q reads channels (%d, %d) of a series of %d", q.Name, q.Num, q.Den, s.channels))
	}
}

// pair returns the numerator and denominator sums of fine batch i of s.
func (q Quantity) pair(s *Series, i int) (num, den float64) {
	num = s.at(i, q.Num)
	if q.Ratio {
		return num, s.at(i, q.Den)
	}
	return num, float64(s.size)
}
