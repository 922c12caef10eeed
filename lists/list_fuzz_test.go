package lists

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// listSeeds are lists as users type them, near misses and hostile ones
// (NaN, Inf, hexadecimal, overflow, huge and degenerate ranges).
var listSeeds = []string{
	"5", "10,100, 1000", "2..5", "0..10:5", "-3..3:3", "10..100000*10", "3..10",
	"1..20*3,50", "010", "+7", "5..5", "0.8,0.9", "0.80..0.95:0.05",
	"0.1..0.3:0.1", "0..1:0.25", "0.5..2.5", "-1..1:0.5", "1e-3..5e-3:1e-3",
	"0.001..1*10", "1..10*1.5", "0.8500000000000001", "1e6, 1e-7, -0", ".5, 5.",
	"jsqd:2, rr,half:110", "true,false,1", "0.7,0.3", "0.70, 0.30; 0.6,0.4",
	"0.25..1:0.25", "10,20;30", "", ",", "1,,2", "1,", ";", "a", "1.5", "0x10",
	"1_000", "99999999999999999999", "5..2", "1..5:0", "1..5:-1", "0..10:3",
	"1..5*1", "0..5*2", "NaN", "nan", "Inf", "-Inf", "+inf", "infinity", "1e400",
	"1e-400", "1e99999", "0x1p3", "1..NaN", "0..Inf:1", "0..1:NaN", "1..2*Inf",
	"0..1:1e-300", "-1e308..1e308:1e300", "1..9223372036854775807",
	"-9223372036854775808..9223372036854775807",
	"-9223372036854775808..9223372036854775807:9223372036854775807",
	"1..9223372036854775807*2", "1..9223372036854775807*9223372036854775807",
	"0..9999", "0..10000", "0..0.9999:0.0001", "0..0.99999999999:0.0001",
	"1..1.0001*1.0000000000001", "1..2*1.0000001", "1..1e300*1.0001",
	"4e-324..1e-323:4e-324", "0..1e-320:1e-323", "1e-300..1e300*10",
	"1..", "..1", "..", "1..2..3", "1..2:", "1..2*", "1..2:1*2", "1...2",
	"1..2:0.5", "0..1:0.1", "0.1..0.7:0.2", "1e308..1.7976931348623157e308:1e292",
	"1..10000; 1..10000", "true..false", "1 ..2", " 1 , 2 ", "\t3\n", "\x00",
	"1e+5", "1E-5", "1e", "e1", "1e+-5", "1.2.3", "-", "+", ".", "-.5", "5.e3",
}

// valuesEqual reports whether two values are the same in every field.
func valuesEqual(a, b Value) bool {
	return a.kind == b.kind && a.text == b.text && a.i == b.i && a.b == b.b &&
		math.Float64bits(a.f) == math.Float64bits(b.f) && slices.Equal(a.vec, b.vec) && slices.Equal(a.ivec, b.ivec)
}

func listsEqual(a, b []Value) bool {
	return slices.EqualFunc(a, b, valuesEqual)
}

// checkValue checks a parsed value of kind k: canonical, finite, within
// bounds, and the same when its text is parsed again.
func checkValue(t *testing.T, k Kind, v Value) {
	t.Helper()
	if v.kind != k || v.text == "" || strings.TrimSpace(v.text) != v.text {
		t.Fatalf("%v value %+v", k, v)
	}
	switch k {
	case Int:
		if v.text != intValue(v.i).text {
			t.Fatalf("int %d written %q", v.i, v.text)
		}
	case Float:
		if !isFinite(v.f) || v.text != FormatFloat(v.f) || (v.f == 0 && math.Signbit(v.f)) {
			t.Fatalf("float %v written %q", v.f, v.text)
		}
	case FloatVector, IntVector:
		if len(v.vec) == 0 || len(v.vec) > MaxValues {
			t.Fatalf("a vector of %d entries", len(v.vec))
		}
		texts := strings.Split(v.text, ",")
		if len(texts) != len(v.vec) {
			t.Fatalf("vector %q of %d entries", v.text, len(v.vec))
		}
		if k == IntVector && len(v.ivec) != len(v.vec) || k == FloatVector && v.ivec != nil {
			t.Fatalf("vector %q: %d exact entries", v.text, len(v.ivec))
		}
		for i, x := range v.vec {
			want := FormatFloat(x)
			if k == IntVector {
				want = intValue(v.ivec[i]).text
				if x != float64(v.ivec[i]) {
					t.Fatalf("vector %q: entry %d is %v", v.text, v.ivec[i], x)
				}
			}
			if !isFinite(x) || texts[i] != want {
				t.Fatalf("vector %q: entry %v written %q", v.text, x, texts[i])
			}
		}
	}
	back, err := ParseValue(k, v.text)
	if err != nil || !valuesEqual(back, v) {
		t.Fatalf("%v %q parses back to %+v, %v; want %+v", k, v.text, back, err, v)
	}
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// nonFinite reports whether s spells a NaN or an infinity.
func nonFinite(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "nan") || strings.Contains(l, "inf")
}

