package meanfield

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/param"
)

// BoardStart is a starting board distribution for the refresh-period map.
type BoardStart struct {
	// Kind is "balanced" (every queue at Level), "half" (half the servers
	// empty, half with Backlog jobs), "spread" (queue lengths uniform on
	// 0..Spread) or "custom" (Custom).
	Kind    string
	Level   int
	Backlog int
	Spread  int
	Custom  []float64
}

// ParseBoardStart parses balanced, balanced:L, half:B, spread:S.
func ParseBoardStart(s string) (BoardStart, error) {
	name, arg, has := strings.Cut(s, ":")
	n := 0
	if has {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 0 {
			return BoardStart{}, param.Errorf("start", "%q: the number after %q must be a whole number ≥ 0", s, name+":")
		}
		n = v
	}
	switch name {
	case "balanced":
		return BoardStart{Kind: "balanced", Level: n}, nil
	case "half":
		if !has || n < 1 {
			return BoardStart{}, param.Errorf("start", "%q: half needs a backlog ≥ 1, as half:B", s)
		}
		return BoardStart{Kind: "half", Backlog: n}, nil
	case "spread":
		if !has || n < 1 {
			return BoardStart{}, param.Errorf("start", "%q: spread needs a width ≥ 1, as spread:S", s)
		}
		return BoardStart{Kind: "spread", Spread: n}, nil
	}
	return BoardStart{}, param.Errorf("start", "unknown start %q (want balanced, balanced:L, half:B or spread:S)", s)
}

func (b BoardStart) String() string {
	switch b.Kind {
	case "balanced":
		return fmt.Sprintf("balanced:%d", b.Level)
	case "half":
		return fmt.Sprintf("half:%d", b.Backlog)
	case "spread":
		return fmt.Sprintf("spread:%d", b.Spread)
	}
	return b.Kind
}

// Board returns the start's distribution.
func (b BoardStart) Board() ([]float64, error) {
	switch b.Kind {
	case "balanced", "":
		p := make([]float64, b.Level+1)
		p[b.Level] = 1
		return p, nil
	case "half":
		p := make([]float64, b.Backlog+1)
		p[0], p[b.Backlog] = 0.5, 0.5
		return p, nil
	case "spread":
		p := make([]float64, b.Spread+1)
		for i := range p {
			p[i] = 1 / float64(b.Spread+1)
		}
		return p, nil
	case "custom":
		p := append([]float64(nil), b.Custom...)
		if _, err := checkBoard(p); err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, param.Errorf("start", "unknown start kind %q", b.Kind)
}

// supportFunc is the refresh map on the fixed support 0..len−1, as a
// fixedpoint.Func. Mass that the map sends above the support is lost (and
// recorded), never renormalised.
type supportFunc struct {
	m    *RefreshMap
	lost float64 // largest mass lost in one evaluation
	last *MapResult
	// strict makes eval fail with errLeftSupport once an evaluation loses
	// more than 1e-12 (lastIn keeps the input that did).
	strict bool
	lastIn []float64
	// recent holds the mean times in system of the last evaluations
	// (a ring of length cap(recent), filled if non-nil).
	recent []float64
	nEval  int
}

// errLeftSupport says the distribution outgrew the fixed support.
var errLeftSupport = errors.New("meanfield: the distribution outgrew its support")

func (s *supportFunc) eval(dst, x []float64) error {
	r, err := s.m.Apply(x)
	if err != nil {
		return err
	}
	lost := r.Lost
	for i := range dst {
		if i < len(r.Next) {
			dst[i] = r.Next[i]
		} else {
			dst[i] = 0
		}
	}
	for i := len(dst); i < len(r.Next); i++ {
		lost += r.Next[i]
	}
	s.lost = math.Max(s.lost, lost)
	s.last = r
	if cap(s.recent) > 0 {
		if len(s.recent) < cap(s.recent) {
			s.recent = append(s.recent, r.Sojourn)
		} else {
			s.recent[s.nEval%cap(s.recent)] = r.Sojourn
		}
	}
	s.nEval++
	if s.strict && lost > 1e-12 {
		s.lastIn = append(s.lastIn[:0], x...)
		return errLeftSupport
	}
	return nil
}

// pad returns p extended with zeros to length n ≥ len(p).
func pad(p []float64, n int) []float64 {
	out := make([]float64, n)
	copy(out, p)
	return out
}

// support returns the length of p up to its last entry above tol.
func support(p []float64, tol float64) int {
	n := len(p)
	for n > 1 && p[n-1] <= tol {
		n--
	}
	return n
}

// BoardFixedPoint is a fixed point of the refresh-period map.
type BoardFixedPoint struct {
	// Board is p*, the board distribution at each refresh.
	Board []float64
	// Map is Φ_T applied at p* (mean time in system, board mean, branch).
	Map *MapResult
	// Solve reports the solver's work and status.
	Solve *fixedpoint.Result
	// Lost is the largest mass lost in one map evaluation during the solve.
	Lost float64
}

// FixedPoint solves p = Φ_T(p) from start by Anderson acceleration (by
// default: Tol 1e-10, MaxIter 2000, Stagnation 100) on a support long
// enough that the truncation loses less than 1e-12 per evaluation: a
// converged solve that lost more is continued on a support twice as long.
// It returns the last iterate even when the solve did not converge (for
// instance where no balanced state exists and the iteration runs toward
// the herd); check Solve.Status.
func (m *RefreshMap) FixedPoint(start []float64, s *fixedpoint.Settings) (*BoardFixedPoint, error) {
	if _, err := checkBoard(start); err != nil {
		return nil, err
	}
	set := fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: 1e-10, MaxIter: 2000, Simplex: true, Stagnation: 100}
	if s != nil {
		set = *s
	}
	// A first plain application sizes the support.
	r, err := m.Apply(start)
	if err != nil {
		return nil, err
	}
	n := max(2*support(r.Next, 1e-18)+32, len(start))
	x := pad(start, n)
	for {
		f := &supportFunc{m: m}
		res, err := fixedpoint.Solve(f.eval, x, &set)
		if err != nil {
			return nil, err
		}
		if res.Status == fixedpoint.Converged && f.lost > 1e-12 && n < 1<<16 {
			n *= 2
			x = pad(res.X, n)
			continue
		}
		if err := f.eval(make([]float64, n), res.X); err != nil {
			return nil, err
		}
		return &BoardFixedPoint{Board: res.X, Map: f.last, Solve: res, Lost: f.lost}, nil
	}
}

