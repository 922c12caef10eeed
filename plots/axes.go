package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// linTicks labels a linear axis every 1, 2 or 5 × 10ⁿ, with at most n
// labels (default 8; 12 on an integer axis), and minor ticks between. An
// integer axis (k dispatchers, N servers) is labelled at whole numbers
// only.
type linTicks struct {
	n       int
	integer bool
}

func (t linTicks) Ticks(lo, hi float64) []plot.Tick {
	n := t.n
	if n == 0 {
		n = 8
		if t.integer {
			n = 12
		}
	}
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 3)}}
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	var step float64
	var lead int
	for k := 0; ; k++ {
		lead = []int{1, 2, 5}[k%3]
		step = float64(lead) * mag * math.Pow(10, float64(k/3))
		if t.integer && step < 1 {
			continue
		}
		if labels(lo, hi, step) <= n {
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+1e-9*step; k++ {
		v := k * step
		ts = append(ts, plot.Tick{Value: v, Label: formatTick(v, decimals)})
	}
	minor := step / 5
	switch {
	case lead == 2:
		minor = step / 4
	case t.integer && step == 1:
		minor = 0
	case t.integer && step == 5:
		minor = 1
	}
	if minor > 0 {
		for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*minor; k++ {
			v := k * minor
			if r := math.Mod(math.Abs(v)+step/2, step) - step/2; math.Abs(r) > 1e-9*step {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	return ts
}

// labels counts the multiples of step in [lo, hi].
func labels(lo, hi, step float64) int {
	return int(math.Floor(hi/step+1e-9)-math.Ceil(lo/step-1e-9)) + 1
}

// logTicks labels a log axis at 1, 2 and 5 × 10ⁿ when it spans up to four
// decades, at the powers of ten when it spans more, and at every integer
// multiple of a power of ten when it spans less than one; minor ticks mark
// the other multiples.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return []plot.Tick{{Value: hi, Label: formatTick(hi, 3)}}
	}
	decades := math.Log10(hi / lo)
	labelled := map[int]bool{1: true, 2: true, 5: true}
	switch {
	case decades > 4:
		labelled = map[int]bool{1: true}
	case decades < 1:
		labelled = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true}
	}
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = formatTick(v, max(0, -e))
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// formatTick writes v with the given decimals, grouping the thousands of
// numbers from 10,000 on.
func formatTick(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-0" || strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-")
	}
	return groupThousands(s)
}

// groupThousands puts commas between the thousands of the integer part of
// a number written in decimal, when it has five digits or more.
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(whole) < 5 {
		return sign + s
	}
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// thousands writes n with its thousands grouped (100,000), for titles.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if len(strings.TrimPrefix(s, "-")) < 4 {
		return s
	}
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// valueTicks labels each value (an axis with a few values, such as a heat
// map's cells).
func valueTicks(vs []float64) plot.ConstantTicks {
	ts := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		ts[i] = plot.Tick{Value: v, Label: groupThousands(strconv.FormatFloat(v, 'f', -1, 64))}
	}
	return ts
}

// vector writes numbers as a tuple: (0.7, 0.3).
func vector(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return "(" + strings.Join(s, ", ") + ")"
}
