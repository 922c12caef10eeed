package transcript

import (
	"regexp"
	"strings"
)

var inlineTimes = []*regexp.Regexp{
	// "9 entries in 0.9 s", "65 of 65 checks passed in 228.6 s", "in 1.884s"
	regexp.MustCompile(`\bin [0-9][0-9.]*(e[+-]?[0-9]+)? ?(m?s|µs|minutes?)\b`),
	// "(1.08e+07 events/s)"
	regexp.MustCompile(`[0-9][0-9.]*(e[+-]?[0-9]+)? events/s\b`),
	// "…, 0 finished before; 1.6 s" (a sweep's shard line)
	regexp.MustCompile(`; [0-9][0-9.]* s$`),
	// "0.02 s. Time in mean service times."
	regexp.MustCompile(`^[0-9][0-9.]* s\.`),
	// durations printed by Go: "1.884s", "12.5ms", "2m3.4s"
	regexp.MustCompile(`\b[0-9]+m[0-9.]+s\b|\b[0-9][0-9.]*(ms|µs)\b`),
}

var timeHeaders = map[string]bool{"seconds": true, "ms": true, "s": true, "wall": true}

// Mask replaces the wall times in a command's output by X: inline times
// and the values of columns headed seconds, ms or s (up to the next blank
// line).
func Mask(out string) string {
	lines := strings.Split(out, "\n")
	var spans [][2]int // column spans of time columns of the current table
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			spans = nil
			continue
		}
		if hs := headerSpans(l); hs != nil {
			spans = hs
			continue
		}
		for _, sp := range spans {
			l = maskToken(l, sp)
		}
		for _, re := range inlineTimes {
			l = re.ReplaceAllStringFunc(l, maskDigits)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// headerSpans returns the spans (in characters: tables align by
// characters, and λ or ² are several bytes) of the time columns of a table
// header line, nil if it has none.
func headerSpans(line string) [][2]int {
	l := []rune(line)
	var spans [][2]int
	words := 0
	for i := 0; i < len(l); {
		if l[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(l) && l[j] != ' ' {
			j++
		}
		words++
		// A column of a table is set off by two spaces on each side
		// (or the line's ends): "sojourn  seconds", not "before; 1.6 s".
		apart := (i < 2 || (l[i-1] == ' ' && l[i-2] == ' ')) && (j == len(l) || (j+1 < len(l) && l[j] == ' ' && l[j+1] == ' '))
		if timeHeaders[string(l[i:j])] && apart {
			spans = append(spans, [2]int{i, j})
		}
		i = j
	}
	if words < 3 {
		return nil // not a table header
	}
	return spans
}

// maskToken masks the digits of the token of line that overlaps span (in
// characters).
func maskToken(line string, sp [2]int) string {
	l := []rune(line)
	for i := 0; i < len(l); {
		if l[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(l) && l[j] != ' ' {
			j++
		}
		if i < sp[1] && j > sp[0] {
			return string(l[:i]) + maskDigits(string(l[i:j])) + string(l[j:])
		}
		i = j
	}
	return line
}

var digits = regexp.MustCompile(`[0-9][0-9.]*(e[+-]?[0-9]+)?`)

// maskDigits replaces the numbers of a time by X, and its unit by s: a
// time printed by Go changes unit with its size (999ms, 1.2s, 1m3s).
func maskDigits(s string) string {
	s = strings.ReplaceAll(digits.ReplaceAllString(s, "X"), "XmXs", "Xs")
	return timeUnit.ReplaceAllString(s, "${1}s")
}

var timeUnit = regexp.MustCompile(`(X ?)(?:ms|µs|ns|minutes?)\b`)
