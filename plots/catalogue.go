package plots

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/fluidlb/fluid/outcome"
)

// Settings control Make. The zero value computes full-quality data.
type Settings struct {
	// Quick computes the data with fewer points and shorter simulations.
	Quick bool
	// Seed is the base seed of the simulations (default 1).
	Seed uint64
	// DataDir, if set, caches each figure's data as NAME.json (quick:
	// NAME.quick.json) there: the
	// data is read from the file when it exists and written after it is
	// computed otherwise, so figures re-render without recomputing. A
	// cached file that no longer passes the data's checks (written before
	// the data gained a field, say) is recomputed and overwritten.
	DataDir string
	// Progress, if not nil, is told how far the computation of a figure's
	// data has got: done of total units of work, the units being the
	// figure's own (weighted to take about equal times; the total may grow
	// as the computation learns its extent). Calls come one at a time, from
	// the computing goroutines. Data read from the cache reports nothing.
	Progress outcome.Progress
}

// meter passes a computation's progress on to Settings.Progress. A nil
// meter counts nothing.
type meter struct {
	mu          sync.Mutex
	report      outcome.Progress
	done, total int
}

func newMeter(report outcome.Progress) *meter {
	if report == nil {
		return nil
	}
	return &meter{report: report}
}

// grow adds n units to the work to do.
func (m *meter) grow(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total += n
	m.report(int64(m.done), int64(m.total), "")
}

// add counts n units done.
func (m *meter) add(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = min(m.done+n, m.total)
	m.report(int64(m.done), int64(m.total), "")
}

// arrivals is a sim.Settings.Progress counting a unit per chunk of 65,536
// simulated arrivals (nil for a nil meter).
func (m *meter) arrivals() outcome.Progress {
	if m == nil {
		return nil
	}
	return func(int64, int64, string) { m.add(1) }
}

// share is a Progress that moves the meter by weight units over the
// whole of a computation: by weight·done/total once done of total units
// are finished (nil for a nil meter).
func (m *meter) share(weight int) outcome.Progress {
	if m == nil {
		return nil
	}
	var mu sync.Mutex
	added := 0
	return func(done, total int64, _ string) {
		if total <= 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		n := int(int64(weight) * min(done, total) / total)
		m.add(n - added)
		added = n
	}
}

// checker is data that can tell whether it is complete and drawable.
type checker interface{ check() error }

// entry is a figure of the catalogue: how to compute its data (of type D)
// and how to draw it.
type entry struct {
	title string
	make  func(s *Settings) (*Figure, error)
}

func figureOf[D any, P interface {
	*D
	checker
}](name string, compute func(s *Settings, m *meter) (*D, error), draw func(*D) (*Figure, error)) func(s *Settings) (*Figure, error) {
	return func(s *Settings) (*Figure, error) {
		var d *D
		path := ""
		if s.DataDir != "" {
			file := name + ".json"
			if s.Quick {
				file = name + ".quick.json"
			}
			path = filepath.Join(s.DataDir, file)
			cached, err := readCache(path, name, s, func(d *D) error { return P(d).check() })
			if err != nil {
				return nil, err
			}
			d = cached
		}
		if d == nil {
			var err error
			if d, err = compute(s, newMeter(s.Progress)); err != nil {
				return nil, err
			}
			if err := P(d).check(); err != nil {
				return nil, err
			}
			if path != "" {
				if err := writeCache(path, name, s, d); err != nil {
					return nil, err
				}
			}
		}
		return draw(d)
	}
}

var catalogue = map[string]entry{
	"edge": {"tipping-edge phase diagram of the stale board", figureOf("edge",
		func(s *Settings, m *meter) (*EdgeData, error) { return computeEdgeData(s.Quick, s.Seed, m) }, EdgeFigure)},
	"bistability": {"mean time in system against T from two starts (stale board)", figureOf("bistability",
		func(s *Settings, m *meter) (*BistabilityData, error) {
			return computeBistabilityData(s.Quick, s.Seed, m)
		}, BistabilityFigure)},
	"bestd": {"mean time in system against T for the least board, best of two with a tally and without (stale board)", figureOf("bestd",
		func(s *Settings, m *meter) (*BestdData, error) { return computeBestdData(s.Quick, s.Seed, m) }, BestdFigure)},
	"trapdoor": {"critical backlog b*/T against T: the trap door's size (stale board)", figureOf("trapdoor",
		func(s *Settings, m *meter) (*TrapDoorData, error) { return computeTrapDoorData(s.Quick, s.Seed, m) }, TrapDoorFigure)},
	"jiq-blocking": {"exact JIQ blocking over α₁ and λ", figureOf("jiq-blocking",
		func(s *Settings, m *meter) (*BlockingMapData, error) { return computeBlockingMapData(s.Quick, m) }, BlockingMapFigure)},
	"jiq-trajectory": {"JIQ fluid trajectories with simulation", figureOf("jiq-trajectory",
		func(s *Settings, m *meter) (*TrajectoryData, error) { return computeTrajectoryData(s.Quick, s.Seed, m) }, TrajectoryFigure)},
	"exchange": {"limiting blocking and wait against the token exchange rate", figureOf("exchange",
		func(_ *Settings, m *meter) (*ExchangeData, error) { return computeExchangeData(m) }, ExchangeFigure)},
	"finite-edge": {"probability of tipping within 100 periods, and the finite-N edge against N", figureOf("finite-edge",
		func(s *Settings, m *meter) (*FiniteEdgeData, error) { return computeFiniteEdgeData(s.Quick, s.Seed, m) }, FiniteEdgeFigure)},
	"ps-edge": {"tipping edge against the job-size spread, FCFS and PS servers (stale board)", figureOf("ps-edge",
		func(s *Settings, m *meter) (*PSEdgeData, error) { return computePSEdgeData(s.Quick, m) }, PSEdgeFigure)},
	"skew-edge": {"tipping edge against the largest dispatcher share (stale board)", figureOf("skew-edge",
		func(s *Settings, m *meter) (*SkewEdgeData, error) { return computeSkewEdgeData(s.Quick, m) }, SkewEdgeFigure)},
	"sizes": {"mean time in system against size spread and board age, theory and simulation", figureOf("sizes",
		func(s *Settings, m *meter) (*SizesData, error) { return computeSizesData(s.Quick, s.Seed, m) }, SizesFigure)},
}

// Names lists the figures, sorted.
func Names() []string {
	var ns []string
	for n := range catalogue {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Title describes a figure ("" if unknown).
func Title(name string) string { return catalogue[name].title }

// Make computes (or reads from Settings.DataDir) a figure's data and draws
// it.
func Make(name string, s *Settings) (*Figure, error) {
	e, ok := catalogue[name]
	if !ok {
		return nil, fmt.Errorf("plots: unknown figure %q (want one of %v)", name, Names())
	}
	set := Settings{}
	if s != nil {
		set = *s
	}
	if set.Seed == 0 {
		set.Seed = 1
	}
	return e.make(&set)
}
