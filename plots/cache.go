package plots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/fluidlb/fluid/internal/atomicfile"
)

// cacheVersion is the version of the data cache's envelope and of the
// data structs in it; a cache of another version is refused.
const cacheVersion = 1

// cacheFile is what --data keeps per figure: the data with what it was
// computed from.
type cacheFile[D any] struct {
	Version int    `json:"cache_version"`
	Figure  string `json:"figure"`
	Quick   bool   `json:"quick"`
	Seed    uint64 `json:"seed"`
	Data    *D     `json:"data"`
}

// CacheMismatchError is a cached data file computed from other inputs
// than the ones asked for (or of another format): it is refused, never
// drawn as if it were the figure asked for.
type CacheMismatchError struct {
	Path, What string
}

func (e *CacheMismatchError) Error() string {
	return fmt.Sprintf("plots: cached data %s %s: delete it, or use another data directory", e.Path, e.What)
}

// readCache reads the cached data of a figure, nil if there is none. A
// cache of other inputs or another format is a *CacheMismatchError; one
// that fails its data's check (cut short, or from an older computation) is
// nil, to be computed again.
func readCache[D any](path, figure string, s *Settings, check func(*D) error) (*D, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c cacheFile[D]
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, &CacheMismatchError{path, fmt.Sprintf("is not a fluid data cache (%v)", err)}
	}
	switch {
	case c.Version != cacheVersion:
		return nil, &CacheMismatchError{path, fmt.Sprintf("has cache version %d, not %d (written by another fluid)", c.Version, cacheVersion)}
	case c.Figure != figure:
		return nil, &CacheMismatchError{path, fmt.Sprintf("holds the figure %q, not %q", c.Figure, figure)}
	case c.Quick != s.Quick:
		return nil, &CacheMismatchError{path, fmt.Sprintf("was computed with quick = %v, not %v", c.Quick, s.Quick)}
	case c.Seed != s.Seed:
		return nil, &CacheMismatchError{path, fmt.Sprintf("was computed with seed %d, not %d", c.Seed, s.Seed)}
	}
	if c.Data == nil || check(c.Data) != nil {
		return nil, nil
	}
	return c.Data, nil
}

// writeCache writes a figure's data atomically: a temporary file renamed
// into place, so an interrupted run leaves the old cache or the new one.
func writeCache[D any](path, figure string, s *Settings, d *D) error {
	b, err := json.MarshalIndent(cacheFile[D]{Version: cacheVersion, Figure: figure, Quick: s.Quick, Seed: s.Seed, Data: d}, "", " ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// writeAtomic writes b to path through a temporary file in the same
// directory, renamed into place once complete.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// The checks of the data structs without one of their own (New…Data
// checks what it builds; a cache may hold anything).

func (d *EdgeData) check() error {
	if len(d.Points) == 0 {
		return fmt.Errorf("plots: no edge results")
	}
	for _, p := range d.Points {
		if err := finite("edge", p.Scaled, p.Load); err != nil {
			return err
		}
	}
	for _, b := range d.Sim {
		if err := finite("simulated edge", b.Edge, b.Lo, b.Hi); err != nil {
			return err
		}
	}
	return nil
}

func (d *BistabilityData) check() error {
	_, err := NewBistabilityData(d.K, d.Load, d.N, d.Map, d.Sim)
	return err
}

func (d *BlockingMapData) check() error {
	if len(d.Alpha1) < 2 || len(d.Load) < 2 {
		return fmt.Errorf("plots: blocking map: a grid of %d × %d", len(d.Load), len(d.Alpha1))
	}
	_, err := NewBlockingMapData(d.N, d.Alpha1, d.Load, d.Blocking)
	return err
}

func (d *TrajectoryData) check() error {
	if len(d.FluidT) == 0 || len(d.SimT) == 0 {
		return fmt.Errorf("plots: trajectory: no points")
	}
	for i := range 3 {
		if len(d.Fluid[i]) != len(d.FluidT) || len(d.Sim[i]) != len(d.SimT) || len(d.Spread[i]) != len(d.SimT) {
			return fmt.Errorf("plots: trajectory: ragged series")
		}
	}
	return finite("trajectory", slices.Concat(d.FluidT, d.SimT, d.Fluid[0], d.Fluid[1], d.Fluid[2], d.Sim[0], d.Sim[1], d.Sim[2], d.Spread[0], d.Spread[1], d.Spread[2])...)
}

func (d *ExchangeData) check() error {
	if len(d.Nu) == 0 || len(d.Blocking) != len(d.Nu) || len(d.MeanWait) != len(d.Nu) {
		return fmt.Errorf("plots: exchange: %d rates, %d blocking and %d wait values", len(d.Nu), len(d.Blocking), len(d.MeanWait))
	}
	return finite("exchange", slices.Concat(d.Nu, d.Blocking, d.MeanWait, []float64{d.NuStar})...)
}
