package main

import (
	"slices"
	"testing"
)

func TestParseIntList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"5", []int{5}},
		{"10,100, 1000", []int{10, 100, 1000}},
		{"2..5", []int{2, 3, 4, 5}},
		{"0..10:5", []int{0, 5, 10}},
		{"10..100000*10", []int{10, 100, 1000, 10000, 100000}},
		{"1..20*3,50", []int{1, 3, 9, 50}},
	} {
		got, err := parseIntList("servers", c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "a", "1,,2", "5..2", "1..5:0", "1..5*1", "0..5*2", "1..x", "1..100000000"} {
		if _, err := parseIntList("servers", in); err == nil || exitCode(err) != 2 {
			t.Errorf("%q: %v, want a usage error", in, err)
		}
	}
}
