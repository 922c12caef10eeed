package bestofd

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/outcome"
)

// h2 is the balanced-means H2 law of squared coefficient of variation c2.
func h2(c2 float64) farm.Sizes { return farm.Sizes{Kind: farm.H2, SCV: c2} }

// Exponential sizes: the fixed point is P(Q ≥ i) = λ^{(d^i − 1)/(d − 1)}
// (Mitzenmacher; Vvedenskaya et al.), to 1e-8.
func TestClosedForm(t *testing.T) {
	for _, d := range []int{2, 3, 5} {
		for _, load := range []float64{0.5, 0.9, 0.99} {
			res, err := FixedPoint(&Model{D: d, Load: load}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(res.Tail); i++ {
				want := math.Pow(load, (math.Pow(float64(d), float64(i))-1)/float64(d-1))
				if math.Abs(res.Tail[i]-want) > 1e-8 {
					t.Errorf("d=%d λ=%v: P(Q ≥ %d) = %.12g, closed form %.12g", d, load, i, res.Tail[i], want)
					break
				}
			}
			if res.Abscissa >= 0 || res.Lost > 1e-13 {
				t.Errorf("d=%d λ=%v: abscissa %v, lost %v", d, load, res.Abscissa, res.Lost)
			}
			t.Logf("d=%d λ=%v: sojourn %.6f, M = %d, %d iterations", d, load, res.Sojourn, res.MaxQueue, res.Solve.Iterations)
		}
	}
}

// PS with H2 sizes, solved on the 2-D (small, giant) state: a server sees
// Poisson arrivals at a rate depending only on its count, so it is a
// symmetric queue and insensitive; the mean time must equal the
// exponential 2.6141 for every SCV, within the truncation and solver
// tolerances (1e-9 relative).
func TestPSInsensitive(t *testing.T) {
	exp, err := FixedPoint(&Model{D: 2, Load: 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(exp.Sojourn-2.614057) > 1e-6 {
		t.Fatalf("exponential: %v", exp.Sojourn)
	}
	for _, scv := range []float64{4, 10, 30} {
		res, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2(scv)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Sojourn-exp.Sojourn) > 1e-9*exp.Sojourn || res.States <= res.MaxQueue+1 {
			t.Errorf("PS SCV %v: %.12f on %d states, exponential %.12f", scv, res.Sojourn, res.States, exp.Sojourn)
		}
		for n := range res.Dist {
			if math.Abs(res.Dist[n]-exp.Dist[n]) > 1e-10 {
				t.Errorf("PS SCV %v: P(Q = %d) = %v, exponential %v", scv, n, res.Dist[n], exp.Dist[n])
				break
			}
		}
		if res.Abscissa >= 0 {
			t.Errorf("PS SCV %v: abscissa %v", scv, res.Abscissa)
		}
	}
}

// FCFS with H2 sizes: the mean field lies below N = 100
// simulation (4.2, 6.8, 15.2 at SCV 4, 10, 30) and grows with the SCV.
func TestFCFSH2(t *testing.T) {
	prev := 2.614
	for _, c := range []struct{ scv, sim float64 }{{4, 4.2}, {10, 6.8}, {30, 15.2}} {
		res, err := FixedPoint(&Model{D: 2, Load: 0.9, Discipline: farm.FCFS, Sizes: h2(c.scv)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("FCFS SCV %v: mean field %.4f (N = 100: %v), M = %d, lost %.2g", c.scv, res.Sojourn, c.sim, res.MaxQueue, res.Lost)
		if !(res.Sojourn < c.sim && res.Sojourn > prev) || res.Abscissa >= 0 || res.Lost > 1e-13 {
			t.Errorf("FCFS SCV %v: %.4f (simulated %v, previous %.4f), abscissa %v", c.scv, res.Sojourn, c.sim, prev, res.Abscissa)
		}
		prev = res.Sojourn
	}
}

// The ODE's long-time limit from the empty system agrees with FixedPoint
// (an independent route to the same point).
func TestSettle(t *testing.T) {
	for _, m := range []*Model{{D: 2, Load: 0.9}, {D: 2, Load: 0.9, Discipline: farm.PS, Sizes: h2(10)}, {D: 3, Load: 0.8, Discipline: farm.FCFS, Sizes: h2(4)}} {
		fp, err := FixedPoint(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Settle(m, &SettleSettings{MaxQueue: fp.MaxQueue})
		if err != nil || st.Status != outcome.Converged {
			t.Fatal(st, err)
		}
		q := st.Dist
		for n := range q {
			if math.Abs(q[n]-fp.Dist[n]) > 1e-7 {
				t.Errorf("%+v: P(Q = %d): ODE %v, fixed point %v", *m, n, q[n], fp.Dist[n])
				break
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, m := range []*Model{{D: 0, Load: 0.5}, {D: 2, Load: 1}, {D: 2, Load: math.NaN()}, {D: 2, Load: 0.5, Sizes: farm.Sizes{Kind: farm.H2, SCV: 0.5}}, {D: 2, Load: 0.5, MaxQueue: 1}, {D: 2, Load: 0.5, Discipline: 7}} {
		if _, err := FixedPoint(m, nil); err == nil {
			t.Errorf("%+v accepted", *m)
		}
	}
	// A truncation too small for the tolerance is a failed status, not a
	// number.
	if res, err := FixedPoint(&Model{D: 2, Load: 0.99, MaxQueue: 4}, nil); err != nil || res.Status != outcome.TruncationLimit {
		t.Errorf("truncation at 4 at λ = 0.99: %v, %v", res.Status, err)
	}
	// Only exponential and H2 sizes.
	if _, err := FixedPoint(&Model{D: 2, Load: 0.5, Sizes: farm.Sizes{Kind: farm.Pareto, Shape: 2.5}}, nil); err == nil {
		t.Error("Pareto sizes accepted")
	}
}

// The refined mean field of JSQ(2) at λ = 0.9: it reduces to the mean
// field at N = ∞, its correction is positive (finite systems queue more),
// and for d = 1 (random dispatch, M/M/1 at every N) it vanishes. Its
// agreement with simulation at N = 10…100 is checked in package validate
// (case jsq2-refined).
func TestRefined(t *testing.T) {
	r, err := Refined(&Model{D: 2, Load: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Sojourn(0)-2.614057) > 1e-6 {
		t.Errorf("mean field %v", r.Sojourn(0))
	}
	if !(r.Correction > 0) {
		t.Errorf("correction %v: finite N queues are longer", r.Correction)
	}
	t.Logf("d=2 λ=0.9: π %.4f, V %.4f; N=10: %.4f, N=100: %.4f", r.MeanQueue, r.Correction, r.Sojourn(10), r.Sojourn(100))
	// d = 1 is random dispatch: every server an M/M/1 queue at every N, so
	// the correction vanishes (to the truncation of π at 1e-16).
	r1, err := Refined(&Model{D: 1, Load: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r1.Correction) > 1e-9 || math.Abs(r1.Sojourn(0)-1.25) > 1e-9 {
		t.Errorf("d = 1: mean field %v, correction %v", r1.Sojourn(0), r1.Correction)
	}
	if _, err := Refined(&Model{D: 2, Load: 1}); err == nil {
		t.Error("λ = 1 accepted")
	}
	if _, err := Refined(&Model{D: 2, Load: 0.5, Sizes: h2(4)}); err == nil {
		t.Error("H2 sizes accepted")
	}
}

// Stale best of two (Mitzenmacher's periodic update), T = 100, λ = 0.9:
// exponential sizes within 5% of the N = 100 simulation (21); under PS the
// mean time falls as the SCV rises (simulated: 6.0 at SCV 30).
func TestPeriodicUpdate(t *testing.T) {
	exp, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100}, &AttractorSettings{MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	if exp.Status != outcome.FixedPoint || math.Abs(exp.Sojourn-21)/21 > 0.05 || exp.Lost > 1e-5 {
		t.Errorf("exponential: %v, sojourn %.4f (N = 100: 21), lost %v", exp.Status, exp.Sojourn, exp.Lost)
	}
	// Little's law inside the map: the time-average count over a period
	// exceeds nothing it should not — the board mean (a snapshot at the
	// refresh) and the time average agree within the period's growth.
	if exp.BoardMean <= 0 || math.Abs(exp.MeanQueue-exp.BoardMean)/exp.MeanQueue > 0.2 {
		t.Errorf("board mean %v, time-average count %v", exp.BoardMean, exp.MeanQueue)
	}
	if testing.Short() {
		return
	}
	ps, err := Attractor(&PeriodicUpdate{D: 2, Load: 0.9, Period: 100, Discipline: farm.PS, Sizes: h2(30)}, &AttractorSettings{MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stale best of two, T = 100: exponential %.4f, PS SCV 30 %.4f (N = 100: 21 and 6.0); states %d", exp.Sojourn, ps.Sojourn, ps.States)
	if ps.Status != outcome.FixedPoint || ps.Sojourn >= exp.Sojourn/2 || math.Abs(ps.Sojourn-6.0)/6.0 > 0.1 {
		t.Errorf("PS SCV 30: %v, %.4f", ps.Status, ps.Sojourn)
	}
}

func TestPeriodicUpdateBadInput(t *testing.T) {
	for _, m := range []*PeriodicUpdate{{D: 2, Load: 0.9, Period: 0}, {D: -1, Load: 0.9, Period: 1}, {D: 2, Load: 1.2, Period: 1}, {D: 2, Load: 0.5, Period: math.Inf(1)}, {D: 2, Load: 0.5, Period: 1, MinClass: 2}} {
		if _, err := Attractor(m, &AttractorSettings{MaxIter: 10}); err == nil {
			t.Errorf("%+v accepted", *m)
		}
	}
}
