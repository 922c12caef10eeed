package main

import (
	"fmt"
	"strconv"
	"strings"
)

// maxListLen bounds the values a list flag may expand to.
const maxListLen = 10000

// parseIntList parses a comma-separated list of integers and ranges for
// the flag named flag:
//
//	N          one value
//	A..B       A, A+1, …, B
//	A..B:S     A, A+S, …, up to B
//	A..B*F     A, A·F, A·F², …, up to B (geometric, F ≥ 2)
func parseIntList(flag, s string) ([]int, error) {
	bad := func(format string, a ...any) error {
		return usagef("invalid --%s %q: %s", flag, s, fmt.Sprintf(format, a...))
	}
	var out []int
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, bad("empty item")
		}
		lo, rest, isRange := strings.Cut(item, "..")
		if !isRange {
			v, err := strconv.Atoi(item)
			if err != nil {
				return nil, bad("%q is not an integer", item)
			}
			out = append(out, v)
			continue
		}
		step, geometric := 1, false
		hi := rest
		if h, st, ok := strings.Cut(rest, ":"); ok {
			hi = h
			v, err := strconv.Atoi(st)
			if err != nil || v < 1 {
				return nil, bad("step %q must be a positive integer", st)
			}
			step = v
		} else if h, f, ok := strings.Cut(rest, "*"); ok {
			hi = h
			v, err := strconv.Atoi(f)
			if err != nil || v < 2 {
				return nil, bad("factor %q must be an integer ≥ 2", f)
			}
			step, geometric = v, true
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil {
			return nil, bad("range %q needs integer ends", item)
		}
		if b < a {
			return nil, bad("range %q runs backwards", item)
		}
		if geometric && a < 1 {
			return nil, bad("geometric range %q must start at 1 or more", item)
		}
		for v := a; v <= b; {
			out = append(out, v)
			if len(out) > maxListLen {
				return nil, bad("more than %d values", maxListLen)
			}
			if geometric {
				v *= step
			} else {
				v += step
			}
		}
	}
	return out, nil
}
