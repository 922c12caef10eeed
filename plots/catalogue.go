package plots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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
	// computed otherwise, so figures re-render without recomputing.
	DataDir string
}

// entry is a figure of the catalogue: how to compute its data (of type D)
// and how to draw it.
type entry struct {
	title string
	make  func(s *Settings) (*Figure, error)
}

func figureOf[D any](name string, compute func(s *Settings) (*D, error), draw func(*D) (*Figure, error)) func(s *Settings) (*Figure, error) {
	return func(s *Settings) (*Figure, error) {
		var d *D
		path := ""
		if s.DataDir != "" {
			file := name + ".json"
			if s.Quick {
				file = name + ".quick.json"
			}
			path = filepath.Join(s.DataDir, file)
			b, err := os.ReadFile(path)
			switch {
			case err == nil:
				d = new(D)
				if err := json.Unmarshal(b, d); err != nil {
					return nil, fmt.Errorf("plots: cached data %s: %w", path, err)
				}
			case !errors.Is(err, fs.ErrNotExist):
				return nil, err
			}
		}
		if d == nil {
			var err error
			if d, err = compute(s); err != nil {
				return nil, err
			}
			if path != "" {
				b, err := json.MarshalIndent(d, "", " ")
				if err != nil {
					return nil, err
				}
				if err := os.MkdirAll(s.DataDir, 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					return nil, err
				}
			}
		}
		return draw(d)
	}
}

var catalogue = map[string]entry{
	"edge": {"tipping-edge phase diagram of the stale board", figureOf("edge",
		func(s *Settings) (*EdgeData, error) { return ComputeEdgeData(s.Quick, s.Seed) }, EdgeFigure)},
	"bistability": {"mean time in system against T from two starts (stale board)", figureOf("bistability",
		func(s *Settings) (*BistabilityData, error) { return ComputeBistabilityData(s.Quick, s.Seed) }, BistabilityFigure)},
	"jiq-blocking": {"exact JIQ blocking over α₁ and λ", figureOf("jiq-blocking",
		func(s *Settings) (*BlockingMapData, error) { return ComputeBlockingMapData(s.Quick) }, BlockingMapFigure)},
	"jiq-trajectory": {"JIQ fluid trajectories with simulation", figureOf("jiq-trajectory",
		func(s *Settings) (*TrajectoryData, error) { return ComputeTrajectoryData(s.Quick, s.Seed) }, TrajectoryFigure)},
	"exchange": {"limiting blocking and wait against the token exchange rate", figureOf("exchange",
		func(*Settings) (*ExchangeData, error) { return ComputeExchangeData() }, ExchangeFigure)},
	"finite-edge": {"probability of tipping within 100 periods, and the finite-N edge against N", figureOf("finite-edge",
		func(s *Settings) (*FiniteEdgeData, error) { return ComputeFiniteEdgeData(s.Quick, s.Seed) }, FiniteEdgeFigure)},
	"sizes": {"mean time in system against size spread and board age", figureOf("sizes",
		func(s *Settings) (*SizesData, error) { return ComputeSizesData(s.Quick, s.Seed) }, SizesFigure)},
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
