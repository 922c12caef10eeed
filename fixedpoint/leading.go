package fixedpoint

import (
	"errors"
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// LeadingSpectrum estimates the outer eigenvalues of the Jacobian of f at
// x on zero-sum perturbations supported where x > SupportTol, like
// ComputeSpectrum's Arnoldi method (same mass-weighted operator, same
// start), but with forward differences, J·u ≈ (Φ(x + h·u) − Φ(x))/h, one
// evaluation per Krylov vector instead of two. fx is Φ(x) if known (nil:
// evaluated). It suits maps whose Jacobian has few eigenvalues away from
// 0, where a handful of vectors gives the leading one (the stale board's
// refresh map at its balanced fixed point: 6 vectors give it to 1e-5);
// the forward difference costs accuracy of order Step. Settings as in
// ComputeSpectrum (Krylov default 6; DenseLimit is not used).
func LeadingSpectrum(f Func, x, fx []float64, s *SpectrumSettings) (*Spectrum, error) {
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
	if set.Krylov == 0 {
		set.Krylov = 6
	}
	var supp []int
	for i, v := range x {
		if v > set.SupportTol {
			supp = append(supp, i)
		}
	}
	if len(supp) < 2 {
		return &Spectrum{}, nil
	}
	sp := &Spectrum{Arnoldi: true}
	if fx == nil {
		fx = make([]float64, len(x))
		if err := f(fx, x); err != nil {
			return nil, err
		}
		sp.Evaluations++
	}
	n := len(supp)
	m := min(set.Krylov, n-1)
	sq := make([]float64, n)
	for i, c := range supp {
		sq[i] = math.Sqrt(x[c])
	}
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
	xp := make([]float64, len(x))
	fp := make([]float64, len(x))
	u := make([]float64, n)
	k := 0
	for ; k < m; k++ {
		v := V[k]
		h := set.Step
		for i := range u {
			u[i] = sq[i] * v[i]
			if u[i] < 0 {
				h = math.Min(h, 0.5*x[supp[i]]/-u[i])
			}
		}
		copy(xp, x)
		for i, c := range supp {
			xp[c] += h * u[i]
		}
		if err := f(fp, xp); err != nil {
			return nil, err
		}
		sp.Evaluations++
		w := make([]float64, n)
		for i, c := range supp {
			w[i] = (fp[c] - fx[c]) / h / sq[i]
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
	vals := eig.Values(nil)
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
	return sp, nil
}
