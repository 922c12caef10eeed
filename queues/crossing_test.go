package queues

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/meanfield/bestofd"
	"github.com/fluidlb/fluid/outcome"
)

func TestCrossing(t *testing.T) {
	square := func(x float64) (float64, error) { return x * x, nil }
	t.Run("bracketed", func(t *testing.T) {
		// x² crosses 2 at √2 (to XTol = 1e-9 relative).
		r, err := Crossing(square, Constant(2), 0.1, 10, &CrossingSettings{XTol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != outcome.EdgeFound {
			t.Fatalf("status %v", r.Status)
		}
		near(t, "x", r.X, math.Sqrt2, 0, 2e-9)
		if !(r.Bracket[0] <= math.Sqrt2 && math.Sqrt2 <= r.Bracket[1]) {
			t.Errorf("bracket %v misses √2", r.Bracket)
		}
	})
	t.Run("first crossing", func(t *testing.T) {
		// sin crosses 0 from below at 2π, 4π, …: the first in [4, 20] is 2π.
		r, err := Crossing(func(x float64) (float64, error) { return math.Sin(x), nil }, Constant(0), 4, 20, &CrossingSettings{Grid: 40})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "x", r.X, 2*math.Pi, 0, 2e-6)
	})
	t.Run("above range", func(t *testing.T) {
		r, err := Crossing(square, Constant(1000), 0.1, 10, nil)
		if err != nil || r.Status != outcome.AboveRange {
			t.Fatalf("%v, %v", r, err)
		}
	})
	t.Run("already above", func(t *testing.T) {
		r, err := Crossing(square, Constant(0), 0.1, 10, nil)
		if err != nil || r.Status != outcome.NoEdge {
			t.Fatalf("%v, %v", r, err)
		}
	})
	t.Run("NaN", func(t *testing.T) {
		r, err := Crossing(func(float64) (float64, error) { return math.NaN(), nil }, Constant(0), 0.1, 10, nil)
		if err != nil || r.Status != outcome.NonFinite {
			t.Fatalf("%v, %v", r, err)
		}
	})
	t.Run("curve error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := Crossing(func(float64) (float64, error) { return 0, boom }, Constant(0), 0.1, 10, nil)
		if !errors.Is(err, boom) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		_, err := Crossing(square, Constant(0), 10, 1, nil)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != "Range" {
			t.Fatalf("error %v", err)
		}
	})
}

// The staleness budgets of best of two on a periodically refreshed board
// with exponential sizes (PS and FCFS alike), from theory on both sides:
// the board's N → ∞ attractor (meanfield/bestofd) against random
// (1/(1 − λ) = 10) and round robin (E_N/M/1 at N = 100, 5.2268). The
// study "Sharing Servers Don't Mind the Giant" measured these as the grid
// cells 20–50 and 10–20 (N = 100
// simulation, PS, λ = 0.9); the crossings must fall inside them.
func TestStalenessBudgetExp(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20 periodic-update attractors")
	}
	board := func(T float64) (float64, error) {
		r, err := bestofd.Attractor(&bestofd.PeriodicUpdate{D: 2, Load: 0.9, Period: T, Discipline: farm.PS}, nil)
		if err != nil {
			return 0, err
		}
		if r.Status.Err() != nil {
			return 0, r.Status.Err()
		}
		return r.Sojourn, nil
	}
	rr, err := SolveRoundRobin(&RoundRobin{Servers: 100, Load: 0.9, Discipline: farm.PS}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		than     float64
		lo, hi   float64 // the study's grid cell
		from, to float64 // the range searched
	}{
		{"worse than random", 10, 20, 50, 5, 100},
		{"worse than round robin", rr.Sojourn, 10, 20, 2, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Crossing(board, Constant(c.than), c.from, c.to, &CrossingSettings{XTol: 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("best of two on a board becomes %s (%.4g) at T = %.4g (bracket %.4g–%.4g, %d attractors)", c.name, c.than, r.X, r.Bracket[0], r.Bracket[1], r.Evaluations)
			if r.Status != outcome.EdgeFound || r.X < c.lo || r.X > c.hi {
				t.Errorf("status %v, T = %v outside the study's %v–%v", r.Status, r.X, c.lo, c.hi)
			}
		})
	}
}
