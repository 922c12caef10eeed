package qbd

import (
	"fmt"
	"math"
	"time"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"gonum.org/v1/gonum/mat"
)

// MaxLevels bounds the levels of a Levels chain below its tail.
const MaxLevels = 1_000_000

// maxWork bounds Σ d_n³ over the levels of a Levels chain (about 10¹¹
// multiply-adds: a minute of one core).
const maxWork = 1e11

// maxNumbers bounds Σ d_n·d_{n+1}, the entries of the rate matrices R_n
// that the elimination keeps (2²⁷ numbers, 1 GB).
const maxNumbers = 1 << 27

// Levels is a level-dependent QBD on levels 0…L, L = len(Local) − 1, with
// d_n phases on level n: Local[n] (d_n×d_n, holding the diagonal) moves
// within level n, Up[n] (d_n×d_{n+1}) to level n+1 and Down[n]
// (d_n×d_{n−1}) to level n−1; Down[0] is nil.
//
// Without a Tail the chain stops at L (Up[L] is nil). With a Tail, levels
// L+1, L+2, … move with the Tail's blocks — Tail.A1 within, Tail.A0 up,
// Tail.A2 down, level L+1 to L included, so level L has the tail's m
// phases — and Up[L] (d_L×m) moves from L to L+1.
type Levels struct {
	Local, Up, Down []*mat.Dense
	Tail            *Homogeneous
}

// Validate checks the shapes, that each level's blocks are rows of a
// generator, and that Σ d_n³ and the level count are within bounds
// (*param.Error names Local, Up, Down or Tail).
func (l *Levels) Validate() error {
	L := len(l.Local) - 1
	if L < 0 {
		return param.Errorf("Local", "no levels")
	}
	if L+1 > MaxLevels {
		return param.Errorf("Local", "%d levels, want at most %d", L+1, MaxLevels)
	}
	if len(l.Up) != L+1 || len(l.Down) != L+1 {
		return param.Errorf("Up", "%d local, %d up and %d down blocks, want one of each per level", L+1, len(l.Up), len(l.Down))
	}
	var work float64
	dims := make([]int, L+1)
	for n, b := range l.Local {
		if b == nil {
			return param.Errorf("Local", "level %d has no local block", n)
		}
		r, c := b.Dims()
		if r != c || r < 1 || r > MaxPhases {
			return param.Errorf("Local", "level %d: block is %d×%d, want square with 1..%d phases", n, r, c, MaxPhases)
		}
		dims[n] = r
		work += math.Pow(float64(r), 3)
	}
	if work > maxWork {
		return param.Errorf("Local", "the elimination would take about %.3g operations, more than %.3g", work, maxWork)
	}
	var numbers float64
	for n := range L {
		numbers += float64(dims[n]) * float64(dims[n+1])
	}
	if numbers > maxNumbers {
		return param.Errorf("Local", "the elimination would keep %.3g numbers, more than %d", numbers, maxNumbers)
	}
	m := 0
	if l.Tail != nil {
		if err := l.Tail.Validate(); err != nil {
			return param.Errorf("Tail", "%v", err)
		}
		m, _ = l.Tail.A1.Dims()
		if dims[L] != m {
			return param.Errorf("Tail", "level %d has %d phases, the tail %d: the top level must have the tail's phases", L, dims[L], m)
		}
	}
	for n := range L + 1 {
		if l.Down[0] != nil {
			return param.Errorf("Down", "level 0 has a down block")
		}
		if n > 0 {
			if l.Down[n] == nil {
				return param.Errorf("Down", "level %d has no down block", n)
			}
			if r, c := l.Down[n].Dims(); r != dims[n] || c != dims[n-1] {
				return param.Errorf("Down", "level %d: block is %d×%d, want %d×%d", n, r, c, dims[n], dims[n-1])
			}
		}
		up := 0
		switch {
		case n < L:
			up = dims[n+1]
		case l.Tail != nil:
			up = m
		}
		if up == 0 {
			if l.Up[n] != nil {
				return param.Errorf("Up", "level %d is the top of a chain without a tail, but has an up block", n)
			}
		} else {
			if l.Up[n] == nil {
				return param.Errorf("Up", "level %d has no up block", n)
			}
			if r, c := l.Up[n].Dims(); r != dims[n] || c != up {
				return param.Errorf("Up", "level %d: block is %d×%d, want %d×%d", n, r, c, dims[n], up)
			}
		}
		if err := checkGenerator([]string{"Down", "Local", "Up"}, []*mat.Dense{l.Down[n], l.Local[n], l.Up[n]}, 1); err != nil {
			return param.Errorf(err.(*param.Error).Param, "level %d: %s", n, err.(*param.Error).Msg)
		}
	}
	return nil
}

