package fixedpoint

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/outcome"
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
	// Accept reports whether a fixed point belongs to the followed family.
	// Nil accepts every fixed point.
	Accept func(theta float64, x []float64) bool
	// Same reports whether fixed point next (at a lower θ) continues prev,
	// the last followed fixed point: a solver that jumps to a distant
	// attractor (for instance a herd instead of the balanced state) has
	// not followed the family. Nil accepts every step.
	Same func(prev, next []float64) bool
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
	// X0, if not nil, is a starting point for the solve at Hi (for
	// instance a fixed point already known there); Family.Start is tried
	// after it.
	X0 []float64
	// Step is the factor of the coarse descent θ ← θ/Step. Default 1.25.
	Step float64
	// RelTol is the relative width at which the bracket stops. Default 1e-4.
	RelTol float64
	// Solve configures each fixed-point solve. Default: Anderson,
	// Tol 1e-10, MaxIter 1000, Simplex, Stagnation 20.
	Solve *Settings
	// Spectrum configures the stability analysis at the end.
	Spectrum *SpectrumSettings
	// UnitTol: a final spectral radius within UnitTol of 1 is an
	// eigenvalue crossing outright. Default 1e-3. Otherwise the radius is
	// also computed at a second point above the end and 1 − r is
	// extrapolated to zero, linearly (a flip or a complex pair crosses at a
	// linear rate) and in its square (a fold approaches 1 like a square
	// root); a zero inside the bracket, widened by a few widths, is an
	// eigenvalue crossing too.
	UnitTol float64
	// StableIters is the number of plain iterations of the dynamic
	// stability test applied to every fixed point found (Anderson can
	// converge to unstable fixed points): from the fixed point plus a
	// small zero-sum perturbation, the distance must shrink between
	// iteration 4 and iteration 4 + StableIters. Default 8; negative
	// disables the test.
	StableIters int
	// Progress, if not nil, is told of every fixed-point solve: the solves
	// done so far, of a total not known in advance (0).
	Progress outcome.Progress
}

// Sample is one fixed-point solve during FollowEnd.
type Sample struct {
	Theta    float64
	OK       bool      // a stable accepted fixed point was found
	X        []float64 // the fixed point, when OK
	Piece    int
	Border   float64
	Residual float64
	Evals    int
}

// End is the result of FollowEnd. Its Status is EdgeFound when the
// followed fixed point ends above the floor (Mechanism says how) and
// NoEdge when it was followed down to the floor (Mechanism NoEnd);
// Evaluations counts the evaluations of the maps, the spectrum's included.
type End struct {
	outcome.Outcome
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
	Samples  []Sample
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
	fl := newFollower(fam, &set)
	start := time.Now()
	defer func() { fl.end.Elapsed = time.Since(start) }()

	hi := set.Hi
	xhi, ok, err := fl.solve(hi, set.X0, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("fixedpoint: no accepted fixed point at the top of the range, θ = %v", hi)
	}
	hi, lo, xhi, err := fl.descend(hi, xhi)
	if err != nil {
		return nil, err
	}
	end := fl.end
	if math.IsNaN(lo) {
		end.Mechanism, end.Hi, end.Lo, end.X, end.Status = NoEnd, hi, set.Lo, xhi, outcome.NoEdge
		return end, finish(fam, end, &set)
	}
	end.Status = outcome.EdgeFound
	end.Hi, end.Lo, end.X = hi, lo, xhi
	if err := finish(fam, end, &set); err != nil {
		return nil, err
	}
	if end.Mechanism, err = fl.classify(hi, lo); err != nil {
		return nil, err
	}
	return end, nil
}

// follower is the state of one FollowEnd: the family, the settings with
// their defaults, and the End being filled in.
type follower struct {
	fam *Family
	set *EndSettings
	end *End
	// solveSet is the solve of a continuation step. A solve whose failure
	// would end the search ("careful") runs patiently: a longer
	// stagnation window, a longer dynamic test, and the extra attempts of
	// solve, so that a fixed point that converges slowly (a leading
	// eigenvalue near 1), or a coexisting branch, is not mistaken for a
	// missing one. picardSet is plain iteration.
	solveSet, patientSet, picardSet Settings
}

