package staleboard

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// TestTallyProjSplitMeasure prints the split evolution's error against
// RK4 and both CPU times, one period at k = 5, λ = 0.9, best of two
// (FLUID_PROJ_SPLIT=T for the balanced board at T, herd=T for the
// half-loaded start B = 0.1·T after one RK4 period; FLUID_PROJ_SPLIT_SUB
// the tally steps of each rate sub-interval, 0 the whole step): a
// measurement, tens of seconds at T = 400.
func TestTallyProjSplitMeasure(t *testing.T) {
	which := os.Getenv("FLUID_PROJ_SPLIT")
	if which == "" {
		t.Skip("FLUID_PROJ_SPLIT unset: a measurement, tens of seconds of CPU")
	}
	sys := System{K: 5, Load: 0.9, Tally: Own, Choices: 2}
	herd := strings.HasPrefix(which, "herd=")
	T, err := strconv.ParseFloat(strings.TrimPrefix(which, "herd="), 64)
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := strconv.Atoi(os.Getenv("FLUID_PROJ_SPLIT_SUB"))
	var p []float64
	ref := newModelMap(&sys, T)
	var rr MapResult
	if herd {
		if p, err = Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * T)}); err != nil {
			t.Fatal(err)
		}
		if err := ref.applyInto(p, &rr); err != nil {
			t.Fatal(err)
		}
		p = append(p[:0:0], rr.Next...)
	} else {
		p = bestdBoard(t, sys, T)
	}
	run := func(m *Map, r *MapResult) float64 {
		var pair cputime.Pair
		pair.Run(func() {
			if err := m.applyInto(p, r); err != nil {
				t.Fatal(err)
			}
		}, func() {})
		return pair.CPU[0].Seconds()
	}
	rs := run(ref, &rr)
	t.Logf("RK4: %.2f s, time in system %.10f, board mean %.10f", rs, rr.Sojourn, rr.BoardMean)
	for _, H := range []float64{1, 2, 4, 8} {
		m := newModelMap(&sys, T)
		m.bestd.split, m.bestd.splitStep, m.bestd.splitSub = true, H, sub
		var r MapResult
		s := run(m, &r)
		t.Logf("split H = %v: %.2f s (%.2f× RK4; counted %.3g units, %.2f× the CPU time), time in system %.10f (%+.2e), board mean %.10f (%+.2e)", H, s, s/rs, m.countedWork(), m.countedWork()*1e-8/s, r.Sojourn, r.Sojourn/rr.Sojourn-1, r.BoardMean, r.BoardMean/rr.BoardMean-1)
	}
}
