package bestofd

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// RefinedResult is the refined mean-field approximation (Gast and Van
// Houdt, "A refined mean field approximation", Proc. ACM Meas. Anal.
// Comput. Syst. 1(2), 2017) of best-of-d dispatching with exponential
// sizes and the d servers sampled with replacement. With s_i the fraction
// of servers holding at least i jobs, the N-server system is a density-
// dependent population process with drift
//
//	f_i(s) = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1}),  s_0 = 1,
//
// exactly (sampling with replacement makes the drift exact at every N),
// and E[s^N] = π + V/N + o(1/N) with
//
//	V = −A⁻¹·½·Σ_{j,k} ∂²f/∂s_j∂s_k · W_{jk},  A·W + W·Aᵀ + Q = 0,
//
// A the Jacobian of f at the fixed point π and Q = Σ_ℓ ℓℓᵀβ_ℓ(π) the
// jump covariance (jumps ±e_i at rates λ(π_{i−1}^d − π_i^d) and
// π_i − π_{i+1}). Its Status is Exact: π is in closed form and V the
// solution of two linear systems.
type RefinedResult struct {
	outcome.Outcome
	D    int
	Load float64
	// Levels K of s kept (π_K below 1e-16).
	Levels int
	// Pi is the fixed point π_i = P(Q ≥ i), i = 1..K, and V the 1/N
	// correction of each.
	Pi, V []float64
	// MeanQueue is Σπ_i (the mean field) and Correction ΣV_i, so that
	// E[Q] ≈ MeanQueue + Correction/N per server.
	MeanQueue, Correction float64
}

// Refined computes π and V for the model, which must have exponential
// sizes (the correction assumes the d servers are sampled with
// replacement; the discipline does not matter for exponential sizes). The
// computation has no knobs, so Refined takes no settings.
func Refined(m *Model) (*RefinedResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Sizes.Kind != farm.Exponential {
		return nil, param.Errorf("Sizes", "%v: the refined correction is for exponential sizes", m.Sizes)
	}
	d, load := m.D, m.Load
	start := time.Now()
	r := &RefinedResult{Outcome: outcome.Outcome{Status: outcome.Exact}, D: d, Load: load}
	defer func() { r.Elapsed = time.Since(start) }()
	fd := float64(d)
	// π_i = λ^{(d^i − 1)/(d − 1)} (λ^i for d = 1), the closed-form fixed
	// point of f, kept while above 1e-16.
	for i := 1; i <= 2000; i++ {
		e := float64(i)
		if d > 1 {
			e = (math.Pow(fd, float64(i)) - 1) / (fd - 1)
		}
		p := math.Pow(load, e)
		if p < 1e-16 {
			break
		}
		r.Pi = append(r.Pi, p)
	}
	K := len(r.Pi)
	if K == 0 || K >= 2000 {
		return nil, fmt.Errorf("bestofd: refined JSQ(%d) at λ = %v needs %d levels", d, load, K)
	}
	r.Levels = K
	pi := func(i int) float64 { // π_i with π_0 = 1 and π_{K+1} = 0
		switch {
		case i == 0:
			return 1
		case i > K:
			return 0
		}
		return r.Pi[i-1]
	}
	A := mat.NewDense(K, K, nil)
	Q := mat.NewDense(K, K, nil)
	for i := 1; i <= K; i++ {
		if i >= 2 {
			A.Set(i-1, i-2, load*fd*math.Pow(pi(i-1), fd-1))
		}
		A.Set(i-1, i-1, -load*fd*math.Pow(pi(i), fd-1)-1)
		if i < K {
			A.Set(i-1, i, 1)
		}
		Q.Set(i-1, i-1, load*(math.Pow(pi(i-1), fd)-math.Pow(pi(i), fd))+pi(i)-pi(i+1))
	}
	// Lyapunov equation A·W + W·Aᵀ = −Q as (I⊗A + A⊗I)·vec(W) = −vec(Q)
	// (column-major vec; K ≤ a few dozen, so the K²×K² system is small).
	K2 := K * K
	L := mat.NewDense(K2, K2, nil)
	rhs := mat.NewVecDense(K2, nil)
	for c := range K { // column of W
		for rr := range K { // row of W
			row := c*K + rr
			rhs.SetVec(row, -Q.At(rr, c))
			for k := range K {
				// (A·W)_{rr,c} = Σ_k A_{rr,k} W_{k,c}
				L.Set(row, c*K+k, L.At(row, c*K+k)+A.At(rr, k))
				// (W·Aᵀ)_{rr,c} = Σ_k W_{rr,k} A_{c,k}
				L.Set(row, k*K+rr, L.At(row, k*K+rr)+A.At(c, k))
			}
		}
	}
	var w mat.VecDense
	if err := w.SolveVec(L, rhs); err != nil {
		return nil, fmt.Errorf("bestofd: refined JSQ(%d): Lyapunov equation: %w", d, err)
	}
	W := func(i, j int) float64 { return w.AtVec((j-1)*K + (i - 1)) }
	// b_i = ½ Σ_{jk} ∂²f_i/∂s_j∂s_k W_jk.
	b := mat.NewVecDense(K, nil)
	for i := 1; i <= K; i++ {
		var v float64
		if i >= 2 {
			v += load * fd * (fd - 1) * math.Pow(pi(i-1), fd-2) * W(i-1, i-1)
		}
		v -= load * fd * (fd - 1) * math.Pow(pi(i), fd-2) * W(i, i)
		b.SetVec(i-1, v/2)
	}
	var V mat.VecDense
	if err := V.SolveVec(A, b); err != nil {
		return nil, fmt.Errorf("bestofd: refined JSQ(%d): %w", d, err)
	}
	for i := range K {
		v := -V.AtVec(i)
		r.V = append(r.V, v)
		r.Correction += v
		r.MeanQueue += r.Pi[i]
	}
	if math.IsNaN(r.Correction) || math.IsInf(r.Correction, 0) {
		return nil, fmt.Errorf("bestofd: refined JSQ(%d): non-finite correction", d)
	}
	return r, nil
}

// Sojourn returns the mean time in system at N servers: the mean field
// (n = 0) or the refined approximation (MeanQueue + Correction/N)/λ.
func (r *RefinedResult) Sojourn(n int) float64 {
	q := r.MeanQueue
	if n > 0 {
		q += r.Correction / float64(n)
	}
	return q / r.Load
}
