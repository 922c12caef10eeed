package staleboard

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// TestTallyProjSSPMeasure prints one period of the SSP evolution and of
// RK4 (the projection at k = 5, λ = 0.9, best of two), each at its step
// and at half of it, with their CPU times and counted work
// (FLUID_PROJ_SSP=T for the balanced board at T, herd=T for the
// half-loaded start B = 0.1·T after one SSP period; FLUID_PROJ_SSP_HALF=0
// leaves out the half steps): a measurement, tens of seconds at T = 400,
// about ten minutes for the herd at T = 2,000.
func TestTallyProjSSPMeasure(t *testing.T) {
	which := os.Getenv("FLUID_PROJ_SSP")
	if which == "" {
		t.Skip("FLUID_PROJ_SSP unset: a measurement, minutes of CPU")
	}
	sys := System{K: 5, Load: 0.9, Tally: Own, Choices: 2}
	herd := strings.HasPrefix(which, "herd=")
	T, err := strconv.ParseFloat(strings.TrimPrefix(which, "herd="), 64)
	if err != nil {
		t.Fatal(err)
	}
	var p []float64
	if herd {
		if p, err = Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * T)}); err != nil {
			t.Fatal(err)
		}
		m := newModelMap(&sys, T)
		var r MapResult
		if err := m.applyInto(p, &r); err != nil {
			t.Fatal(err)
		}
		p = append(p[:0:0], r.Next...)
	} else {
		p = bestdBoard(t, sys, T)
	}
	scales := []float64{1, 0.5}
	if os.Getenv("FLUID_PROJ_SSP_HALF") == "0" {
		scales = scales[:1]
	}
	var ref MapResult
	for _, rk4 := range []bool{true, false} {
		for _, sc := range scales {
			m := newModelMap(&sys, T)
			m.bestd.rk4, m.bestd.stepScale = rk4, sc
			var r MapResult
			var pair cputime.Pair
			pair.Run(func() {
				if err := m.applyInto(p, &r); err != nil {
					t.Fatal(err)
				}
			}, func() {})
			s := pair.CPU[0].Seconds()
			if !rk4 {
				t.Logf("SSP: cells·steps %.4g, rows·steps %.4g, tally levels·steps %.4g", m.bestd.sspCells, m.bestd.sspRows, m.bestd.sspTally)
			}
			if rk4 && sc == 1 {
				ref = r
			}
			name := map[bool]string{true: "RK4", false: "SSP"}[rk4]
			t.Logf("%s step×%v: %.2f s CPU, counted %.4g units (%.3f× the CPU time), time in system %.10f (%+.2e), board mean %.10f (%+.2e)",
				name, sc, s, m.countedWork(), m.countedWork()*1e-8/s, r.Sojourn, r.Sojourn/ref.Sojourn-1, r.BoardMean, r.BoardMean/ref.BoardMean-1)
		}
	}
}
