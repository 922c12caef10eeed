package fixedpoint

import (
	"errors"
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// SpectrumSettings control ComputeSpectrum. Zero fields mean defaults.
type SpectrumSettings struct {
	// Step is the finite-difference step. Default 1e-7.
	Step float64
	// SupportTol: only entries of x above it are perturbed (the map is
	// only one-sidedly differentiable where x has no mass). Default 1e-10.
	SupportTol float64
	// DenseLimit: with at most this many supported entries the whole
	// Jacobian is formed (that many evaluations); above it Arnoldi's
	// method estimates the outer eigenvalues. Default 120.
	DenseLimit int
	// Krylov is Arnoldi's subspace dimension. Default 30.
	Krylov int
}

// Spectrum is the spectrum of a map's Jacobian at a point, on zero-sum
// perturbations (the map preserves total mass).
type Spectrum struct {
	// Eigenvalues by decreasing modulus (for Arnoldi: Ritz values, the
	// outer ones accurate).
	Eigenvalues []complex128
	// Radius is the spectral radius and Leading the eigenvalue attaining
	// it (the one with the largest real part among ties).
	Radius  float64
	Leading complex128
	// Arnoldi is true when the Krylov estimate was used.
	Arnoldi     bool
	Evaluations int
}

// ComputeSpectrum returns the eigenvalues of the Jacobian of f at x
// restricted to zero-sum perturbations supported where x > SupportTol.
func ComputeSpectrum(f Func, x []float64, s *SpectrumSettings) (*Spectrum, error) {
	set := s.withDefaults(30)
	supp := support(x, set.SupportTol)
	if len(supp) < 2 {
		return &Spectrum{}, nil
	}
	sp := &Spectrum{}
	fx := make([]float64, len(x))
	if err := f(fx, x); err != nil {
		return nil, err
	}
	sp.Evaluations++
	var vals []complex128
	var err error
	if len(supp) <= set.DenseLimit {
		vals, err = denseSpectrum(f, x, fx, supp, set.Step, sp)
	} else {
		sp.Arnoldi = true
		vals, err = arnoldiSpectrum(f, x, supp, set, sp, nil)
	}
	if err != nil {
		return nil, err
	}
	sp.setEigenvalues(vals)
	return sp, nil
}

// withDefaults is a copy of s (nil: zero) with its defaults filled in,
// Krylov's being krylov.
func (s *SpectrumSettings) withDefaults(krylov int) SpectrumSettings {
	var set SpectrumSettings
	if s != nil {
		set = *s
	}
	if set.Step == 0 {
		set.Step = 1e-7
	}
	if set.SupportTol == 0 {
		set.SupportTol = 1e-10
	}
	if set.DenseLimit == 0 {
		set.DenseLimit = 120
	}
	if set.Krylov == 0 {
		set.Krylov = krylov
	}
	return set
}

// support lists the entries of x above tol.
func support(x []float64, tol float64) []int {
	var supp []int
	for i, v := range x {
		if v > tol {
			supp = append(supp, i)
		}
	}
	return supp
}

// setEigenvalues sorts vals by decreasing modulus (the larger real part
// first among ties) and sets Eigenvalues, Leading and Radius.
func (sp *Spectrum) setEigenvalues(vals []complex128) {
	sort.Slice(vals, func(a, b int) bool {
		ma, mb := cmplx.Abs(vals[a]), cmplx.Abs(vals[b])
		if math.Abs(ma-mb) > 1e-12 {
			return ma > mb
		}
		return real(vals[a]) > real(vals[b])
	})
	sp.Eigenvalues = vals
	if len(vals) > 0 {
		sp.Leading = vals[0]
		sp.Radius = cmplx.Abs(vals[0])
	}
}

// denseSpectrum forms the Jacobian on the supported zero-sum basis and
// returns its eigenvalues.
func denseSpectrum(f Func, x, fx []float64, supp []int, h float64, sp *Spectrum) ([]complex128, error) {
	jac, err := denseJacobian(f, x, fx, supp, h)
	if err != nil {
		return nil, err
	}
	sp.Evaluations += jac.Evaluations
	var eig mat.Eigen
	if !eig.Factorize(jac.J, mat.EigenNone) {
		return nil, errors.New("fixedpoint: eigenvalue decomposition failed")
	}
	return eig.Values(nil), nil
}

// Jacobian is the Jacobian of a mass-preserving map on zero-sum
// perturbations, in the basis e_j − e_Ref for the supported entries j ≠
// Ref (Index lists them): column j of J is (Φ(x + h(e_j − e_Ref)) −
// Φ(x))/h restricted to Index. A zero-sum vector v corresponds to its
// entries on Index (its Ref entry is minus their sum), and J acts on those
// coordinates.
type Jacobian struct {
	J *mat.Dense
	// Index lists the coordinates (entries of x) of J's rows and columns;
	// Ref is the entry that absorbs the zero-sum constraint: the supported
	// entry of largest mass.
	Index       []int
	Ref         int
	Evaluations int
}

// ComputeJacobian forms the Jacobian of f at x on zero-sum perturbations
// supported where x > SupportTol, by forward differences (feasible: a
// forward step adds mass to e_j, taken from the heaviest entry), with
// SpectrumSettings' Step and SupportTol.
func ComputeJacobian(f Func, x []float64, s *SpectrumSettings) (*Jacobian, error) {
	var set SpectrumSettings
	if s != nil {
		set = *s
	}
	if set.Step == 0 {
		set.Step = 1e-7
	}
	if set.SupportTol == 0 {
		set.SupportTol = 1e-10
	}
	var supp []int
	for i, v := range x {
		if v > set.SupportTol {
			supp = append(supp, i)
		}
	}
	if len(supp) < 2 {
		return nil, errors.New("fixedpoint: a Jacobian on zero-sum perturbations needs two supported entries")
	}
	fx := make([]float64, len(x))
	if err := f(fx, x); err != nil {
		return nil, err
	}
	jac, err := denseJacobian(f, x, fx, supp, set.Step)
	if err != nil {
		return nil, err
	}
	jac.Evaluations++
	return jac, nil
}

// denseJacobian forms the Jacobian on the supported zero-sum basis
// e_j − e_ref by forward differences.
func denseJacobian(f Func, x, fx []float64, supp []int, h float64) (*Jacobian, error) {
	ref := supp[0]
	for _, i := range supp {
		if x[i] > x[ref] {
			ref = i
		}
	}
	if x[ref] < 2*h {
		h = x[ref] / 2
	}
	var idx []int
	for _, i := range supp {
		if i != ref {
			idx = append(idx, i)
		}
	}
	m := len(idx)
	out := &Jacobian{J: mat.NewDense(m, m, nil), Index: idx, Ref: ref}
	xp := make([]float64, len(x))
	fp := make([]float64, len(x))
	for j, c := range idx {
		copy(xp, x)
		xp[c] += h
		xp[ref] -= h
		if err := f(fp, xp); err != nil {
			return nil, err
		}
		out.Evaluations++
		for i, ci := range idx {
			out.J.Set(i, j, (fp[ci]-fx[ci])/h)
		}
	}
	return out, nil
}

// arnoldiSpectrum runs Arnoldi's method on the similar operator
// A = D^{−1/2}·J·D^{1/2}, D = diag(x) on the support: it has J's
// eigenvalues, and weighting by the mass makes it far closer to normal
// (exactly symmetric for a reversible Markov chain), so the outer Ritz
// values converge from the inside instead of wandering in a wide field of
// values. J·u comes from central differences with a step that keeps
// x ± h·u non-negative; u = D^{1/2}·û is zero-sum when û ⟂ √x. Given
// fx = Φ(x), forward differences replace the central ones: one evaluation
// per vector, with a step that keeps x + h·u non-negative.
func arnoldiSpectrum(f Func, x []float64, supp []int, set SpectrumSettings, sp *Spectrum, fx []float64) ([]complex128, error) {
	n := len(supp)
	m := min(set.Krylov, n-1)
	sq := make([]float64, n) // √x on the support
	for i, c := range supp {
		sq[i] = math.Sqrt(x[c])
	}
	// orth removes the component along √x (the zero-sum constraint).
	orth := func(v []float64) {
		d := dot(v, sq) / dot(sq, sq)
		for i := range v {
			v[i] -= d * sq[i]
		}
	}
	v0 := make([]float64, n)
	for i := range v0 {
		v0[i] = math.Cos(0.7*float64(i) + 0.3)
	}
	orth(v0)
	normalize(v0)
	V := [][]float64{v0}
	H := mat.NewDense(m+1, m, nil)
	op := &weightedOp{f: f, x: x, fx: fx, supp: supp, sq: sq, step: set.Step, sp: sp,
		xp: make([]float64, len(x)), xm: make([]float64, len(x)), fp: make([]float64, len(x)), fm: make([]float64, len(x)), u: make([]float64, n)}
	k := 0
	for ; k < m; k++ {
		w, err := op.apply(V[k])
		if err != nil {
			return nil, err
		}
		orth(w)
		for j := 0; j <= k; j++ {
			d := dot(w, V[j])
			H.Set(j, k, d)
			for i := range w {
				w[i] -= d * V[j][i]
			}
		}
		nw := math.Sqrt(dot(w, w))
		H.Set(k+1, k, nw)
		if nw < 1e-12 {
			k++
			break
		}
		for i := range w {
			w[i] /= nw
		}
		V = append(V, w)
	}
	hk := mat.DenseCopyOf(H.Slice(0, k, 0, k))
	var eig mat.Eigen
	if !eig.Factorize(hk, mat.EigenNone) {
		return nil, errors.New("fixedpoint: Hessenberg eigenvalue decomposition failed")
	}
	return eig.Values(nil), nil
}

// weightedOp applies A = D^{−1/2}·J·D^{1/2} on the support by
// differences (see arnoldiSpectrum), counting evaluations in sp.
type weightedOp struct {
	f              Func
	x, fx          []float64 // the point and Φ(x) (nil: central differences)
	supp           []int
	sq             []float64 // √x on the support
	step           float64
	sp             *Spectrum
	xp, xm, fp, fm []float64 // work space, len(x)
	u              []float64 // work space, len(supp)
}

// apply returns A·v.
func (op *weightedOp) apply(v []float64) ([]float64, error) {
	x, fx, supp, sq, u := op.x, op.fx, op.supp, op.sq, op.u
	h := op.step
	for i := range u {
		u[i] = sq[i] * v[i]
		if u[i] < 0 || (u[i] > 0 && fx == nil) {
			h = math.Min(h, 0.5*x[supp[i]]/math.Abs(u[i]))
		}
	}
	copy(op.xp, x)
	for i, c := range supp {
		op.xp[c] += h * u[i]
	}
	if err := op.f(op.fp, op.xp); err != nil {
		return nil, err
	}
	op.sp.Evaluations++
	w := make([]float64, len(supp))
	if fx != nil {
		for i, c := range supp {
			w[i] = (op.fp[c] - fx[c]) / h / sq[i]
		}
		return w, nil
	}
	copy(op.xm, x)
	for i, c := range supp {
		op.xm[c] -= h * u[i]
	}
	if err := op.f(op.fm, op.xm); err != nil {
		return nil, err
	}
	op.sp.Evaluations++
	for i, c := range supp {
		w[i] = (op.fp[c] - op.fm[c]) / (2 * h) / sq[i]
	}
	return w, nil
}

func normalize(v []float64) {
	n := math.Sqrt(dot(v, v))
	for i := range v {
		v[i] /= n
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