// newFollower fills in set's defaults and the solve settings.
func newFollower(fam *Family, set *EndSettings) *follower {
	if set.Step == 0 {
		set.Step = 1.25
	}
	if set.RelTol == 0 {
		set.RelTol = 1e-4
	}
	if set.UnitTol == 0 {
		set.UnitTol = 1e-3
	}
	if set.StableIters == 0 {
		set.StableIters = 8
	}
	fl := &follower{fam: fam, set: set, end: &End{Collision: math.NaN()}}
	fl.solveSet = Settings{Method: Anderson, Tol: 1e-10, MaxIter: 1000, Simplex: true, Stagnation: 20}
	if set.Solve != nil {
		fl.solveSet = *set.Solve
	}
	fl.patientSet = fl.solveSet
	fl.patientSet.Stagnation = max(50, 2*fl.solveSet.Stagnation)
	fl.patientSet.MaxIter = max(2000, fl.solveSet.MaxIter)
	fl.picardSet = Settings{Method: Picard, Tol: fl.solveSet.Tol, MaxIter: 1000, Stagnation: 100}
	return fl
}

// attempt is one way solve tries to find the fixed point at θ: a start,
// the solver's settings, and the iterations before the Same test applies.
type attempt struct {
	x0     []float64
	set    *Settings
	warmup int
}

// solve tries, in order: continuation from prev by Anderson; and, when
// careful, plain iteration from prev (where do the dynamics go from the
// last followed state: a hop to a coexisting branch, or away?) and plain
// iteration from a fresh start (Anderson extrapolates across the borders
// of a piecewise-smooth map and can stall far from a fixed point that
// plain iteration reaches). A failed continuation is followed by plain
// iteration from a fresh start even when not careful: landing on a
// coexisting branch straight away is cheaper than bisecting toward the end
// of the branch being followed. It returns the first stable accepted fixed
// point, recording a Sample for every attempt.
func (fl *follower) solve(theta float64, prev []float64, careful bool) ([]float64, bool, error) {
	f, err := fl.fam.Map(theta)
	if err != nil {
		return nil, false, err
	}
	var attempts []attempt
	if prev != nil {
		if careful {
			attempts = append(attempts, attempt{prev, &fl.patientSet, 0}, attempt{prev, &fl.picardSet, 0})
		} else {
			attempts = append(attempts, attempt{prev, &fl.solveSet, 0})
		}
	}
	attempts = append(attempts, attempt{fl.fam.Start(theta), &fl.picardSet, 30})
	if prev == nil {
		attempts = append(attempts, attempt{fl.fam.Start(theta), &fl.patientSet, 30})
	}
	for _, at := range attempts {
		x, ok, err := fl.try(f, theta, prev, at, careful)
		if err != nil || ok {
			return x, ok, err
		}
	}
	return nil, false, nil
}

// try runs one attempt at θ and records its Sample. The attempt is cut
// short once its iterate leaves the followed family (Same), from its
// first iteration for starts at prev, after the warm-up for a fresh
// start; a converged fixed point must be accepted, continue prev, and
// pass the dynamic stability test (four times longer when careful).
func (fl *follower) try(f Func, theta float64, prev []float64, at attempt, careful bool) ([]float64, bool, error) {
	fam, set, end := fl.fam, fl.set, fl.end
	g := f
	if fam.Same != nil && prev != nil {
		calls := 0
		g = func(dst, x []float64) error {
			calls++
			if calls > at.warmup && !fam.Same(prev, x) {
				return ErrDomain
			}
			return f(dst, x)
		}
	}
	r, err := Solve(g, at.x0, at.set)
	if err != nil {
		return nil, false, err
	}
	end.Evaluations += r.Evaluations
	ok := r.Status == outcome.Converged && (fam.Accept == nil || fam.Accept(theta, r.X)) &&
		(prev == nil || fam.Same == nil || fam.Same(prev, r.X))
	if ok && set.StableIters > 0 {
		iters := set.StableIters
		if careful {
			iters *= 4
		}
		att, evals, err := Attracting(f, r.X, iters)
		if err != nil {
			return nil, false, err
		}
		end.Evaluations += evals
		ok = att
	}
	smp := Sample{Theta: theta, OK: ok, Residual: r.Residual, Evals: r.Evaluations}
	if ok {
		smp.X = r.X
		if fam.Border != nil {
			smp.Piece, smp.Border = fam.Border(theta, r.X)
		}
	}
	end.Samples = append(end.Samples, smp)
	if set.Progress != nil {
		set.Progress(int64(len(end.Samples)), 0, "")
	}
	if ok {
		return r.X, true, nil
	}
	return nil, false, nil
}

