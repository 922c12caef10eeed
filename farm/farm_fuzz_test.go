package farm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// The words every parser of this package is seeded with: good ones,
// near misses and hostile ones (NaN, Inf, hexadecimal, huge numbers,
// signs, spaces, odd Unicode).
var fuzzWords = []string{
	"", ":", "::", " ", "exp", "det", "h2:30", "h2:1.5", "H2:1e2", "pareto:2.5",
	"pareto:1", "h2:1", "h2:", "h2:x", "h2:NaN", "h2:nan", "h2:Inf", "h2:+Inf",
	"pareto:-Inf", "h2:infinity", "h2:1e400", "h2:1e-400", "h2:0x1p3", "h2:1_0",
	"h2:1.7976931348623157e308", "pareto:4e-324", "h2:30:2", "exp:1", "det:",
	"empty", "EMPTY", "balanced", "balanced:0", "balanced:5", "half:110",
	"spread:880", "hot:3200", "half:010", "half:-1", "half:+1", "hot:1e3",
	"half:99999999999", "half:2147483647", "half:2147483648", "hot:0x10",
	"cold:1", "empty:3", "random", "rr", "jsq", "jsqd:2", "JSQD:02", "jsqd",
	"jsqd:0", "jsqd:1000", "jsqd:1001", "jsqd:-1", "board-jsqd:3",
	"tally-jsqd:2", "tally:2", "least-work", "jiq-blocking", "jiq-queueing",
	"fcfs", "PS", "ps:2", "lifo", "blocking", "queueing", "queuing", "both",
	"\x00", "jsqd:\x00", "h2:\u00a030", "ʜ2:3", "\xff\xfe", "bloc\u212aing", // a Kelvin sign lowercases to k
	"tally-jsqd:" + strings.Repeat("9", 40), "h2:" + strings.Repeat("1", 400),
}

// fieldErr fails t unless err is a *param.Error naming field.
func fieldErr(t *testing.T, what, in string, err error, field string) {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != field {
		t.Fatalf("%s(%q): error %v does not name %s", what, in, err, field)
	}
}

// hasNonFinite reports whether s spells a NaN or an infinity.
func hasNonFinite(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "nan") || strings.Contains(l, "inf")
}

// ParseSizes: no panic; an error names Sizes; a law validates, has a
// finite parameter, and its String parses back to the same law.
func FuzzParseSizes(f *testing.F) {
	for _, s := range fuzzWords {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := ParseSizes(s)
		if err != nil {
			fieldErr(t, "ParseSizes", s, err, "Sizes")
			return
		}
		if hasNonFinite(s) {
			t.Fatalf("ParseSizes(%q) = %+v: accepted a non-finite number", s, z)
		}
		if err := z.Validate(); err != nil {
			t.Fatalf("ParseSizes(%q) = %+v, which does not validate: %v", s, z, err)
		}
		if !param.Finite(z.SCV) || !param.Finite(z.Shape) {
			t.Fatalf("ParseSizes(%q) = %+v: not finite", s, z)
		}
		if c := z.SquaredCV(); math.IsNaN(c) || c < 0 {
			t.Fatalf("ParseSizes(%q): SCV %v", s, c)
		}
		back, err := ParseSizes(z.String())
		if err != nil || back != z {
			t.Fatalf("ParseSizes(%q) = %+v, String %q parses to %+v, %v", s, z, z.String(), back, err)
		}
	})
}

// ParseStart: no panic; an error names Start; a start validates, its
// jobs fit an int32 per server, and its String parses back to it.
func FuzzParseStart(f *testing.F) {
	for _, s := range fuzzWords {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStart(s)
		if err != nil {
			fieldErr(t, "ParseStart", s, err, "Start")
			return
		}
		if err := st.Validate(); err != nil {
			t.Fatalf("ParseStart(%q) = %+v, which does not validate: %v", s, st, err)
		}
		if st.Jobs < 0 || st.Jobs > math.MaxInt32 || st.IsEmpty() != (st == Start{}) {
			t.Fatalf("ParseStart(%q) = %+v", s, st)
		}
		back, err := ParseStart(st.String())
		if err != nil || back != st {
			t.Fatalf("ParseStart(%q) = %+v, String %q parses to %+v, %v", s, st, st.String(), back, err)
		}
		for _, n := range []int{1, 2, 7} {
			for i := range n {
				if j := st.ServerJobs(i, n); j < 0 || j > st.MaxJobs() {
					t.Fatalf("%v: server %d of %d holds %d", st, i, n, j)
				}
			}
		}
	})
}

// ParsePolicy: no panic; an error names Policy; a policy is valid, D is
// in 1..MaxSampled exactly for the sampled ones, and String parses back.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range fuzzWords {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePolicy(s)
		if err != nil {
			fieldErr(t, "ParsePolicy", s, err, "Policy")
			return
		}
		if !p.Kind.Valid() || p.Replacement {
			t.Fatalf("ParsePolicy(%q) = %+v", s, p)
		}
		if p.Sampled() != (p.D >= 1 && p.D <= MaxSampled) || (!p.Sampled() && p.D != 0) {
			t.Fatalf("ParsePolicy(%q) = %+v: D out of range", s, p)
		}
		back, err := ParsePolicy(p.String())
		if err != nil || back != p {
			t.Fatalf("ParsePolicy(%q) = %+v, String %q parses to %+v, %v", s, p, p.String(), back, err)
		}
	})
}

// ParseDiscipline and ParseScenario: no panic; errors name their field;
// a value is valid and its String parses back. TipThreshold, the tipping
// criterion, is finite and at least both of its terms for any finite
// period ≥ 0 and load in (0, 1).
func FuzzParseEnums(f *testing.F) {
	for _, s := range fuzzWords {
		f.Add(s, 10.0, 0.9)
	}
	f.Add("ps", 0.0, 1e-300)
	f.Add("fcfs", 1e308, 0.9999999999999999)
	f.Fuzz(func(t *testing.T, s string, period, load float64) {
		if d, err := ParseDiscipline(s); err != nil {
			fieldErr(t, "ParseDiscipline", s, err, "Discipline")
		} else if back, err := ParseDiscipline(d.String()); !d.Valid() || err != nil || back != d {
			t.Fatalf("ParseDiscipline(%q) = %v, String parses to %v, %v", s, d, back, err)
		}
		if sc, err := ParseScenario(s); err != nil {
			fieldErr(t, "ParseScenario", s, err, "Scenario")
		} else if back, err := ParseScenario(sc.String()); !sc.Valid() || err != nil || back != sc {
			t.Fatalf("ParseScenario(%q) = %v, String parses to %v, %v", s, sc, back, err)
		}
		if !param.Finite(period) || period < 0 || !(load > 0 && load < 1) {
			return
		}
		th := TipGap(period, load)
		if math.IsNaN(th) || th < (1-load)*period || th < 3/(1-load) {
			t.Fatalf("TipGap(%v, %v) = %v", period, load, th)
		}
	})
}
