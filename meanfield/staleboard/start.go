package staleboard

import (
	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// MaxStartJobs bounds the queue lengths of a start: a board distribution
// has one entry per queue length.
const MaxStartJobs = 1 << 20

// Board returns the board distribution of a start at N → ∞: empty and
// balanced:L put every server at one queue length; half:B puts half the
// servers at 0 and half at B; spread:S spreads them evenly over 0..S. A
// single hot server weighs nothing among infinitely many and is refused
// (simulate it instead).
func Board(s farm.Start) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Jobs > MaxStartJobs {
		return nil, param.Errorf("Start", "%v: queue lengths above %d do not fit a board distribution", s, MaxStartJobs)
	}
	switch s.Kind {
	case farm.Empty:
		return []float64{1}, nil
	case farm.Balanced:
		p := make([]float64, s.Jobs+1)
		p[s.Jobs] = 1
		return p, nil
	case farm.Half:
		p := make([]float64, s.Jobs+1)
		p[0] += 0.5
		p[s.Jobs] += 0.5
		return p, nil
	case farm.Spread:
		p := make([]float64, s.Jobs+1)
		for i := range p {
			p[i] = 1 / float64(s.Jobs+1)
		}
		return p, nil
	}
	return nil, param.Errorf("Start", "%v: one hot server has no weight among infinitely many; the map cannot start from it (the simulator can)", s)
}
