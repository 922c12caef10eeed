package staleboard

import (
	"errors"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/solver"
)

// AttractorSettings control Attractor. A nil pointer or a zero field means
// the documented default.
type AttractorSettings struct {
	// Start is the board iteration starts from. Default: the empty board.
	Start []float64
	// Tol is the ‖·‖₁ distance that counts as a return (a fixed point, or
	// a cycle closing). Default 1e-10.
	Tol float64
	// MaxIter bounds the periods iterated. Default 3000.
	MaxIter int
}

// AttractorResult is where plain iteration of the map settles.
type AttractorResult struct {
	// Kind is a fixed point, a cycle, or not settled; Period is the cycle's
	// length (1 for a fixed point).
	Kind   fixedpoint.Kind
	Period int
	// Boards are the attractor's boards (one for a fixed point; the last
	// iterate when not settled).
	Boards [][]float64
	// Sojourn and BoardMean are averaged over the cycle (for a run that
	// did not settle: Sojourn over its last 100 periods, BoardMean at the
	// last iterate); SojournPoints lists the cycle's values.
	Sojourn, BoardMean float64
	SojournPoints      []float64
	// Iterations counts the periods iterated from the start.
	Iterations int
	// Lost is the largest mass lost in one map evaluation.
	Lost float64
	// Status is Converged when a fixed point or a cycle was found, and
	// NotSettled otherwise.
	Status solver.Status
}

// Attractor iterates the plain map from the start and classifies where it
// settles (fixed point, cycle or not settled within MaxIter periods), with
// the mean time in system and board mean averaged over the cycle.
func Attractor(m *Model, s *AttractorSettings) (*AttractorResult, error) {
	mp, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	var set AttractorSettings
	if s != nil {
		set = *s
	}
	set.Tol = param.Or(set.Tol, 1e-10)
	set.MaxIter = param.Or(set.MaxIter, 3000)
	if err := param.Positive("Tol", set.Tol); err != nil {
		return nil, err
	}
	if set.MaxIter < 1 {
		return nil, param.Errorf("MaxIter", "%d periods, want at least 1", set.MaxIter)
	}
	if set.Start == nil {
		set.Start = []float64{1}
	}
	if _, err := checkBoard(set.Start); err != nil {
		return nil, err
	}
	// Iterate on the free support first, to size the fixed support.
	p := set.Start
	longest := len(p)
	for range 8 {
		r, err := mp.Apply(p)
		if err != nil {
			return nil, err
		}
		p = r.Next
		longest = max(longest, support(p, 1e-18))
	}
	n := max(2*longest+32, len(p))
	done := 8 // periods iterated so far
	for {
		f := &supportFunc{m: mp, strict: true, recent: make([]float64, 0, 100)}
		att, err := fixedpoint.Classify(f.eval, pad(p, n), &fixedpoint.ClassifySettings{Tol: set.Tol, MaxIter: set.MaxIter})
		if errors.Is(err, errLeftSupport) && n < 1<<16 {
			// Grow the support and go on from where the mass began to leave.
			p, n = f.lastIn, 2*n
			done += f.nEval - 1
			continue
		}
		if err != nil {
			return nil, err
		}
		out := &AttractorResult{Kind: att.Kind, Period: att.Period, Boards: att.Points, Iterations: done + att.Iterations, Lost: f.lost, Status: solver.Converged}
		if att.Kind == fixedpoint.NotSettled {
			out.Status = solver.NotSettled
			for _, v := range f.recent {
				out.Sojourn += v / float64(len(f.recent))
			}
			r, err := mp.Apply(att.Points[0])
			if err != nil {
				return nil, err
			}
			out.BoardMean = r.BoardMean
			return out, nil
		}
		for _, b := range att.Points {
			r, err := mp.Apply(b)
			if err != nil {
				return nil, err
			}
			out.SojournPoints = append(out.SojournPoints, r.Sojourn)
			out.Sojourn += r.Sojourn / float64(len(att.Points))
			out.BoardMean += r.BoardMean / float64(len(att.Points))
		}
		return out, nil
	}
}