// descend continues the fixed point xhi at hi downward and returns the
// final bracket: hi, the lowest θ followed, with its fixed point, and lo,
// the highest failure below it (NaN when the fixed point was followed to
// the floor). Every solve continues from the fixed point at hi. Without a
// failure below hi the step grows by half after each success (up to
// Step); after one, the trial points bisect between hi and the highest
// failure, or approach the collision the border distance predicts. A
// failure ends the search only once it has been solved from a fixed point
// within RelTol above it: a failure far below the last success may only
// mean the jump was too long, so it is re-solved from closer when the
// bracket has narrowed to it.
func (fl *follower) descend(hi float64, xhi []float64) (float64, float64, []float64, error) {
	set := fl.set
	maxStep := hi * (1 - 1/set.Step)
	step := maxStep
	lo := math.NaN() // highest failure below hi
	loFar := false   // it was solved from farther than RelTol
	// A guard against a search that stops making progress: the bracket
	// halves at least every few rounds, so a few hundred rounds are far
	// more than any honest search needs.
	const maxRounds = 1000
	for rounds := 1; ; rounds++ {
		minStep := set.RelTol * hi
		t, stop := fl.trial(hi, lo, loFar, step, minStep)
		if stop {
			return hi, lo, xhi, nil
		}
		if rounds > maxRounds {
			return 0, 0, nil, fmt.Errorf("fixedpoint: FollowEnd made no progress after %d solves (bracket [%v, %v])", maxRounds, lo, hi)
		}
		// A fresh start (a hop to a coexisting branch) is tried only where
		// a failure would count. The slack absorbs rounding in hi − t.
		careful := hi-t <= minStep*(1+1e-9)
		x, ok, err := fl.solve(t, xhi, careful)
		if err != nil {
			return 0, 0, nil, err
		}
		if ok {
			// Grow the step, but never below a few tolerances: a success at
			// the very point of an earlier failure moves hi by nothing.
			step = math.Min(math.Max(1.5*(hi-t), 4*minStep), maxStep)
			hi, xhi = t, x
			if !math.IsNaN(lo) && lo >= hi {
				lo = math.NaN()
			}
			if hi <= set.Lo {
				return hi, lo, xhi, nil
			}
			continue
		}
		switch {
		case careful:
			// A careful failure within RelTol of hi: trusted, wherever it
			// lies relative to an earlier, untrusted one.
			lo, loFar = t, false
		case math.IsNaN(lo) || t >= lo:
			lo, loFar = t, true
		}
	}
}

// trial returns the next θ to solve at, or stop once the bracket [lo, hi]
// has narrowed to minStep around a failure solved from within it.
func (fl *follower) trial(hi, lo float64, loFar bool, step, minStep float64) (t float64, stop bool) {
	switch {
	case math.IsNaN(lo):
		t = hi - step
	case hi-lo <= minStep && !loFar:
		// A failure solved from within RelTol: the end.
		return 0, true
	case hi-lo <= minStep:
		t = lo // re-solve the failure from the adjacent fixed point
	default:
		t = 0.5 * (hi + lo)
	}
	if tc := predictCollision(fl.end.Samples, hi); !math.IsNaN(tc) && tc < hi && tc > t && (math.IsNaN(lo) || tc > lo) {
		if gap := hi - tc; gap > minStep {
			t = tc + 0.2*gap
		} else {
			t = math.Max(tc-0.5*minStep, hi-minStep)
		}
	}
	if !math.IsNaN(lo) && t < lo {
		// Never below the highest failure: a failure there would
		// change nothing.
		t = lo
	}
	return math.Max(t, fl.set.Lo), false
}

// classify says how the followed fixed point ended at the bracket
// [lo, hi]: a border collision leaves the radius below 1 and the border
// distance running into zero; an eigenvalue crossing drives the radius
// to 1.
func (fl *follower) classify(hi, lo float64) (Mechanism, error) {
	end, set := fl.end, fl.set
	switch {
	case end.Spectrum != nil && end.Spectrum.Radius >= 1-set.UnitTol:
		return EigenvalueCrossing, nil
	case fl.fam.Border != nil && borderEnds(end, hi, lo):
		return BorderCollision, nil
	}
	cross, err := radiusReachesOne(fl.fam, end, set)
	if err != nil {
		return NoEnd, err
	}
	if cross {
		return EigenvalueCrossing, nil
	}
	return Undetermined, nil
}

