package fixedpoint

import (
	"errors"
	"fmt"
	"math"
)

// Family is a one-parameter family of maps Φ_θ whose stable fixed point
// is followed as θ decreases, for example the refresh-period map as the
// refresh period shrinks.
type Family struct {
	// Map returns Φ_θ. Required.
	Map func(theta float64) (Func, error)
	// Start returns a fresh starting point at θ, tried when continuation
	// from the previous fixed point fails (hops to a coexisting branch of
	// the family are allowed). Required.
	Start func(theta float64) []float64
	// Accept reports whether a fixed point belongs to the followed family
	// (for instance "balanced", not "herded"). Nil accepts every fixed
	// point.
	Accept func(theta float64, x []float64) bool
	// Border returns, for a piecewise-smooth family, the label of the
	// smooth piece containing x and the signed distance from x to that
	// piece's nearest border (positive inside); nil for smooth maps.
	Border func(theta float64, x []float64) (piece int, dist float64)
}

// Mechanism says how a followed fixed point ends.
type Mechanism int

const (
	// NoEnd: the fixed point was followed down to the bottom of the range.
	NoEnd Mechanism = iota
	// BorderCollision: the fixed point reaches the border of its smooth
	// piece (and meets an unstable partner there) while its spectral
	// radius is still below 1: a piecewise-smooth map's fold, invisible to
	// an eigenvalue test.
	BorderCollision
	// EigenvalueCrossing: an eigenvalue reaches the unit circle (fold at
	// +1, flip at −1, or a complex pair): the smooth way to lose stability.
	EigenvalueCrossing
	// Undetermined: neither signature is clear at the bracket's width.
	Undetermined
)

func (m Mechanism) String() string {
	switch m {
	case NoEnd:
		return "no end"
	case BorderCollision:
		return "border collision"
	case EigenvalueCrossing:
		return "eigenvalue crossing"
	case Undetermined:
		return "undetermined"
	}
	return fmt.Sprintf("Mechanism(%d)", int(m))
}

// EndSettings control FollowEnd. Zero fields mean defaults.
type EndSettings struct {
	// Hi and Lo bound the search: the family must have a stable fixed point
	// at Hi; Lo is the floor. Required, 0 < Lo < Hi.
	Hi, Lo float64
	// Step is the factor of the coarse descent θ ← θ/Step. Default 1.25.
	Step float64
	// RelTol is the relative width at which the bracket stops. Default 1e-4.
	RelTol float64
	// Solve configures each fixed-point solve. Default: Anderson,
	// Tol 1e-10, MaxIter 400, Simplex.
	Solve *Settings
	// Spectrum configures the stability analysis at the end.
	Spectrum *SpectrumSettings
	// UnitTol: a final spectral radius within UnitTol of 1 means an
	// eigenvalue crossing. Default 0.01.
	UnitTol float64
	// StableIters is the number of plain iterations of the dynamic
	// stability test applied to every fixed point found (Anderson can
	// converge to unstable fixed points): from the fixed point plus a
	// small zero-sum perturbation, the distance must shrink between
	// iteration 4 and iteration 4 + StableIters. Default 16; negative
	// disables the test.
	StableIters int
	// Progress, if not nil, is told of every solve.
	Progress func(theta float64, ok bool)
}

// Sample is one fixed-point solve during FollowEnd.
type Sample struct {
	Theta    float64
	OK       bool // a stable accepted fixed point was found
	Piece    int
	Border   float64
	Residual float64
	Evals    int
}

// End is the result of FollowEnd.
type End struct {
	Mechanism Mechanism
	// Hi is the lowest θ with a followed fixed point, Lo the highest θ
	// without one (Lo = the floor when Mechanism is NoEnd).
	Hi, Lo float64
	// X is the fixed point at Hi; Piece and Border its smooth piece and
	// border distance (zero values for smooth families).
	X      []float64
	Piece  int
	Border float64
	// Collision is the θ where the border distance, extrapolated along the
	// last piece, reaches zero (NaN when not estimated).
	Collision float64
	// Spectrum of Φ_Hi at X.
	Spectrum *Spectrum
	// Evaluations of the maps, including the spectrum.
	Evaluations int
	Samples     []Sample
}

