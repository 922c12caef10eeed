package queues

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/qbd"
)

// smallJobs is the stationary law of the JSQ occupancy chain of n
// servers that hold at most two jobs (solveOccupancy with K = 0), solved
// in O(n²) operations by exploiting its sparsity: jsqFCFSH2 solves one
// per count of giant-held servers.
//
// Its states are (x₁, x₂), n ≥ x₁ ≥ x₂ ≥ 0, x_i the servers holding at
// least i jobs. Taken with level x₂ and phase x₁ ∈ [x₂, n], it is a
// finite QBD whose only way up is an arrival that finds every server
// busy (phase n, at rate aBusy): the up block is one entry. Arrivals
// that find a server idle (rate aIdle) and completions at servers
// holding one job (rate μ(x₁ − x₂)) move the phase, completions at
// servers holding two (rate μx₂) move down a level. Linear level
// reduction (Latouche & Ramaswami §10.2) then needs, at each level k,
// only the last row of (−U_k)⁻¹, z_k = e_last·(−U_k)⁻¹, and
//
//	U_k = Local_k + e_last·w_k,  w_k[j] = aBusy·μ(k+1)·z_{k+1}[j−1],
//	π_{k+1} = π_k[last]·aBusy·z_{k+1},
//
// with Local_k tridiagonal: −U_k is tridiagonal with one full row, so z_k
// takes one tridiagonal solve (the Thomas algorithm, stable here because
// −U_kᵀ is column diagonally dominant) and a scalar. Level 0 is a
// generator, solved by GTH (qbd.GTH).
type smallJobs struct {
	n int
	// pi[k][i] is the probability of (x₁, x₂) = (k + i, k).
	pi [][]float64
	// lost is the fraction of arrivals turned away (every server holding
	// two jobs).
	lost float64
}

// solveSmallJobs solves the chain; ws is reused between calls.
func solveSmallJobs(n int, aIdle, aBusy, mu float64, ws *smallJobsWork) (*smallJobs, error) {
	if n < 1 {
		return nil, fmt.Errorf("queues: small-job chain of %d servers", n)
	}
	ws.grow(n)
	z := ws.z[:n+1]
	// Level n: the one state (n, n); −U_n = μn (arrivals are lost there).
	z[n] = append(z[n][:0], 1/(mu*float64(n)))
	for k := n - 1; k >= 0; k-- {
		d := n - k + 1 // phases x₁ = k … n
		ws.lastRow(k, n, d, aIdle, aBusy, mu, z[k+1])
		if k == 0 {
			break
		}
		z[k] = ws.solveLast(z[k][:0], d)
	}
	// Level 0: π₀·U₀ = 0.
	d := n + 1
	u0 := mat.NewDense(d, d, nil)
	for i := range d {
		if i > 0 {
			u0.Set(i, i-1, ws.sub[i])
		}
		if i < d-1 {
			u0.Set(i, i+1, ws.sup[i])
		}
	}
	for j := range d - 1 {
		u0.Set(d-1, j, u0.At(d-1, j)+ws.row[j])
	}
	s := &smallJobs{n: n, pi: make([][]float64, n+1)}
	s.pi[0] = qbd.GTH(u0)
	total := 0.0
	for _, v := range s.pi[0] {
		total += v
	}
	for k := 0; k < n; k++ {
		f := s.pi[k][len(s.pi[k])-1] * aBusy
		next := make([]float64, n-k)
		for i, v := range z[k+1] {
			next[i] = f * v
			total += next[i]
		}
		s.pi[k+1] = next
	}
	var rate float64
	for k, p := range s.pi {
		for i := range p {
			p[i] /= total
			if k+i < n {
				rate += p[i] * aIdle
			} else {
				rate += p[i] * aBusy
			}
		}
	}
	s.lost = s.pi[n][0] * aBusy / rate
	return s, nil
}

