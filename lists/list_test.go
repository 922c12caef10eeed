package lists

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func texts(vs []Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, " ")
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		in   string
		want string // canonical values, space-separated
	}{
		{Int, "5", "5"},
		{Int, "10,100, 1000", "10 100 1000"},
		{Int, "2..5", "2 3 4 5"},
		{Int, "0..10:5", "0 5 10"},
		{Int, "-3..3:3", "-3 0 3"},
		{Int, "10..100000*10", "10 100 1000 10000 100000"},
		{Int, "1..20*3,50", "1 3 9 50"},
		{Int, "010", "10"}, // decimal, not octal
		{Int, "+7", "7"},
		{Int, "5..5", "5"},
		{Float, "0.8,0.9", "0.8 0.9"},
		{Float, "0.80..0.95:0.05", "0.8 0.85 0.9 0.95"},
		{Float, "0.1..0.3:0.1", "0.1 0.2 0.3"},
		{Float, "0..1:0.25", "0 0.25 0.5 0.75 1"},
		{Float, "0.5..2.5", "0.5 1.5 2.5"},
		{Float, "-1..1:0.5", "-1 -0.5 0 0.5 1"},
		{Float, "1e-3..5e-3:1e-3", "0.001 0.002 0.003 0.004 0.005"},
		{Float, "0.001..1*10", "0.001 0.01 0.1 1"},
		{Float, "1..10*1.5", "1 1.5 2.25 3.375 5.0625 7.59375"},
		{Float, "3", "3"},
		{Float, "0.8500000000000001", "0.8500000000000001"}, // a literal stays as written
		{Float, "1e6, 1e-7, -0", "1000000 1e-07 0"},
		{Float, ".5, 5.", "0.5 5"},
		{Word, "jsqd:2, rr,half:110", "jsqd:2 rr half:110"},
		{Bool, "true,false,1", "true false true"},
		{FloatVector, "0.7,0.3", "0.7,0.3"},
		{FloatVector, "0.70, 0.30; 0.6,0.4", "0.7,0.3 0.6,0.4"},
		{FloatVector, "0.25..1:0.25", "0.25,0.5,0.75,1"},
		{IntVector, "10,20;30", "10,20 30"},
	} {
		t.Run(fmt.Sprintf("%v %q", c.kind, c.in), func(t *testing.T) {
			got, err := Parse("x", c.kind, c.in)
			if err != nil || texts(got) != c.want {
				t.Errorf("%v %q: %q, %v; want %q", c.kind, c.in, texts(got), err, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		in   string
		want string // part of the message
	}{
		{Int, "", "empty item"},
		{Int, "1,,2", "empty item"},
		{Int, "1,", "empty item"},
		{Int, "a", `"a" is not an integer`},
		{Int, "1.5", "not an integer"},
		{Int, "0x10", "not an integer"},
		{Int, "1_000", "not an integer"},
		{Int, "99999999999999999999", "out of range"},
		{Int, "5..2", "runs backwards"},
		{Int, "1..5:0", "step 0 must be ≥ 1"},
		{Int, "1..5:-1", "step -1 must be ≥ 1"},
		{Int, "0..10:3", "step 3 does not land on 10"},
		{Int, "1..5*1", "factor 1 must be an integer ≥ 2"},
		{Int, "0..5*2", "must start at 1 or more"},
		{Int, "1..x", `"x" is not an integer`},
		{Int, "1..100000000", "more than"},
		{Int, "1..10000,5", "more than 10000 values"},
		{Float, "NaN", "NaN is not a finite number"},
		{Float, "inf", "not a finite number"},
		{Float, "-Infinity", "not a finite number"},
		{Float, "1e400", "out of range"},
		{Float, "0x1p-2", "not a number"},
		{Float, "1e", "not a number"},
		{Float, ".", "not a number"},
		{Float, "0.8..0.95:0.04", "step 0.04 does not land on 0.95"},
		{Float, "0.5..0.1:0.1", "runs backwards"},
		{Float, "0..1:0", "step 0 must be > 0"},
		{Float, "0..1:-0.1", "step -0.1 must be > 0"},
		{Float, "0..1:1e-5", "more than"},
		{Float, "0..1*1", "factor 1 must be > 1"},
		{Float, "0..1*2", "must start above 0"},
		{Float, "0..NaN:0.1", "not a finite number"},
		{Bool, "yes", "not true or false"},
		{Word, "a,,b", "empty item"},
		{FloatVector, "0.7,0.3;", "empty value"},
		{FloatVector, "0.7,,0.3", "empty entry"},
		{FloatVector, "0.7,x", "not a number"},
	} {
		t.Run(fmt.Sprintf("%v %q", c.kind, c.in), func(t *testing.T) {
			_, err := Parse("load", c.kind, c.in)
			var le *Error
			if !errors.As(err, &le) || le.Flag != "load" || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "invalid --load ") {
				t.Errorf("%v %q: %v, want a Error for --load mentioning %q", c.kind, c.in, err, c.want)
			}
		})
	}
}

func TestFloatRangeTolerance(t *testing.T) {
	// Within 1e-9 of a step of landing: accepted, and the end is B itself.
	vs, err := Parse("x", Float, "0..1.0000000000001:0.1")
	if err != nil || len(vs) != 11 || vs[10].Float() != 1.0000000000001 {
		t.Fatalf("%v %v", texts(vs), err)
	}
	// A step that repeats a binary fraction many times stays exact.
	vs, err = Parse("x", Float, "0..3:0.1")
	if err != nil || len(vs) != 31 {
		t.Fatal(err)
	}
	for i, v := range vs {
		if want := float64(i) / 10; v.Float() != want || v.String() != FormatFloat(want) {
			t.Errorf("value %d: %v (%s), want %v", i, v.Float(), v, want)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	a, b := 0.8, 0.05 // variables: constants would add exactly
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0.85, "0.85"}, {a + b, "0.8500000000000001"}, {1e6, "1000000"}, {1e21, "1e+21"},
		{1e-7, "1e-07"}, {-2.5, "-2.5"}, {math.Copysign(0, -1), "0"}, {100, "100"},
	} {
		t.Run(fmt.Sprint(c.x), func(t *testing.T) {
			if got := FormatFloat(c.x); got != c.want {
				t.Errorf("FormatFloat(%v) = %q, want %q", c.x, got, c.want)
			}
		})
	}
}

func TestParseInts(t *testing.T) {
	got, err := ParseInts("servers", "10..1000*10,5")
	if err != nil || len(got) != 4 || got[0] != 10 || got[3] != 5 {
		t.Errorf("%v %v", got, err)
	}
	fs, err := ParseFloats("load", "0.80..0.90:0.05")
	if err != nil || len(fs) != 3 || fs[1] != 0.85 {
		t.Errorf("%v %v", fs, err)
	}
}