// Distribution is the stationary distribution of a Levels chain.
type Distribution struct {
	// Outcome: Exact for a finite chain; with a tail, the Status of the
	// tail's Solve (Converged), or InvalidResult when a check failed.
	// Evaluations counts the block factorisations.
	outcome.Outcome
	// Pi[n] is the stationary probability of each phase of level n,
	// n = 0…L.
	Pi [][]float64
	// Tail is the tail's solution (nil without a tail): above L,
	// π_{L+1+k} = TailStart·R^k.
	Tail      *Solution
	TailStart []float64
	// TailMass is the probability of the levels above L, MeanLevel the
	// mean level E[n].
	TailMass, MeanLevel float64
	// Residual is ‖πQ‖₁ over the levels 0…L (the balance equations'
	// largest violation in total), relative to the largest outflow.
	Residual float64

	sumR    *mat.Dense // (I − R)⁻¹
	levelsL int
}

// Stationary solves the chain by linear level reduction (see the
// package documentation); a tail is solved by Solve with s first.
func Stationary(l *Levels, s *Settings) (*Distribution, error) {
	start := time.Now()
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	L := len(l.Local) - 1
	d := &Distribution{levelsL: L, Pi: make([][]float64, L+1)}
	d.Status = outcome.Exact
	u, err := d.topLevel(l, s)
	if err != nil {
		return nil, err
	}
	rs, ok := d.reduce(l, u)
	if ok {
		d.unroll(rs)
	}
	total := 0.0
	for _, p := range d.Pi {
		for _, v := range p {
			total += v
		}
	}
	if ok && l.Tail != nil {
		ok = d.tailStart(l)
		total += d.TailMass
	}
	if !ok {
		d.Status = outcome.InvalidResult
		d.Elapsed = time.Since(start)
		return d, nil
	}
	d.normalise(total)
	d.Residual = residualLevels(l, d)
	if d.Status.OK() && !d.valid() {
		d.Status = outcome.InvalidResult
	}
	d.Elapsed = time.Since(start)
	return d, nil
}

// topLevel is the censored generator U_L of the top level: Local[L], and
// with a tail (solved here by Solve) the returns from above through G.
func (d *Distribution) topLevel(l *Levels, s *Settings) (*mat.Dense, error) {
	L := d.levelsL
	var u *mat.Dense
	if l.Tail != nil {
		sol, err := Solve(l.Tail, s)
		if err != nil {
			return nil, err
		}
		if sol.Drift >= 0 {
			return nil, param.Errorf("Tail", "the tail is not positive recurrent (drift %.6g ≥ 0: it moves up at least as fast as down), so there is no stationary distribution", sol.Drift)
		}
		d.Tail = sol
		d.Status = sol.Status
		d.Evaluations += sol.Evaluations
		// U_L = Local[L] + Up[L]·G: the returns from above enter level L
		// through G.
		u = new(mat.Dense)
		u.Mul(l.Up[L], sol.G)
		u.Add(u, l.Local[L])
	} else {
		u = mat.DenseCopyOf(l.Local[L])
	}
	fixDiagonal(u, l.Down[L])
	return u, nil
}

