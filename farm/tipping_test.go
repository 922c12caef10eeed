package farm

import (
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
)

// TwoGroups against a brute force over every cut, on boards whose split
// is known by hand.
func TestTwoGroups(t *testing.T) {
	cases := []struct {
		name string
		p    []float64
		cut  int
		gap  float64
	}{
		// Half at 0, half at 10: the cut anywhere in 0..9, the first kept.
		{"half", append([]float64{0.5}, append(make([]float64, 9), 0.5)...), 0, 10},
		// One level: no split.
		{"point", []float64{0, 0, 1}, 0, 0},
		// A quarter at 4, three quarters at 0: means 0 and 4.
		{"quarter", []float64{0.75, 0, 0, 0, 0.25}, 0, 4},
		// Uniform on 0..3: the middle cut, means 0.5 and 2.5.
		{"uniform", []float64{0.25, 0.25, 0.25, 0.25}, 1, 2},
		// One server in 100 far above the rest (the hot server): it is
		// winsorised to the level of the others, and no split is left.
		{"hot server", hot(100, 5, 3200), 0, 0},
		// A twentieth of the servers high: too narrow a group, the cut
		// falls inside the others (all at 2 and 3).
		{"narrow", []float64{0, 0, 0.5, 0.45, 0, 0, 0, 0, 0, 0.05}, 2, 1.0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := TwoGroups(c.p)
			if s.Cut != c.cut {
				t.Errorf("cut %d, want %d", s.Cut, c.cut)
			}
			approx.Check(t, "gap", s.Gap, c.gap, 1e-12, 0)
			if c.name == "hot server" || c.name == "narrow" {
				return // the brute force below has no floor on the groups
			}
			// Brute force: the between-group variance of every cut is at
			// most the chosen one's.
			best := s.Low * (1 - s.Low) * s.Gap * s.Gap
			for cut := 0; cut+1 < len(c.p); cut++ {
				var w, m, all, mass float64
				for q, x := range c.p {
					mass += x
					all += float64(q) * x
					if q <= cut {
						w += x
						m += float64(q) * x
					}
				}
				if w == 0 || w == mass {
					continue
				}
				g := (all-m)/(mass-w) - m/w
				if v := w * (mass - w) * g * g; v > best+1e-12 {
					t.Errorf("cut %d has variance %v above the chosen %v", cut, v, best)
				}
			}
		})
	}
}

// The tipping definition on boards from the cases it must get right:
// each board is a simulated board at N = 100 (sim.Run with a Horizon of
// 10–200 periods, RecordFinal, 3 replications of seed 7), summarised by
// the gap of its two groups (TwoGroups), as measured when the definition
// was chosen; the simulator's own tests run the cases themselves.
func TestTipGapCases(t *testing.T) {
	cases := []struct {
		name       string
		T, load    float64
		gap        float64
		herd       bool
		provenance string
	}{
		{"k=3 λ=0.8 T=20", 20, 0.8, 9.1, false, "largest of 3 runs at N = 100 (7.4 at N = 800; mean time in system 5.0–5.2: no herd)"},
		{"k=3 λ=0.8 T=10", 10, 0.8, 6.8, false, "largest of 3 runs"},
		{"k=5 λ=0.9 T=400 balanced", 400, 0.9, 10.0, false, "largest of 3 runs from empty"},
		{"k=1 best of 2 with tally, T=100", 100, 0.9, 7.7, false, "largest of 3 runs, mean time 5.0"},
		{"k=5 best of 2 with tally, T=2,000, half-loaded", 2000, 0.9, 689.4, true, "smallest of 3 runs, board mean 358–367 ≈ 0.18·T"},
		{"k=5 λ=0.9 T=1,100 half-loaded", 1100, 0.9, 869.9, true, "smallest of 3 runs (the 0.40·T herd)"},
		{"k=3 λ=0.9 T=60", 60, 0.9, 46.8, true, "smallest of 3 runs from empty, below the edge (T* = 99)"},
		{"k=5 λ=0.9 T=50", 50, 0.9, 49.3, true, "smallest of 3 runs from empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.gap > TipGap(c.T, c.load); got != c.herd {
				t.Errorf("gap %v against TipGap %v: tipped %v, want %v (%s)", c.gap, TipGap(c.T, c.load), got, c.herd, c.provenance)
			}
		})
	}
}

// hot is the board of n servers at level q but one, at q + x.
func hot(n, q, x int) []float64 {
	p := make([]float64, q+x+1)
	p[q] = 1 - 1/float64(n)
	p[q+x] = 1 / float64(n)
	return p
}

// TipWatch tips at the second herded board in a row: a flip that carries
// a gap over one refresh and then drains (two dispatchers) does not tip,
// a gap that stays does, and Reset forgets the last board.
func TestTipWatch(t *testing.T) {
	two := func(gap int) []float64 { // half the servers at 0, half at gap
		p := make([]float64, gap+1)
		p[0] += 0.5
		p[gap] += 0.5
		return p
	}
	// T = 300, λ = 0.9: TipGap 30.
	cases := []struct {
		name string
		gaps []int
		tip  int // index of the board that tips, −1 none
	}{
		{"drains", []int{60, 25, 5, 2, 1}, -1},
		{"stays", []int{60, 40, 50, 240}, 1},
		{"once, again later", []int{40, 10, 40, 45}, 3},
		{"balanced", []int{10, 12, 9}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := TipWatch{Period: 300, Load: 0.9}
			got := -1
			for i, g := range c.gaps {
				if w.Next(two(g)) && got < 0 {
					got = i
				}
			}
			if got != c.tip {
				t.Errorf("tipped at board %d, want %d", got, c.tip)
			}
		})
	}
	w := TipWatch{Period: 300, Load: 0.9}
	w.Next(two(60))
	w.Reset()
	if w.Next(two(60)) {
		t.Error("tipped across a Reset")
	}
}