// Parse (and ParseInts, ParseFloats): no panic; an error is a
// *Error naming the flag and the input; at most MaxValues values (and
// MaxEntries numbers in all); each value canonical, finite and parsing
// back to itself, alone or with the others, as a list of its own texts;
// NaN and Inf rejected.
func FuzzParse(f *testing.F) {
	for i, s := range listSeeds {
		f.Add("load", uint8(i%6), s)
	}
	f.Add("alpha", uint8(FloatVector), "0.5,0.5;0.25..1:0.25;1")
	f.Add("n", uint8(IntVector), "1..10000;1..10000;1..10000")
	f.Add("", uint8(Word), "x")
	f.Fuzz(func(t *testing.T, flag string, kind uint8, s string) {
		k := Kind(kind % uint8(len(kindNames)))
		vs, err := Parse(flag, k, s)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) || le.Flag != flag || le.Input != s || !strings.Contains(err.Error(), "--"+flag+" ") {
				t.Fatalf("Parse(%q, %v, %q): error %v does not name the flag and the input", flag, k, s, err)
			}
		} else {
			if len(vs) == 0 || len(vs) > MaxValues {
				t.Fatalf("Parse(%v, %q): %d values", k, s, len(vs))
			}
			if k != Word && nonFinite(s) {
				t.Fatalf("Parse(%v, %q) = %v: accepted a non-finite number", k, s, vs)
			}
			entries := 0
			for i, v := range vs {
				entries += len(v.vec)
				if len(vs) > 200 && i >= 100 && i < len(vs)-100 && i%101 != 0 {
					continue // a long range: check its ends and a sample (the fuzzer's speed)
				}
				checkValue(t, k, v)
				one, err := Parse(flag, k, v.text)
				if err != nil || len(one) != 1 || !valuesEqual(one[0], v) {
					t.Fatalf("Parse(%v, %q) = %+v, %v; want the one value", k, v.text, one, err)
				}
			}
			if entries > MaxEntries {
				t.Fatalf("Parse(%v, %q): %d numbers in all", k, s, entries)
			}
			sep := ","
			if k.Vector() {
				sep = ";"
			}
			texts := make([]string, len(vs))
			for i, v := range vs {
				texts[i] = v.text
			}
			if back, err := Parse(flag, k, strings.Join(texts, sep)); err != nil || !listsEqual(back, vs) {
				t.Fatalf("Parse(%v, %q): the canonical list parses to %d values, %v", k, s, len(back), err)
			}
		}
		if k == Int {
			is, ierr := ParseInts(flag, s)
			if (ierr == nil) != (err == nil) || len(is) != len(vs) {
				t.Fatalf("ParseInts(%q) = %v, %v; Parse: %v", s, is, ierr, err)
			}
			for i, v := range vs {
				if int64(is[i]) != v.i {
					t.Fatalf("ParseInts(%q)[%d] = %d, want %d", s, i, is[i], v.i)
				}
			}
		}
		if k == Float {
			fs, ferr := ParseFloats(flag, s)
			if (ferr == nil) != (err == nil) || len(fs) != len(vs) {
				t.Fatalf("ParseFloats(%q) = %v, %v; Parse: %v", s, fs, ferr, err)
			}
			for i, v := range vs {
				if fs[i] != v.f {
					t.Fatalf("ParseFloats(%q)[%d] = %v, want %v", s, i, fs[i], v.f)
				}
			}
		}
	})
}

// ParseValue and ParseKind: no panic; a value is canonical, finite and
// parses back to itself; a kind's name parses back to it.
func FuzzParseValue(f *testing.F) {
	for i, s := range listSeeds {
		f.Add(uint8(i%6), s)
	}
	for _, n := range kindNames {
		f.Add(uint8(0), n)
	}
	f.Fuzz(func(t *testing.T, kind uint8, s string) {
		k := Kind(kind % uint8(len(kindNames)))
		v, err := ParseValue(k, s)
		if err == nil {
			checkValue(t, k, v)
			if k != Word && nonFinite(s) {
				t.Fatalf("ParseValue(%v, %q) = %+v: accepted a non-finite number", k, s, v)
			}
			if !k.Vector() && k != Word && strings.Contains(s, "..") {
				t.Fatalf("ParseValue(%v, %q) = %+v: took a range", k, s, v)
			}
		}
		if pk, err := ParseKind(s); err == nil && pk.String() != s {
			t.Fatalf("ParseKind(%q) = %v", s, pk)
		}
		if name := Kind(kind).String(); name == "" {
			t.Fatalf("Kind(%d) has no name", kind)
		}
	})
}

// The bounds the fuzzers check, at their edges: a float range whose step
// count falls just short of MaxValues rounds up to MaxValues+1 values, and
// a list of vectors may not hold MaxValues vectors of MaxValues entries.
func TestListBounds(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		in   string
		n    int // values; 0: an error
	}{
		{Float, "0..9999:1", MaxValues},
		{Float, "0..9999.99999999999:1", 0},
		{Float, "0..0.99999999999999:0.0001", 0},
		{Int, "0..9999", MaxValues},
		{Int, "0..10000", 0},
		{FloatVector, strings.Repeat("1..10000;", 9) + "1", 10},
		{FloatVector, strings.Repeat("1..10000;", 10) + "1", 0},
		{IntVector, "1..10001", 0},
	} {
		t.Run(fmt.Sprintf("%v %.40q", c.kind, c.in), func(t *testing.T) {
			vs, err := Parse("x", c.kind, c.in)
			if c.n == 0 && err == nil {
				t.Errorf("%v %.40q: %d values, want an error", c.kind, c.in, len(vs))
			}
			if c.n > 0 && (err != nil || len(vs) != c.n) {
				t.Errorf("%v %.40q: %d values, %v; want %d", c.kind, c.in, len(vs), err, c.n)
			}
		})
	}
	// Integer vectors keep their entries exact beyond 2⁵³.
	v, err := ParseValue(IntVector, "9007199254740993,9223372036854775807")
	if err != nil || v.ivec[0] != 9007199254740993 || v.ivec[1] != math.MaxInt64 {
		t.Errorf("%+v, %v", v, err)
	}
}