// reduce censors the levels from the top down, R_{n−1} = Up[n−1]·(−U_n)⁻¹
// and U_{n−1} = Local[n−1] + R_{n−1}·Down[n], sets the unnormalised π_0
// and returns the R_n (false if a censored generator is singular).
func (d *Distribution) reduce(l *Levels, u *mat.Dense) ([]*mat.Dense, bool) {
	L := d.levelsL
	rs := make([]*mat.Dense, L)
	var lu mat.LU
	for n := L; n > 0; n-- {
		negU := new(mat.Dense)
		negU.Scale(-1, u)
		lu.Factorize(negU)
		d.Evaluations++
		// R·(−U) = Up ⇔ (−U)ᵀ·Rᵀ = Upᵀ.
		var rt mat.Dense
		if err := lu.SolveTo(&rt, true, l.Up[n-1].T()); err != nil {
			return nil, false
		}
		rs[n-1] = mat.DenseCopyOf(rt.T())
		next := new(mat.Dense)
		next.Mul(rs[n-1], l.Down[n])
		next.Add(next, l.Local[n-1])
		fixDiagonal(next, l.Down[n-1])
		u = next
	}
	d.Pi[0] = GTH(u)
	return rs, true
}

// unroll sets the unnormalised π_n = π_{n−1}·R_{n−1} from π_0 up.
func (d *Distribution) unroll(rs []*mat.Dense) {
	for n := 1; n <= d.levelsL; n++ {
		d.Pi[n] = rowTimes(d.Pi[n-1], rs[n-1])
		// Unnormalised levels can grow past the range of floating point
		// (M/M/N: π_n ∝ (λN)^n/n!, 10⁴¹² at N = 1,000); rescaling every
		// level so far keeps the largest at 1 (those that underflow are
		// below 10⁻³⁰⁸ of it).
		var big float64
		for _, v := range d.Pi[n] {
			big = math.Max(big, v)
		}
		if big > 1e100 {
			for k := 0; k <= n; k++ {
				for i := range d.Pi[k] {
					d.Pi[k][i] /= big
				}
			}
		}
	}
}

// tailStart sets the unnormalised π_{L+1}, (I − R)⁻¹ and the tail's mass
// (false if a matrix to invert is singular).
func (d *Distribution) tailStart(l *Levels) bool {
	L := d.levelsL
	m, _ := l.Tail.A1.Dims()
	// π_{L+1} = π_L·Up[L]·(−U)⁻¹ with the tail's U; R = A0·(−U)⁻¹.
	negU := mat.NewDense(m, m, nil)
	negU.Scale(-1, d.Tail.U)
	var lu mat.LU
	lu.Factorize(negU)
	d.Evaluations++
	var rt mat.Dense
	if err := lu.SolveTo(&rt, true, l.Up[L].T()); err != nil {
		return false
	}
	d.TailStart = rowTimes(d.Pi[L], mat.DenseCopyOf(rt.T()))
	// Σ_k R^k = (I − R)⁻¹.
	imr := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			v := -d.Tail.R.At(i, j)
			if i == j {
				v++
			}
			imr.Set(i, j, v)
		}
	}
	d.sumR = mat.NewDense(m, m, nil)
	if err := d.sumR.Inverse(imr); err != nil {
		return false
	}
	tail := rowTimes(d.TailStart, d.sumR)
	for _, v := range tail {
		d.TailMass += v
	}
	return true
}

// normalise divides the levels and the tail by total, and sets MeanLevel.
func (d *Distribution) normalise(total float64) {
	for _, p := range d.Pi {
		for i := range p {
			p[i] /= total
		}
	}
	for i := range d.TailStart {
		d.TailStart[i] /= total
	}
	d.TailMass /= total
	for n, p := range d.Pi {
		for _, v := range p {
			d.MeanLevel += float64(n) * v
		}
	}
	if d.Tail != nil {
		// Σ_k (L+1+k)·π_{L+1}R^k·1 = π_{L+1}·[(L+1)(I−R)⁻¹ + R(I−R)⁻²]·1.
		s1 := rowTimes(d.TailStart, d.sumR)
		s2 := rowTimes(rowTimes(s1, d.Tail.R), d.sumR)
		for i := range s1 {
			d.MeanLevel += float64(d.levelsL+1)*s1[i] + s2[i]
		}
	}
}

