package staleboard

import (
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// mapRow is one row of the map's cost targets: a map and the board it is
// applied to.
type mapRow struct {
	name  string
	k     int
	T     float64
	board func(b *testing.B, m *Map) []float64
}

// mapRows are the cost targets of one period (k = 5, λ = 0.9): the
// balanced fixed point at T = 400 (benchBoard) and the spread-start herd
// at T = 1,100 and 3,000 (herdBoard, 20 periods from spread:0.8T).
var mapRows = []mapRow{
	{"balanced-T400", 5, 400, benchBoard},
	{"herd-T1100", 5, 1100, func(b *testing.B, m *Map) []float64 { return herdBoard(b, m, 1100, 20) }},
	{"herd-T3000", 5, 3000, func(b *testing.B, m *Map) []float64 { return herdBoard(b, m, 3000, 20) }},
}

// BenchmarkMapWindow is one period by the window evolution (applyInto,
// reusing the result: no allocation per period), for each row.
func BenchmarkMapWindow(b *testing.B) {
	for _, r := range mapRows {
		b.Run(r.name, func(b *testing.B) {
			m := newMap(r.k, 0.9, r.T)
			p := r.board(b, m)
			var res MapResult
			if err := m.applyInto(p, &res); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := m.applyInto(p, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMapRef is one period by the reference path, for each row.
func BenchmarkMapRef(b *testing.B) {
	for _, r := range mapRows {
		b.Run(r.name, func(b *testing.B) {
			m := newMap(r.k, 0.9, r.T)
			p := r.board(b, m)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := m.applyRef(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMapSpeedup runs the window evolution and the reference
// alternately on each row and reports both times per period and their
// ratio, measured in the same run (ns/op is their sum).
func BenchmarkMapSpeedup(b *testing.B) {
	for _, r := range mapRows {
		b.Run(r.name, func(b *testing.B) {
			m := newMap(r.k, 0.9, r.T)
			p := r.board(b, m)
			var res MapResult
			if err := m.applyInto(p, &res); err != nil {
				b.Fatal(err)
			}
			if _, err := m.applyRef(p); err != nil {
				b.Fatal(err)
			}
			var pair cputime.Pair
			b.ResetTimer()
			for b.Loop() {
				pair.Run(func() {
					if err := m.applyInto(p, &res); err != nil {
						b.Fatal(err)
					}
				}, func() {
					if _, err := m.applyRef(p); err != nil {
						b.Fatal(err)
					}
				})
			}
			win, ref := pair.Wall[0], pair.Wall[1]
			b.ReportMetric(float64(win.Nanoseconds())/float64(pair.Runs), "window-ns/op")
			b.ReportMetric(float64(ref.Nanoseconds())/float64(pair.Runs), "ref-ns/op")
			b.ReportMetric(float64(ref)/float64(win), "speedup")
		})
	}
}

// BenchmarkMapCold is one period on a board the map has not seen (every
// pass's weights computed afresh, as when a solve or an orbit moves the
// board): the half-loaded herd at T = 1,100 and 3,000 (20 periods from
// half:0.1T), with the weight caches emptied before each period, by the
// window evolution and by the reference.
func BenchmarkMapCold(b *testing.B) {
	for _, T := range []float64{1100, 3000} {
		for _, ref := range []bool{false, true} {
			name := map[float64]string{1100: "herd-T1100", 3000: "herd-T3000"}[T] + map[bool]string{false: "/window", true: "/ref"}[ref]
			b.Run(name, func(b *testing.B) {
				m := newMap(5, 0.9, T)
				p, err := Board(farm.Start{Kind: farm.Half, Jobs: int(0.1 * T)})
				if err != nil {
					b.Fatal(err)
				}
				for range 20 {
					r, err := m.Apply(p)
					if err != nil {
						b.Fatal(err)
					}
					p = r.Next
				}
				m.reference = ref
				var res MapResult
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					m.dropCaches()
					if err := m.applyInto(p, &res); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
