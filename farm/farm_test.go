package farm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/param"
)

// H2Params: mean 1, the giants carry half the work and the SCV is c² to
// 10⁻⁹ relative, from c² = 1 + 10⁻⁹ to 10³⁰⁰ (the textbook
// p = (1 − √((c²−1)/(c²+1)))/2 is off by 10⁻⁴ relative at 10¹² and 0 from
// about 10¹⁶); at c² = 30 one job in 61 is a giant of mean ≈ 30.5, as the
// size-spread write-up states.
func TestH2Params(t *testing.T) {
	for _, c2 := range []float64{1 + 1e-9, 1.5, 4, 10, 30, 1e3, 1e6, 1e10, 1e12, 1e14, 1e16, 1e50, 1e300} {
		t.Run(fmt.Sprintf("c²=%v", c2), func(t *testing.T) {
			p, g, s := H2Params(c2)
			mean := p*g + (1-p)*s
			scv := 2*(p*g*g+(1-p)*s*s)/(mean*mean) - 1
			approx.Within(t, "p", p, math.SmallestNonzeroFloat64, 1)
			// Mean and giant work are sums of two terms: rounding only.
			approx.Check(t, "mean", mean, 1, 1e-12, 0)
			approx.Check(t, "giant work", p*g, 0.5, 1e-12, 0)
			approx.Check(t, "SCV", scv, c2, 0, 1e-9)
		})
	}
	// The write-up's "one in 61" and "mean ≈ 30.5" are rounded: half a
	// unit and a tenth.
	p, g, _ := H2Params(30)
	approx.Check(t, "c²=30: one job in", 1/p, 61, 0.5, 0)
	approx.Check(t, "c²=30: giant mean", g, 30.5, 0.1, 0)
}

// Every word parses to a value whose String is the same word, and every
// bad word is an error naming its field.
func TestParseRoundTrip(t *testing.T) {
	type parser func(string) (fmt.Stringer, error)
	wrap := func(f func(string) (fmt.Stringer, error)) parser { return f }
	cases := []struct {
		field string
		parse parser
		good  []string
		bad   []string
	}{
		{"Discipline", wrap(func(s string) (fmt.Stringer, error) { return ParseDiscipline(s) }),
			[]string{"fcfs", "ps"}, []string{"", "lifo", "ps:2"}},
		{"Sizes", wrap(func(s string) (fmt.Stringer, error) { return ParseSizes(s) }),
			[]string{"exp", "det", "h2:30", "h2:1.5", "pareto:2.5"},
			[]string{"", "h2", "h2:1", "h2:x", "pareto:1", "pareto:NaN", "h2:0x1p3", "h2:1_0", "pareto:Inf", "exp:1", "gamma:2"}},
		{"Start", wrap(func(s string) (fmt.Stringer, error) { return ParseStart(s) }),
			[]string{"empty", "balanced:5", "half:110", "spread:880", "hot:3200"},
			[]string{"", "balanced:-1", "half", "half:x", "empty:3", "hot:1e3", "cold:1", "half:99999999999"}},
		{"Policy", wrap(func(s string) (fmt.Stringer, error) { return ParsePolicy(s) }),
			[]string{"random", "rr", "jsq", "jsqd:2", "least-work", "board-jsq", "board-jsqd:3", "tally",
				"shared-tally", "partitioned", "tally-jsqd:2", "jiq-blocking", "jiq-queueing"},
			[]string{"", "jsqd", "jsqd:0", "jsqd:1001", "tally:2", "best"}},
		{"Scenario", wrap(func(s string) (fmt.Stringer, error) { return ParseScenario(s) }),
			[]string{"blocking", "queueing"}, []string{"", "both"}},
	}
	for _, c := range cases {
		for _, s := range c.good {
			t.Run(c.field+" "+strconv.Quote(s), func(t *testing.T) {
				v, err := c.parse(s)
				if err != nil || v.String() != s {
					t.Errorf("%v, %v", v, err)
				}
			})
		}
		for _, s := range c.bad {
			t.Run(c.field+" refuses "+strconv.Quote(s), func(t *testing.T) {
				_, err := c.parse(s)
				var pe *param.Error
				if !errors.As(err, &pe) || pe.Param != c.field {
					t.Errorf("%v, want an error naming %s", err, c.field)
				}
			})
		}
	}
}