// FollowEnd follows the family's stable fixed point from Hi down and
// returns where it ends: a coarse descent by factors of Step brackets the
// end, bisection (each solve continued from the nearest fixed point above,
// or from Start) narrows it to RelTol, and the end is classified by the
// spectrum and the border distance at the last fixed point.
func FollowEnd(fam *Family, s *EndSettings) (*End, error) {
	if fam == nil || fam.Map == nil || fam.Start == nil {
		return nil, errors.New("fixedpoint: Family needs Map and Start")
	}
	set := EndSettings{}
	if s != nil {
		set = *s
	}
	if !(set.Lo > 0 && set.Hi > set.Lo) {
		return nil, fmt.Errorf("fixedpoint: search range [%v, %v] must satisfy 0 < Lo < Hi", set.Lo, set.Hi)
	}
	if set.Step == 0 {
		set.Step = 1.25
	}
	if set.RelTol == 0 {
		set.RelTol = 1e-4
	}
	if set.UnitTol == 0 {
		set.UnitTol = 0.01
	}
	if set.StableIters == 0 {
		set.StableIters = 16
	}
	solveSet := Settings{Method: Anderson, Tol: 1e-10, MaxIter: 400, Simplex: true}
	if set.Solve != nil {
		solveSet = *set.Solve
	}
	end := &End{Collision: math.NaN()}

	// solve tries continuation from prev, then a fresh start.
	solve := func(theta float64, prev []float64) ([]float64, bool, error) {
		f, err := fam.Map(theta)
		if err != nil {
			return nil, false, err
		}
		starts := [][]float64{prev, fam.Start(theta)}
		for _, x0 := range starts {
			if x0 == nil {
				continue
			}
			r, err := Solve(f, x0, &solveSet)
			if err != nil {
				return nil, false, err
			}
			end.Evaluations += r.Evaluations
			ok := r.Status == Converged && (fam.Accept == nil || fam.Accept(theta, r.X))
			if ok && set.StableIters > 0 {
				att, evals, err := Attracting(f, r.X, set.StableIters)
				if err != nil {
					return nil, false, err
				}
				end.Evaluations += evals
				ok = att
			}
			smp := Sample{Theta: theta, OK: ok, Residual: r.Residual, Evals: r.Evaluations}
			if ok && fam.Border != nil {
				smp.Piece, smp.Border = fam.Border(theta, r.X)
			}
			end.Samples = append(end.Samples, smp)
			if set.Progress != nil {
				set.Progress(theta, ok)
			}
			if ok {
				return r.X, true, nil
			}
		}
		return nil, false, nil
	}

	hi := set.Hi
	xhi, ok, err := solve(hi, nil)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("fixedpoint: no accepted fixed point at the top of the range, θ = %v", hi)
	}
	// Coarse descent.
	lo := math.NaN()
	for {
		next := math.Max(set.Lo, hi/set.Step)
		x, ok, err := solve(next, xhi)
		if err != nil {
			return nil, err
		}
		if !ok {
			lo = next
			break
		}
		hi, xhi = next, x
		if hi <= set.Lo {
			break
		}
	}
	if math.IsNaN(lo) {
		end.Mechanism, end.Hi, end.Lo, end.X = NoEnd, hi, set.Lo, xhi
		return end, finish(fam, end, &set)
	}
	// Bisection.
	for hi-lo > set.RelTol*hi {
		mid := 0.5 * (hi + lo)
		x, ok, err := solve(mid, xhi)
		if err != nil {
			return nil, err
		}
		if ok {
			hi, xhi = mid, x
		} else {
			lo = mid
		}
	}
	end.Hi, end.Lo, end.X = hi, lo, xhi
	if err := finish(fam, end, &set); err != nil {
		return nil, err
	}
	// Classify the end.
	switch {
	case end.Spectrum != nil && end.Spectrum.Radius >= 1-set.UnitTol:
		end.Mechanism = EigenvalueCrossing
	case fam.Border != nil && borderEnds(end, hi, lo):
		end.Mechanism = BorderCollision
	default:
		end.Mechanism = Undetermined
	}
	return end, nil
}