// fixDiagonal sets the diagonal of the censored generator u of a level
// to minus the sum of its off-diagonal rates and of the level's down
// rates (nil: none): u's rows sum to minus the rate of leaving the level
// downward, because everything that goes up comes back (G is stochastic
// for a recurrent chain). Computing the diagonal from positive terms
// rather than as Local + Up·(−U)⁻¹·Down avoids the cancellation of
// nearly equal rates — the idea of the GTH elimination — which otherwise
// loses digits at every level (1e-11 relative after 30 levels of M/M/1/K).
func fixDiagonal(u, down *mat.Dense) {
	r, _ := u.Dims()
	for i := range r {
		var s float64
		for j := range r {
			if j != i {
				s += u.At(i, j)
			}
		}
		if down != nil {
			_, c := down.Dims()
			for j := range c {
				s += down.At(i, j)
			}
		}
		u.Set(i, i, -s)
	}
}

// valid reports whether the distribution is finite, non-negative to
// rounding, and balances to 1e-8 of the largest outflow.
func (d *Distribution) valid() bool {
	for _, p := range d.Pi {
		for _, v := range p {
			if !param.Finite(v) || v < -1e-14 {
				return false
			}
		}
	}
	for _, v := range d.TailStart {
		if !param.Finite(v) || v < -1e-14 {
			return false
		}
	}
	return param.Finite(d.MeanLevel) && param.Finite(d.TailMass) && d.Residual < 1e-8
}

// Level returns π_n, the stationary probabilities of the phases of level
// n (in the tail, TailStart·R^{n−L−1}; nil above a finite chain's top).
func (d *Distribution) Level(n int) []float64 {
	switch {
	case n < 0:
		return nil
	case n <= d.levelsL:
		return d.Pi[n]
	case d.Tail == nil:
		return nil
	}
	v := append([]float64(nil), d.TailStart...)
	for range n - d.levelsL - 1 {
		v = rowTimes(v, d.Tail.R)
	}
	return v
}

// TailSum returns Σ_{k≥0} π_{L+1+k}, the stationary probability of each
// tail phase summed over the tail's levels (nil without a tail).
func (d *Distribution) TailSum() []float64 {
	if d.Tail == nil {
		return nil
	}
	return rowTimes(d.TailStart, d.sumR)
}

// TailMoment returns Σ_{k≥0} k·π_{L+1+k}: the tail phases weighted by the
// number of levels above L+1 (nil without a tail).
func (d *Distribution) TailMoment() []float64 {
	if d.Tail == nil {
		return nil
	}
	return rowTimes(rowTimes(rowTimes(d.TailStart, d.sumR), d.Tail.R), d.sumR)
}

// residualLevels is ‖πQ‖₁ on the levels 0…L relative to the largest
// outflow rate.
func residualLevels(l *Levels, d *Distribution) float64 {
	L := len(l.Local) - 1
	var res, scale float64
	for n := range L + 1 {
		flow := rowTimes(d.Pi[n], l.Local[n])
		if n > 0 {
			add(flow, rowTimes(d.Pi[n-1], l.Up[n-1]))
		}
		if n < L {
			add(flow, rowTimes(d.Pi[n+1], l.Down[n+1]))
		} else if l.Tail != nil {
			add(flow, rowTimes(d.TailStart, l.Tail.A2))
		}
		for i, v := range flow {
			res += math.Abs(v)
			scale = math.Max(scale, -l.Local[n].At(i, i))
		}
	}
	return res / math.Max(scale, 1e-300)
}

func add(dst, v []float64) {
	for i := range dst {
		dst[i] += v[i]
	}
}

// rowTimes returns the row vector x·a.
func rowTimes(x []float64, a *mat.Dense) []float64 {
	r, c := a.Dims()
	if len(x) != r {
		panic(fmt.Sprintf("qbd: row of %d times %d×%d", len(x), r, c))
	}
	out := make([]float64, c)
	raw := a.RawMatrix()
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		for j, v := range row {
			out[j] += xi * v
		}
	}
	return out
}