// The same start words mean the same thing everywhere: balanced,
// balanced:0 and half:0 are the empty start, and numbers are decimal.
func TestStartWords(t *testing.T) {
	for _, s := range []string{"empty", "balanced", "balanced:0", "half:0", "EMPTY"} {
		t.Run(s, func(t *testing.T) {
			st, err := ParseStart(s)
			if err != nil || st != (Start{}) || !st.IsEmpty() {
				t.Errorf("%+v, %v; want the empty start", st, err)
			}
		})
	}
	if st, err := ParseStart("half:010"); err != nil || st.Jobs != 10 {
		t.Errorf("half:010 = %+v, %v; want 10 jobs (decimal)", st, err)
	}
	// Half: the first ⌊N/2⌋ servers; spread: 0..S evenly.
	h := Start{Kind: Half, Jobs: 7}
	if h.ServerJobs(0, 5) != 7 || h.ServerJobs(1, 5) != 7 || h.ServerJobs(2, 5) != 0 {
		t.Error("half:7 over 5 servers")
	}
	sp := Start{Kind: Spread, Jobs: 8}
	if sp.ServerJobs(0, 5) != 0 || sp.ServerJobs(2, 5) != 4 || sp.ServerJobs(4, 5) != 8 {
		t.Error("spread:8 over 5 servers")
	}
}

func TestAllotment(t *testing.T) {
	if b := Allotment(nil, 4); len(b) != 4 || b[0] != 0.25 || b[3] != 0.25 {
		t.Errorf("uniform: %v", b)
	}
	if b := Allotment([]float64{0.7, 0.3}, 2); b[0] != 0.7 {
		t.Errorf("given: %v", b)
	}
}

func ExampleParseSizes() {
	z, err := ParseSizes("h2:30")
	if err != nil {
		panic(err)
	}
	p, giant, _ := H2Params(z.SCV)
	fmt.Printf("%v: one job in %.0f is a giant of mean %.3g; SCV %v\n", z, 1/p, giant, z.SquaredCV())
	// Output: h2:30: one job in 61 is a giant of mean 30.5; SCV 30
}

// Starts and pushes in units of T resolve to whole jobs at a period, and
// their words round-trip.
func TestPerPeriodWords(t *testing.T) {
	st, err := ParseStart("half:0.1T")
	if err != nil || st.Kind != Half || st.PerPeriod != 0.1 || st.Jobs != 0 || st.String() != "half:0.1T" {
		t.Fatalf("half:0.1T = %+v, %v", st, err)
	}
	if r := st.At(1000); r.Jobs != 100 || r.PerPeriod != 0 || r.String() != "half:100" {
		t.Errorf("half:0.1T at T = 1000: %+v", r)
	}
	for _, w := range []string{"half:0.1T", "backlog:0.25:65", "spread:0.8T", "hot:3200", "half:0.07T@20", "backlog:1:3@5"} {
		p, err := ParsePush(w)
		if err != nil {
			t.Errorf("%s: %v", w, err)
			continue
		}
		back, err := ParsePush(p.String())
		if err != nil || back != p {
			t.Errorf("%s → %+v → %q → %+v, %v", w, p, p.String(), back, err)
		}
	}
	p, _ := ParsePush("half:0.07T@20")
	if r := p.AtPeriod(1000); r.Jobs != 70 || r.At != 20 || r.Frac() != 0.5 || r.ServerJobs(49, 100) != 70 || r.ServerJobs(50, 100) != 0 {
		t.Errorf("half:0.07T@20 at T = 1000: %+v", r)
	}
	for _, w := range []string{"half", "backlog:0:5", "backlog:1.5:5", "hot:-1", "hot:0", "half:5@x", "warm:5", "half:200T", "spread:1e9"} {
		if _, err := ParsePush(w); err == nil {
			t.Errorf("%s parsed", w)
		} else {
			fieldErr(t, "ParsePush", w, err, "Push")
		}
	}
}
