package staleboard

import "math"

// The reference path: the map as it was computed before the window
// evolution (evolve, map_window.go) — every pass over the whole aggregate,
// the interleaving recursion below the most services a pass holds and a
// convolution above. It is kept, unchanged, as the exact reference the
// tests and benchmarks compare the window evolution with; a Map whose
// reference field is set evolves by it.

func init() { evolveReference = (*Map).evolveRef }

// applyRef evaluates Φ_T(p) by the reference path.
func (m *Map) applyRef(p []float64) (*MapResult, error) {
	ref := m.reference
	m.reference = true
	defer func() { m.reference = ref }()
	return m.Apply(p)
}

// evolveRef runs one period of board p (top its last non-zero class)
// through the passes s and fills res's distribution, mean queue, sojourn,
// board mean and lost mass, passing the whole aggregate through every
// pass: the reference for evolve.
func (m *Map) evolveRef(p []float64, top int, s *passes, res *MapResult) {
	T := m.Period
	// Aggregate distribution of the activated servers (board ≤ v), at t_v.
	agg := []float64{}
	var integral float64 // ∫₀^T E[q] dt, summed over all servers
	for v := 0; v <= s.V; v++ {
		t, L := s.t[v], s.L[v]
		// Activate class v at t_v: pure death from v for time t_v.
		if v <= top && p[v] > 0 {
			var integ float64
			agg, integ = addDeath(agg, &m.pmf, p[v], v, t)
			integral += integ
		}
		if v == s.V {
			// Pass V is in progress at T.
			var integ, lost float64
			agg, integ, lost = m.pass(agg, L, T-t)
			integral += integ
			res.Lost += lost
			break
		}
		if L > 0 {
			var integ, lost float64
			agg, integ, lost = m.pass(agg, L, L)
			integral += integ
			res.Lost += lost
			// Each pass can raise the support by k; cut the negligible top
			// (counted as lost) so the recursion runs only over live classes.
			res.Lost += trimTop(&agg, m.trimTol())
		}
	}
	// Classes above V were never activated: pure death over [0, T].
	next := agg
	for b := s.V + 1; b <= top; b++ {
		if p[b] == 0 {
			continue
		}
		var integ float64
		next, integ = addDeath(next, &m.pmf, p[b], b, T)
		integral += integ
	}
	// Trim the negligible top and count it as lost.
	tol := m.trimTol()
	n := len(next)
	for n > 1 && next[n-1] < tol {
		res.Lost += next[n-1]
		n--
	}
	res.Next = append([]float64(nil), next[:n]...)
	res.BoardMean = Mean(res.Next)
	res.MeanQueue = integral / T
	if m.noIntegral {
		res.MeanQueue = math.NaN()
	}
	res.Sojourn = res.MeanQueue / m.Load
}
