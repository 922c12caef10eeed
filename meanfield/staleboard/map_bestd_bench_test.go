package staleboard

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/cputime"
)

// bestdBoard returns the attractor's board of the system's map at period
// T from the empty start (a fixed point for best of d at every row; the
// Anderson solve of FixedPoint stalls there at T ≥ 1,000, and its last
// iterate is not the state the map is used at). With a tally it is the
// regular rounding's fixed point, iterated here (seconds, where the
// projection's attractor costs minutes): the same state for both tally
// rows, and the state the cost was measured at before the projection was
// the map (its balanced board mean 6.16 against the projection's 6.43).
func bestdBoard(b testing.TB, sys System, T float64) []float64 {
	b.Helper()
	if sys.Tally == Own {
		mp := newModelMap(&sys, T)
		mp.bestd.rounding = true
		p := []float64{1}
		var res MapResult
		for range 400 {
			if err := mp.applyInto(p, &res); err != nil {
				b.Fatal(err)
			}
			var d float64
			for q := range max(len(p), len(res.Next)) {
				d += math.Abs(entry(p, q) - entry(res.Next, q))
			}
			p = append(p[:0:0], res.Next...)
			if d < 1e-10 {
				return p
			}
		}
		b.Fatal("the rounding did not settle within 400 periods")
	}
	a, err := Attractor(&Model{System: sys, Period: T}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return a.Boards[len(a.Boards)-1]
}

// bestdRows are the best-of-d cost targets (k = 5, λ = 0.9), each against
// today's map (least board + own tally) at the same T: its balanced fixed
// point at T ≤ 400 (benchBoard) and its spread-start herd at T ≥ 1,000
// (herdBoard), the states it is used at on either side of its edge (T* ≈
// 290). Best of two with a tally (the projected superposition) steps every
// board class's joint law of arrivals and count over the period: thousands
// of times today's map (see the package documentation's cost line); the
// regular rounding, its reference, steps each class's tally law and count
// window, about a hundred times.
var bestdRows = []struct {
	name     string
	sys      System
	T        float64
	ref      func(b *testing.B, m *Map) []float64
	rounding bool // the regular rounding (the reference) instead of the projection
	rk4      bool // the projection by RK4 (the reference) instead of SSPRK(10,4)
	vsRK4    bool // against the projection by RK4 on the same board instead of today's map
}{
	{"board-jsqd2-T30", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 30, benchBoard, false, false, false},
	{"board-jsqd2-T100", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 100, benchBoard, false, false, false},
	{"board-jsqd2-T400", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 400, benchBoard, false, false, false},
	{"board-jsqd2-T1000", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 1000, herdAt(1000), false, false, false},
	{"board-jsqd2-T2000", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 2000, herdAt(2000), false, false, false},
	{"board-jsqd2-T3000", System{K: 5, Load: 0.9, Tally: None, Choices: 2}, 3000, herdAt(3000), false, false, false},
	{"tally-jsqd2-T400", System{K: 5, Load: 0.9, Tally: Own, Choices: 2}, 400, benchBoard, false, false, false},
	{"tally-jsqd2-T400-rk4", System{K: 5, Load: 0.9, Tally: Own, Choices: 2}, 400, benchBoard, false, true, false},
	{"tally-jsqd2-T400-vs-rk4", System{K: 5, Load: 0.9, Tally: Own, Choices: 2}, 400, benchBoard, false, false, true},
	{"tally-jsqd2-T400-rounding", System{K: 5, Load: 0.9, Tally: Own, Choices: 2}, 400, benchBoard, true, false, false},
}

// herdAt is the reference state at T: today's map's spread-start herd
// after 20 periods.
func herdAt(T float64) func(b *testing.B, m *Map) []float64 {
	return func(b *testing.B, m *Map) []float64 { return herdBoard(b, m, T, 20) }
}

// BenchmarkMapBestd runs one best-of-d period at its fixed point and one
// period of today's map at the same T alternately, and reports both CPU
// times per period and their ratio, measured in the same run (the
// acceptance: within 10×); the -vs-rk4 row runs the projection's two
// evolutions on the same board instead (SSPRK(10,4) as bestd, RK4 as
// today).
func BenchmarkMapBestd(b *testing.B) {
	for _, r := range bestdRows {
		b.Run(r.name, func(b *testing.B) {
			p := bestdBoard(b, r.sys, r.T)
			mp := newModelMap(&r.sys, r.T)
			mp.bestd.rounding, mp.bestd.rk4 = r.rounding, r.rk4
			ref := newMap(5, 0.9, r.T)
			rp := r.ref(b, ref)
			if r.vsRK4 {
				ref = newModelMap(&r.sys, r.T)
				ref.bestd.rk4 = true
				rp = p
			}
			var res, rres MapResult
			var pair cputime.Pair
			b.ResetTimer()
			for b.Loop() {
				pair.Run(func() {
					if err := mp.applyInto(p, &res); err != nil {
						b.Fatal(err)
					}
				}, func() {
					if err := ref.applyInto(rp, &rres); err != nil {
						b.Fatal(err)
					}
				})
			}
			bd, td := pair.CPU[0], pair.CPU[1]
			b.ReportMetric(float64(bd.Microseconds())/1e3/float64(pair.Runs), "bestd-ms/period")
			b.ReportMetric(float64(td.Microseconds())/1e3/float64(pair.Runs), "today-ms/period")
			b.ReportMetric(float64(bd)/float64(td), "ratio")
		})
	}
}
