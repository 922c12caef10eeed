package fixedpoint

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
	set := s.withDefaults(6)
	supp := support(x, set.SupportTol)
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
	vals, err := arnoldiSpectrum(f, x, supp, set, sp, fx)
	if err != nil {
		return nil, err
	}
	sp.setEigenvalues(vals)
	return sp, nil
}
