package staleboard

import (
	"math"
	"testing"
)

// boundaryRowsDirect is boundaryRows with every ballot law computed
// afresh for its (a, s), term by term in the order a, s: the reference
// for the tabulated rows.
func boundaryRowsDirect(m *Map, w *boundaryWeights) []float64 {
	k, S := m.K, w.S
	bw := S + k + 1
	bnd, suf := make([]float64, (k+1)*bw), make([]float64, (k+1)*bw)
	gg, cg := make([]float64, S+1), make([]float64, S+1)
	for a, ba := range w.binom {
		if ba == 0 {
			continue
		}
		for s, ps := range w.pois {
			c := ba * ps
			if c == 0 {
				continue
			}
			m0 := max(0, s-a)
			ballotLaw(gg, cg, a, s)
			for j := 0; j <= k; j++ {
				rho := j - a + s
				switch {
				case rho < 0:
				case j > a:
					bnd[j*bw+rho] += c
				case rho >= m0:
					bnd[j*bw+rho] += c * cg[rho]
					suf[j*bw+rho] += c * gg[rho]
				}
			}
		}
	}
	for j := 0; j <= k; j++ {
		var acc float64
		for q := bw - 1; q >= 0; q-- {
			bnd[j*bw+q] += acc
			acc += suf[j*bw+q]
		}
	}
	return bnd
}

// The tabulated boundary rows equal the direct sum to the last bit
// (every entry receives the same terms in the same order), for full and
// partial passes, short and long ones, several k, and with the table
// grown between calls (a short pass first, then longer ones).
func TestBoundaryRowsTable(t *testing.T) {
	for _, k := range []int{1, 2, 5, 10} {
		m := newMap(k, 0.9, 300).boardOnly()
		for _, c := range []struct{ L, tau float64 }{
			{1e-9, 1e-9}, {0.5, 0.5}, {float64(k) / 0.9, float64(k) / 0.9}, {6, 2.5}, {40, 40}, {40, 0.3},
		} {
			var w boundaryWeights
			m.fillBoundary(&w, c.L, c.tau)
			want := boundaryRowsDirect(m, &w)
			if len(w.bnd) != len(want) {
				t.Fatalf("k=%d L=%v τ=%v: %d entries, want %d", k, c.L, c.tau, len(w.bnd), len(want))
			}
			for i := range want {
				if math.Float64bits(w.bnd[i]) != math.Float64bits(want[i]) {
					t.Fatalf("k=%d L=%v τ=%v: entry %d = %v, want %v", k, c.L, c.tau, i, w.bnd[i], want[i])
				}
			}
		}
	}
}
