package staleboard

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// Best of two on the board alone, k = 5, λ = 0.9: at T ≥ 1,000 the
// balanced board reaches queue lengths past 1,000, far beyond the support
// the first plain evaluation from the empty board sizes (about 700 at
// T = 2,000). FixedPoint used to grow the support only after a converged
// solve, so the solve lost 0.11–0.41 of the mass an evaluation, the simplex
// projection put it back, and it stalled at a mean time in system of 157
// (T = 1,000) and 208 (T = 2,000). It must now converge to the attractor
// found by plain iteration (an independent computation: no extrapolation,
// its own support growth), 343.049 at T = 2,000, the published 343.
//
// Tolerance: both stop at 1e-10 in ‖·‖₁ of a map whose spectral radius is
// at most 0.35 here (fluid map prints 0.22 at T = 1,000, 0.34 at 3,000),
// so each board is within 1e-10/(1 − 0.35) ≈ 1.5e-10 of the fixed point;
// the mean time in system moves by about that times the longest queue
// (under 3,000 at T = 3,000), 4.5e-7, so the two agree within 1e-6
// absolute (they agree to 1.4e-10 or better); a stall, 40% off, fails it
// by eight orders.
func TestFixedPointGrowsSupportBestOfTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("three periods' fixed points and attractors: 1 s")
	}
	for _, T := range []float64{1000, 2000, 3000} {
		m := &Model{System: System{K: 5, Load: 0.9, Tally: None, Choices: 2}, Period: T}
		fp, err := FixedPoint(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		att, err := Attractor(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if att.Status != outcome.FixedPoint {
			t.Fatalf("T = %v: attractor %v, want a fixed point", T, att.Status)
		}
		if fp.Status != outcome.Converged || fp.Lost > 1e-12 {
			t.Fatalf("T = %v: FixedPoint %v (mean time in system %.6g, lost %.2g), want converged with no loss; attractor %.6g", T, fp.Status, fp.Map.Sojourn, fp.Lost, att.Sojourn)
		}
		if d := math.Abs(fp.Map.Sojourn - att.Sojourn); d > 1e-6 {
			t.Errorf("T = %v: FixedPoint's mean time in system %.10g, attractor %.10g", T, fp.Map.Sojourn, att.Sojourn)
		}
		if T == 2000 && math.Round(fp.Map.Sojourn) != 343 {
			t.Errorf("T = 2,000: %.6g, the published value is 343", fp.Map.Sojourn)
		}
		t.Logf("T = %v: %.12g (attractor %.12g, difference %.2g), %d evaluations, support %d", T, fp.Map.Sojourn, att.Sojourn, fp.Map.Sojourn-att.Sojourn, fp.Evaluations, len(fp.Board))
	}
}

// At a support capped below what the board needs, FixedPoint must not
// report Converged: either its solve fails to converge on the truncated
// map or it converges there while losing mass (TruncationLimit).
func TestFixedPointTruncationNotConverged(t *testing.T) {
	defer func(n int) { maxFixedPointSupport = n }(maxFixedPointSupport)
	maxFixedPointSupport = 1024
	m := &Model{System: System{K: 5, Load: 0.9, Tally: None, Choices: 2}, Period: 2000}
	fp, err := FixedPoint(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fp.Status == outcome.Converged {
		t.Fatalf("support capped at %d: Converged (mean time in system %.6g, lost %.2g), want a limit", maxFixedPointSupport, fp.Map.Sojourn, fp.Lost)
	}
	if fp.Status.Err() == nil {
		t.Fatalf("status %v has no error", fp.Status)
	}
	t.Logf("capped: %v, lost %.2g, mean time in system %.6g", fp.Status, fp.Lost, fp.Map.Sojourn)
}

// The solves on growing supports share MaxIter: with 5 iterations the
// best-of-two solve at T = 2,000 (13 evaluations to converge, the
// support grown on the way) ends at the iteration limit, within the
// budget plus one initial evaluation per solve and the final one, and says
// so.
func TestFixedPointSharedBudget(t *testing.T) {
	m := &Model{System: System{K: 5, Load: 0.9, Tally: None, Choices: 2}, Period: 2000}
	set := defaultSolve()
	set.MaxIter = 5
	fp, err := FixedPoint(m, &FixedPointSettings{Solve: set})
	if err != nil {
		t.Fatal(err)
	}
	if fp.Status == outcome.Converged || fp.Status.Err() == nil {
		t.Fatalf("MaxIter 5: status %v, want a limit", fp.Status)
	}
	// Each solve adds one evaluation beyond its iterations (at its start);
	// growing 706 → 65,536 takes at most 7 solves.
	if fp.Evaluations > 5+7+1 {
		t.Errorf("MaxIter 5: %d evaluations", fp.Evaluations)
	}
	t.Logf("MaxIter 5: %v after %d evaluations", fp.Status, fp.Evaluations)
}