// smallJobsWork is the work space of solveSmallJobs.
type smallJobsWork struct {
	z              [][]float64 // z_k, the last row of (−U_k)⁻¹
	sub, diag, sup []float64   // the tridiagonal part of −U_k (or U₀)
	row            []float64   // its last row's extra part, −w_k (or w₀)
	c, q           []float64   // the Thomas algorithm's work
}

func (ws *smallJobsWork) grow(n int) {
	for len(ws.z) <= n {
		ws.z = append(ws.z, nil)
	}
	if len(ws.sub) < n+1 {
		for _, p := range []*[]float64{&ws.sub, &ws.diag, &ws.sup, &ws.row, &ws.c, &ws.q} {
			*p = make([]float64, n+1)
		}
	}
}

// lastRow sets the blocks of level k (phases x₁ = k … n, d of them):
// for k ≥ 1 those of −U_k (sub, diag and sup its tridiagonal part, row
// the rest of its last row, −w_k), for k = 0 those of the generator U₀
// itself (off-diagonal rates; GTH needs no diagonal).
func (ws *smallJobsWork) lastRow(k, n, d int, aIdle, aBusy, mu float64, zUp []float64) {
	sign := -1.0
	if k == 0 {
		sign = 1
	}
	for i := range d {
		x1 := k + i
		out := mu * float64(k) // completions at servers holding two jobs
		ws.sub[i], ws.sup[i] = 0, 0
		if i > 0 {
			r := mu * float64(x1-k) // completions at servers holding one
			ws.sub[i] = sign * r
			out += r
		}
		if x1 < n {
			ws.sup[i] = sign * aIdle
			out += aIdle
		} else if k < n {
			out += aBusy // up a level
		}
		ws.diag[i] = out
	}
	// w_k[j] = aBusy·μ(k+1)·z_{k+1}[j−1]: the return to level k, in phase
	// j, of the excursion up from (n, k).
	ws.row[0] = 0
	for j := 1; j < d; j++ {
		ws.row[j] = sign * aBusy * mu * float64(k+1) * zUp[j-1]
	}
}

// solveLast returns y = e_last·A⁻¹ (appended to dst) for A = −U_k as
// lastRow left it: tridiagonal (sub, diag, sup) plus row[j] added to its
// last row. With L = d − 1, the first L columns of y·A = e_L give
// T'ᵀ·y' = −y_L·a (T' the leading tridiagonal block, a_j = A_{Lj}), so
// y' = −y_L·q with T'ᵀ·q = a, and the last column gives y_L.
func (ws *smallJobsWork) solveLast(dst []float64, d int) []float64 {
	L := d - 1
	// a_j = A_{L,j}, j < L: the extra row, plus the sub-diagonal entry at
	// j = L − 1.
	q, c := ws.q[:L], ws.c[:L]
	for j := range L {
		q[j] = ws.row[j]
	}
	q[L-1] += ws.sub[L]
	// T'ᵀ is tridiagonal with diagonal diag[j], sub-diagonal (j, j−1)
	// entry T'_{j−1,j} = sup[j−1] and super-diagonal (j, j+1) entry
	// T'_{j+1,j} = sub[j+1]: the Thomas algorithm, in place.
	for j := range L {
		den := ws.diag[j]
		if j > 0 {
			den -= ws.sup[j-1] * c[j-1]
			q[j] -= ws.sup[j-1] * q[j-1]
		}
		if j < L-1 {
			c[j] = ws.sub[j+1] / den
		}
		q[j] /= den
	}
	for j := L - 2; j >= 0; j-- {
		q[j] -= c[j] * q[j+1]
	}
	// The last column: y_{L−1}·A_{L−1,L} + y_L·A_{L,L} = 1, with
	// A_{L−1,L} = sup[L−1] and A_{L,L} = diag[L] + row[L] (the excursion
	// up may return to the phase it left).
	yL := 1 / (ws.diag[L] + ws.row[L] - q[L-1]*ws.sup[L-1])
	for j := range L {
		dst = append(dst, -yL*q[j])
	}
	return append(dst, yL)
}