// radiusReachesOne computes the spectral radius at a second fixed point
// above the end (the followed one nearest hi + 20 widths) and reports
// whether 1 − r, extrapolated linearly or in its square, reaches zero
// within the bracket widened by four widths.
func radiusReachesOne(fam *Family, end *End, set *EndSettings) (bool, error) {
	w := end.Hi - end.Lo
	target := end.Hi + 20*w
	var pick *Sample
	for i := range end.Samples {
		sm := &end.Samples[i]
		if sm.OK && sm.Theta > end.Hi && (pick == nil || math.Abs(sm.Theta-target) < math.Abs(pick.Theta-target)) {
			pick = sm
		}
	}
	if pick == nil {
		return false, nil
	}
	f, err := fam.Map(pick.Theta)
	if err != nil {
		return false, err
	}
	sp, err := ComputeSpectrum(f, pick.X, set.Spectrum)
	if err != nil {
		return false, err
	}
	end.Evaluations += sp.Evaluations
	theta2 := pick.Theta
	g1, g2 := 1-end.Spectrum.Radius, 1-sp.Radius
	lo, hi := end.Lo-4*w, end.Hi+4*w
	inside := func(tc float64) bool { return tc >= lo && tc <= hi }
	if g2 > g1 && g1 > 0 {
		if inside(end.Hi - g1*(theta2-end.Hi)/(g2-g1)) {
			return true, nil
		}
		if inside(end.Hi - g1*g1*(theta2-end.Hi)/(g2*g2-g1*g1)) {
			return true, nil
		}
	}
	return false, nil
}

// predictCollision extrapolates the border distance of the two most recent
// accepted samples on the piece of the sample at hi to zero; NaN if there
// are not two, or the border is not approaching as θ falls.
func predictCollision(samples []Sample, hi float64) float64 {
	var pts []Sample
	for i := len(samples) - 1; i >= 0 && len(pts) < 2; i-- {
		sm := samples[i]
		if !sm.OK {
			continue
		}
		if len(pts) == 0 {
			if sm.Theta != hi {
				return math.NaN()
			}
			pts = append(pts, sm)
		} else if sm.Piece == pts[0].Piece && sm.Theta > pts[0].Theta {
			pts = append(pts, sm)
		}
	}
	if len(pts) < 2 {
		return math.NaN()
	}
	a, b := pts[0], pts[1]
	slope := (b.Border - a.Border) / (b.Theta - a.Theta)
	if !(slope > 0) {
		return math.NaN()
	}
	return a.Theta - a.Border/slope
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
// plus a small zero-sum perturbation on the bulk of x (entries above 1e-8,
// so that the perturbation is not throttled by the tail), it iterates f
// and reports whether the distance to x shrank between iteration 4 (past
// transients) and iteration 4 + iters. The iterates converge to the exact
// fixed point, which lies about the residual ‖Φ(x) − x‖₁ from x: a
// distance that has collapsed below 100 residuals (or to rounding, 1e-13
// per entry) counts as attracting. It returns the number of evaluations
// used.
func Attracting(f Func, x []float64, iters int) (bool, int, error) {
	const bulk = 1e-8
	n := len(x)
	d := make([]float64, n)
	var w, cnt float64
	for i, v := range x {
		if v > bulk {
			d[i] = math.Sqrt(v) * math.Cos(1.3*float64(i)+0.2)
			w += d[i]
			cnt++
		}
	}
	if cnt < 2 {
		return true, 0, nil
	}
	for i, v := range x {
		if v > bulk {
			d[i] -= w / cnt
		}
	}
	// Size 1e-6 in ‖·‖₁, keeping x + d non-negative.
	scale := 1e-6 / norm1(d)
	for i, v := range x {
		if d[i] < 0 {
			scale = math.Min(scale, 0.5*v/-d[i])
		}
	}
	cur := make([]float64, n)
	next := make([]float64, n)
	if err := f(next, x); err != nil {
		return false, 1, err
	}
	var res float64
	for i := range x {
		res += math.Abs(next[i] - x[i])
	}
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
	evals := 1
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
	noise := math.Max(1e-13*float64(n), 100*res)
	if d4 <= noise || dl <= noise {
		return true, evals, nil
	}
	return dl < d4, evals, nil
}
