package qbd

import (
	"math"
	"time"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MaxPhases bounds the phase count of a block (a dense m×m solve costs
// about m³ operations and 8m² bytes: 2,000 phases are 64 MB and about
// 10 s per factorisation).
const MaxPhases = 2000

// genTol is how far a generator's row sum may be from zero, relative to
// the largest rate in the row: rows are built by adding a handful of
// rates, each correct to rounding.
const genTol = 1e-10

// Homogeneous is a level-independent QBD: from every level n ≥ 1 the
// chain moves to level n+1 at the rates A0, within level n at the rates
// A1 (which holds the diagonal) and to level n−1 at the rates A2. All
// three are m×m, non-negative off the diagonal of A1, and A0 + A1 + A2
// has zero row sums.
type Homogeneous struct {
	A0, A1, A2 *mat.Dense
}

// Validate checks the blocks: present, square of one size 1..MaxPhases,
// finite, non-negative rates, zero row sums (*param.Error names A0, A1 or
// A2).
func (h *Homogeneous) Validate() error {
	if h.A0 == nil || h.A1 == nil || h.A2 == nil {
		for name, b := range map[string]*mat.Dense{"A0": h.A0, "A1": h.A1, "A2": h.A2} {
			if b == nil {
				return param.Errorf(name, "missing block")
			}
		}
	}
	m, c := h.A1.Dims()
	if m != c || m < 1 || m > MaxPhases {
		return param.Errorf("A1", "block is %d×%d, want square with 1..%d phases", m, c, MaxPhases)
	}
	for name, b := range map[string]*mat.Dense{"A0": h.A0, "A2": h.A2} {
		if r, c := b.Dims(); r != m || c != m {
			return param.Errorf(name, "block is %d×%d, want %d×%d like A1", r, c, m, m)
		}
	}
	return checkGenerator([]string{"A0", "A1", "A2"}, []*mat.Dense{h.A0, h.A1, h.A2}, 1)
}

// checkGenerator checks that the blocks, side by side, are rows of a
// generator: finite, non-negative except on the diagonal of the block at
// index diag, rows summing to zero.
func checkGenerator(names []string, blocks []*mat.Dense, diag int) error {
	var rows int
	raws := make([]blas64General, len(blocks))
	for k, b := range blocks {
		if b != nil {
			rows, _ = b.Dims()
			raws[k] = b.RawMatrix()
		}
	}
	for i := range rows {
		var sum, scale float64
		for k, b := range blocks {
			if b == nil {
				continue
			}
			raw := raws[k]
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if !param.Finite(v) {
					return param.Errorf(names[k], "entry (%d, %d) is %v", i, j, v)
				}
				if v < 0 && !(k == diag && i == j) {
					return param.Errorf(names[k], "entry (%d, %d) is %v, want a non-negative rate", i, j, v)
				}
				sum += v
				scale = math.Max(scale, math.Abs(v))
			}
		}
		if math.Abs(sum) > genTol*math.Max(scale, 1e-300) {
			return param.Errorf(names[diag], "row %d of the generator sums to %.3g, want 0 (the diagonal holds minus the total outflow)", i, sum)
		}
	}
	return nil
}

// blas64General is the raw storage of a mat.Dense.
type blas64General = blas64.General

// Settings control Solve and Stationary. A nil pointer or a zero field
// means the documented default.
type Settings struct {
	// Tol is the tolerance of the logarithmic reduction: it stops once
	// G's row sums are within Tol of 1 (positive recurrent and null
	// recurrent chains) or its last increment is below Tol (transient
	// ones). Default 1e-14.
	Tol float64
	// MaxIter bounds the doublings of the logarithmic reduction (after k
	// of them G accounts for paths through 2^k levels). Default 64.
	MaxIter int
}

func (s *Settings) tol() float64 {
	if s == nil {
		return 1e-14
	}
	return param.Or(s.Tol, 1e-14)
}

func (s *Settings) maxIter() int {
	if s == nil {
		return 64
	}
	return param.Or(s.MaxIter, 64)
}

func (s *Settings) validate() error {
	if s == nil {
		return nil
	}
	if !param.Finite(s.Tol) || s.Tol < 0 || s.Tol >= 1 {
		return param.Errorf("Tol", "%v, want 0 (default) or in (0, 1)", s.Tol)
	}
	if s.MaxIter < 0 || s.MaxIter > 1000 {
		return param.Errorf("MaxIter", "%d doublings, want 0 (default) or 1..1000", s.MaxIter)
	}
	return nil
}

// Solution is the matrix-geometric solution of a Homogeneous QBD.
type Solution struct {
	// Outcome: Converged when G met Settings.Tol; IterationLimit when the
	// doublings ran out; NonFinite or InvalidResult when G failed its
	// checks. Evaluations counts the doublings.
	outcome.Outcome
	// G is the first-passage matrix to the level below, U = A1 + A0·G the
	// generator watched in a level until the chain first goes below it,
	// and R = A0·(−U)⁻¹ the rate matrix: π_{n+1} = π_n·R.
	G, U, R *mat.Dense
	// Drift is π_A·A0·1 − π_A·A2·1: negative for a positive recurrent
	// chain, zero for a null recurrent one, positive for a transient one.
	Drift float64
	// Decay is the spectral radius of R (the caudal characteristic): the
	// level distribution decays like Decay^n.
	Decay float64
	// Residual is max |A2 + A1·G + A0·G²| over the entries, relative to
	// the largest rate.
	Residual float64
}

// Solve computes G, U and R by logarithmic reduction (Latouche &
// Ramaswami 1993, Algorithm 8.4 in their book of 1999), the drift and the
// decay rate.
func Solve(h *Homogeneous, s *Settings) (*Solution, error) {
	start := time.Now()
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	m, _ := h.A1.Dims()
	sol := &Solution{Drift: drift(h)}
	// Logarithmic reduction. With B0 = (−A1)⁻¹A0 and B2 = (−A1)⁻¹A2 the
	// embedded chain of level changes moves up with B0 and down with B2;
	// each step eliminates every other level, squaring both:
	//	U = B0·B2 + B2·B0, B0 ← (I − U)⁻¹·B0², B2 ← (I − U)⁻¹·B2²,
	// and G = B2 + T·B2 + …, T the product of the up matrices so far.
	var lu mat.LU
	negA1 := mat.NewDense(m, m, nil)
	negA1.Scale(-1, h.A1)
	lu.Factorize(negA1)
	if lu.Det() == 0 {
		sol.Status = outcome.InvalidResult
		sol.Elapsed = time.Since(start)
		return sol, nil
	}
	b0, b2 := mat.NewDense(m, m, nil), mat.NewDense(m, m, nil)
	if err := lu.SolveTo(b0, false, h.A0); err != nil {
		sol.Status = outcome.InvalidResult
		sol.Elapsed = time.Since(start)
		return sol, nil
	}
	if err := lu.SolveTo(b2, false, h.A2); err != nil {
		sol.Status = outcome.InvalidResult
		sol.Elapsed = time.Since(start)
		return sol, nil
	}
	G := mat.DenseCopyOf(b2)
	T := mat.DenseCopyOf(b0)
	u, t1, t2, inc := mat.NewDense(m, m, nil), mat.NewDense(m, m, nil), mat.NewDense(m, m, nil), mat.NewDense(m, m, nil)
	tol, maxIter := s.tol(), s.maxIter()
	sol.Status = outcome.IterationLimit
	for it := 1; it <= maxIter; it++ {
		sol.Evaluations = it
		u.Mul(b0, b2)
		t1.Mul(b2, b0)
		u.Add(u, t1)
		// I − U
		for i := range m {
			for j := range m {
				v := -u.At(i, j)
				if i == j {
					v += 1
				}
				u.Set(i, j, v)
			}
		}
		lu.Factorize(u)
		t1.Mul(b0, b0)
		t2.Mul(b2, b2)
		if err := lu.SolveTo(b0, false, t1); err != nil {
			sol.Status = outcome.InvalidResult
			break
		}
		if err := lu.SolveTo(b2, false, t2); err != nil {
			sol.Status = outcome.InvalidResult
			break
		}
		inc.Mul(T, b2)
		G.Add(G, inc)
		t1.Mul(T, b0)
		T.Copy(t1)
		if !param.AllFinite(G.RawMatrix().Data) {
			sol.Status = outcome.NonFinite
			break
		}
		var gap, incMax float64
		for i := range m {
			var row float64
			for j := range m {
				row += G.At(i, j)
				incMax = math.Max(incMax, math.Abs(inc.At(i, j)))
			}
			gap = math.Max(gap, math.Abs(1-row))
		}
		if gap < tol || incMax < tol {
			sol.Status = outcome.Converged
			break
		}
	}
	sol.finish(h, G)
	sol.Elapsed = time.Since(start)
	return sol, nil
}

// finish sets G, U = A1 + A0·G, R = A0·(−U)⁻¹, the residual and the
// decay rate, and marks a solution that fails its checks invalid.
func (sol *Solution) finish(h *Homogeneous, G *mat.Dense) {
	m, _ := G.Dims()
	var lu mat.LU
	sol.G = G
	sol.U = mat.NewDense(m, m, nil)
	sol.U.Mul(h.A0, G)
	sol.U.Add(sol.U, h.A1)
	if sol.Drift < 0 {
		// G is stochastic: U's rows sum to −A2·1 (see fixDiagonal).
		fixDiagonal(sol.U, h.A2)
	}
	// R = A0·(−U)⁻¹: solve Rᵀ·(−U)ᵀ… as (−U)ᵀ·Rᵀ = A0ᵀ.
	negU := mat.NewDense(m, m, nil)
	negU.Scale(-1, sol.U)
	lu.Factorize(negU)
	sol.R = mat.NewDense(m, m, nil)
	if err := lu.SolveTo(sol.R, true, h.A0.T()); err != nil && sol.Status.OK() {
		sol.Status = outcome.InvalidResult
	}
	sol.R = mat.DenseCopyOf(sol.R.T())
	sol.Residual = residualG(h, G)
	sol.Decay = spectralRadius(sol.R)
	if sol.Status.OK() && !(sol.Residual < 1e-8) {
		sol.Status = outcome.InvalidResult
	}
	for _, v := range G.RawMatrix().Data {
		if v < -1e-12 && sol.Status.OK() {
			sol.Status = outcome.InvalidResult
		}
	}
}

// residualG is max |A2 + A1·G + A0·G²| relative to the largest rate.
func residualG(h *Homogeneous, G *mat.Dense) float64 {
	m, _ := G.Dims()
	r := mat.NewDense(m, m, nil)
	g2 := mat.NewDense(m, m, nil)
	g2.Mul(G, G)
	r.Mul(h.A0, g2)
	t := mat.NewDense(m, m, nil)
	t.Mul(h.A1, G)
	r.Add(r, t)
	r.Add(r, h.A2)
	scale := math.Max(mat.Norm(h.A1, math.Inf(1)), 1e-300)
	return mat.Norm(r, math.Inf(1)) / scale
}

// drift is π_A·(A0 − A2)·1 with π_A the stationary vector of A0+A1+A2.
func drift(h *Homogeneous) float64 {
	m, _ := h.A1.Dims()
	a := mat.NewDense(m, m, nil)
	a.Add(h.A0, h.A1)
	a.Add(a, h.A2)
	pi := GTH(a)
	var d float64
	for i := range m {
		for j := range m {
			d += pi[i] * (h.A0.At(i, j) - h.A2.At(i, j))
		}
	}
	return d
}

// spectralRadius of a non-negative matrix: the largest modulus among
// gonum's eigenvalues or, should the eigensolver fail, the growth rate of
// 1,000 steps of the power method (the Perron root of a non-negative
// matrix; finite whenever a is).
func spectralRadius(a *mat.Dense) float64 {
	var eig mat.Eigen
	if eig.Factorize(a, mat.EigenNone) {
		var rho float64
		for _, v := range eig.Values(nil) {
			rho = math.Max(rho, math.Hypot(real(v), imag(v)))
		}
		return rho
	}
	m, _ := a.Dims()
	x := mat.NewVecDense(m, nil)
	for i := range m {
		x.SetVec(i, 1)
	}
	y := mat.NewVecDense(m, nil)
	var rho float64
	for range 1000 {
		y.MulVec(a.T(), x)
		rho = mat.Norm(y, 1) / mat.Norm(x, 1)
		if !(rho > 0) {
			return 0
		}
		x.ScaleVec(1/mat.Norm(y, 1), y)
	}
	return rho
}