// finish computes the spectrum and border data at the last fixed point.
func finish(fam *Family, end *End, set *EndSettings) error {
	f, err := fam.Map(end.Hi)
	if err != nil {
		return err
	}
	sp, err := ComputeSpectrum(f, end.X, set.Spectrum)
	if err != nil {
		return err
	}
	end.Spectrum = sp
	end.Evaluations += sp.Evaluations
	if fam.Border != nil {
		end.Piece, end.Border = fam.Border(end.Hi, end.X)
	}
	return nil
}

// borderEnds extrapolates the border distance along the last piece (the
// two accepted samples nearest the end on that piece) to zero and reports
// whether the zero lies in the final bracket, widened by its own width on
// each side.
func borderEnds(end *End, hi, lo float64) bool {
	var pts []Sample
	for i := len(end.Samples) - 1; i >= 0 && len(pts) < 2; i-- {
		sm := end.Samples[i]
		if sm.OK && sm.Piece == end.Piece && (len(pts) == 0 || sm.Theta != pts[0].Theta) {
			pts = append(pts, sm)
		}
	}
	w := hi - lo
	if len(pts) < 2 {
		return end.Border <= 0
	}
	a, b := pts[0], pts[1]
	slope := (a.Border - b.Border) / (a.Theta - b.Theta)
	if slope <= 0 {
		return false // the border is not approaching as θ falls
	}
	end.Collision = a.Theta - a.Border/slope
	return end.Collision >= lo-w && end.Collision <= hi+w
}

// Attracting is a dynamic stability test of a fixed point x of f: from x
// plus a small zero-sum perturbation (supported where x has mass), it
// iterates f and reports whether the distance to x shrank between
// iteration 4 (past transients) and iteration 4 + iters. It returns the
// number of evaluations used.
func Attracting(f Func, x []float64, iters int) (bool, int, error) {
	n := len(x)
	d := make([]float64, n)
	var w float64
	for i, v := range x {
		if v > 1e-10 {
			d[i] = math.Sqrt(v) * math.Cos(1.3*float64(i)+0.2)
			w += d[i]
		}
	}
	// Make it zero-sum on the support and scale it to 1e-6 in ‖·‖₁ while
	// keeping x + d non-negative.
	var cnt float64
	for _, v := range x {
		if v > 1e-10 {
			cnt++
		}
	}
	for i, v := range x {
		if v > 1e-10 {
			d[i] -= w / cnt
		}
	}
	scale := 1e-6 / norm1(d)
	for i, v := range x {
		if v > 1e-10 && d[i] < 0 {
			scale = math.Min(scale, 0.5*v/-d[i])
		}
	}
	cur := make([]float64, n)
	next := make([]float64, n)
	for i := range x {
		cur[i] = x[i] + scale*d[i]
	}
	dist := func(v []float64) float64 {
		var s float64
		for i := range v {
			s += math.Abs(v[i] - x[i])
		}
		return s
	}
	var d4 float64
	evals := 0
	for it := 1; it <= 4+iters; it++ {
		if err := f(next, cur); err != nil {
			return false, evals, err
		}
		evals++
		cur, next = next, cur
		if it == 4 {
			d4 = dist(cur)
		}
	}
	dl := dist(cur)
	if d4 <= 1e-13*(1+norm1(x)) {
		// Collapsed to rounding (a superstable point): attracting.
		return true, evals, nil
	}
	return dl < d4, evals, nil
}