// BoardAttractor is where plain iteration of the map settles.
type BoardAttractor struct {
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
}

// Attractor iterates the plain map from start and classifies where it
// settles (fixed point, cycle or not settled within maxIter), with the mean
// time in system and board mean averaged over the cycle. tol is the ‖·‖₁
// return distance (default 1e-9).
func (m *RefreshMap) Attractor(start []float64, tol float64, maxIter int) (*BoardAttractor, error) {
	if _, err := checkBoard(start); err != nil {
		return nil, err
	}
	// Iterate on the free support first, to size the fixed support.
	p := start
	longest := len(p)
	for range 8 {
		r, err := m.Apply(p)
		if err != nil {
			return nil, err
		}
		p = r.Next
		longest = max(longest, support(p, 1e-18))
	}
	n := max(2*longest+32, len(p))
	done := 8 // periods iterated so far
	for {
		f := &supportFunc{m: m, strict: true, recent: make([]float64, 0, 100)}
		att, err := fixedpoint.Classify(f.eval, pad(p, n), &fixedpoint.ClassifySettings{Tol: tol, MaxIter: maxIter})
		if errors.Is(err, errLeftSupport) && n < 1<<16 {
			// Grow the support and go on from where the mass began to leave.
			p, n = f.lastIn, 2*n
			done += f.nEval - 1
			continue
		}
		if err != nil {
			return nil, err
		}
		out := &BoardAttractor{Kind: att.Kind, Period: att.Period, Boards: att.Points, Iterations: done + att.Iterations, Lost: f.lost}
		if att.Kind == fixedpoint.NotSettled {
			for _, v := range f.recent {
				out.Sojourn += v / float64(len(f.recent))
			}
			r, err := m.Apply(att.Points[0])
			if err != nil {
				return nil, err
			}
			out.BoardMean = r.BoardMean
			return out, nil
		}
		for _, b := range att.Points {
			r, err := m.Apply(b)
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

// Stability returns the spectrum of the map's Jacobian (zero-sum
// perturbations) at the board p, usually a fixed point, and the branch
// (pass in progress at T) there.
func (m *RefreshMap) Stability(p []float64) (*fixedpoint.Spectrum, int, error) {
	n := len(p)
	f := &supportFunc{m: m}
	sp, err := fixedpoint.ComputeSpectrum(f.eval, pad(p, n), &fixedpoint.SpectrumSettings{DenseLimit: 40, Krylov: 24})
	if err != nil {
		return nil, 0, err
	}
	r, err := m.Apply(p)
	if err != nil {
		return nil, 0, err
	}
	return sp, r.Pass, nil
}

// Tally says what the k dispatchers add to the stale board between
// refreshes (seed 000).
type Tally string

const (
	// OwnTally: each dispatcher adds its own sends to the board; the
	// refresh-period map with k dispatchers.
	OwnTally Tally = "own"
	// SharedTally: all dispatchers add every send to one shared tally; they
	// act as one dispatcher, the map with k = 1.
	SharedTally Tally = "shared"
	// Partitioned: each dispatcher owns N/k servers with its own board and
	// tally; each part is the k = 1 model.
	Partitioned Tally = "partitioned"
)

// ParseTally parses own, shared or partitioned.
func ParseTally(s string) (Tally, error) {
	switch t := Tally(s); t {
	case OwnTally, SharedTally, Partitioned:
		return t, nil
	}
	return "", param.Errorf("tally", "unknown tally %q (want own, shared or partitioned)", s)
}

// ModelDispatchers is the k of the refresh-period map that describes k
// dispatchers with this tally: k for own tallies, 1 for a shared tally or
// partitioned dispatchers.
func (t Tally) ModelDispatchers(k int) int {
	if t == OwnTally {
		return k
	}
	return 1
}

// entry is v[i], or 0 past the end of v (distributions of different
// supports compared entry by entry).
func entry(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}
