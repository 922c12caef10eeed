package staleboard

import (
	"os"
	"testing"

	"github.com/fluidlb/fluid/farm"
)

// TestTallyProjMeasure prints the projected superposition's states beside
// the regular rounding's, for the package documentation's comparison with
// the simulator (FLUID_PROJ=400, 2000 or herd400; minutes of CPU each):
// the balanced state by plain iteration from the empty board, the herd
// from the half-loaded start (B = 0.1·T, 25 periods).
func TestTallyProjMeasure(t *testing.T) {
	which := os.Getenv("FLUID_PROJ")
	if which == "" {
		t.Skip("FLUID_PROJ unset: a measurement, minutes of CPU")
	}
	sys := System{K: 5, Load: 0.9, Tally: Own, Choices: 2}
	T, periods, start := 400.0, 40, farm.Start{Kind: farm.Empty}
	switch which {
	case "2000":
		T, periods = 2000, 12
	case "herd400":
		periods, start = 25, farm.Start{Kind: farm.Half, Jobs: 40}
	}
	p, err := Board(start)
	if err != nil {
		t.Fatal(err)
	}
	m := newModelMap(&sys, T)
	m.bestd.project = true
	var res MapResult
	for i := range periods {
		if err := m.applyInto(p, &res); err != nil {
			t.Fatal(err)
		}
		p = append(p[:0:0], res.Next...)
		t.Logf("period %d: board mean %.5f, mean time in system %.5f, lost %.2g", i+1, res.BoardMean, res.Sojourn, res.Lost)
	}
}
