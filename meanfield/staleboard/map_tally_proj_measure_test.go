package staleboard

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// TestTallyProjMeasure prints the projected superposition's states, for
// the package documentation's comparison with the simulator
// (FLUID_PROJ=400, 2000, herd400 or herd2000; minutes of CPU each,
// herd2000 about an hour, herd=T the herd at T; FLUID_PROJ_D=3 for best
// of three, FLUID_PROJ_ROUNDING=1 for the rounding): the balanced
// state by plain iteration from the empty board, the herd from the
// half-loaded start (B = 0.1·T, 25 periods).
func TestTallyProjMeasure(t *testing.T) {
	which := os.Getenv("FLUID_PROJ")
	if which == "" {
		t.Skip("FLUID_PROJ unset: a measurement, minutes of CPU")
	}
	sys := System{K: 5, Load: 0.9, Tally: Own, Choices: 2}
	if d, err := strconv.Atoi(os.Getenv("FLUID_PROJ_D")); err == nil {
		sys.Choices = d
	}
	T, periods, start := 400.0, 40, farm.Start{Kind: farm.Empty}
	if T, ok := strings.CutPrefix(which, "T="); ok {
		measureProjState(t, sys, T)
		return
	}
	if h, ok := strings.CutPrefix(which, "herd="); ok {
		v, err := strconv.ParseFloat(h, 64)
		if err != nil {
			t.Fatal(err)
		}
		T, periods, start = v, 25, farm.Start{Kind: farm.Half, Jobs: int(0.1 * v)}
		which = ""
	}
	switch which {
	case "2000":
		T, periods = 2000, 12
	case "herd400":
		periods, start = 25, farm.Start{Kind: farm.Half, Jobs: 40}
	case "herd2000":
		T, periods, start = 2000, 25, farm.Start{Kind: farm.Half, Jobs: 200}
	}
	p, err := Board(start)
	if err != nil {
		t.Fatal(err)
	}
	m := newModelMap(&sys, T)
	// FLUID_PROJ_ROUNDING=1: the regular rounding, the tests' reference.
	m.bestd.rounding = os.Getenv("FLUID_PROJ_ROUNDING") != ""
	var res MapResult
	for i := range periods {
		if err := m.applyInto(p, &res); err != nil {
			t.Fatal(err)
		}
		p = append(p[:0:0], res.Next...)
		t.Logf("period %d: board mean %.5f, mean time in system %.5f, lost %.2g", i+1, res.BoardMean, res.Sojourn, res.Lost)
	}
}

// measureProjState iterates the projected map at period T from the empty
// board until two boards are within 1e-8 (‖·‖₁) or 80 periods, and prints
// where it settled.
func measureProjState(t *testing.T, sys System, Ts string) {
	T, err := strconv.ParseFloat(Ts, 64)
	if err != nil {
		t.Fatal(err)
	}
	m := newModelMap(&sys, T)
	p := []float64{1}
	var res MapResult
	for i := range 80 {
		if err := m.applyInto(p, &res); err != nil {
			t.Fatal(err)
		}
		var d float64
		for q := range max(len(p), len(res.Next)) {
			d += math.Abs(entry(p, q) - entry(res.Next, q))
		}
		p = append(p[:0:0], res.Next...)
		t.Logf("T=%v period %d: board mean %.5f, mean time in system %.5f, step %.2g", T, i+1, res.BoardMean, res.Sojourn, d)
		if d < 1e-8 {
			break
		}
	}
}
