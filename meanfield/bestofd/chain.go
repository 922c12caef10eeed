package bestofd

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/farm"
)

// serverChain is one server's Markov chain, level by level (level n holds
// the states with n jobs). Arrivals move up one level, services down one.
type serverChain struct {
	M      int
	n      int     // states
	level  [][]int // state indices of each level
	pos    []int   // index of a state within its level
	lvl    []int   // level of each state
	arrTo  [][]int // arrival destinations of each state
	arrP   [][]float64
	svcTo  [][]int // service destinations
	svcR   [][]float64
	svcOut []float64 // total service rate of each state
	// ps describes a PS chain with H2 sizes (nil otherwise): the states of
	// level n are (n − j small, j giant) for j = 0..min(n, J), in order.
	ps *psChain
}

// psChain holds the parameters of a PS chain with H2 sizes.
type psChain struct {
	mu [2]float64 // service rates of a small and of a giant job alone
	ph [2]float64 // probabilities that an arrival is small, giant
	J  int        // most giants held (a giant arriving to J is lost); M if none
}

// newServerChain builds the chain for a discipline and size SCV (1:
// exponential; > 1: balanced-means H2) truncated at M jobs, and under PS
// at J giants if J > 0 (a giant arriving to a server holding J is lost: a
// self-loop, which the level-reduction solver does not support — such
// chains serve the stale-board map only).
func newServerChain(disc farm.Discipline, scv float64, M int, J ...int) *serverChain {
	giants := 0
	if len(J) > 0 {
		giants = J[0]
	}
	ch := &serverChain{M: M}
	switch {
	case scv == 1:
		ch.buildExp()
	case disc == farm.PS:
		ch.buildPS(scv, giants)
	default:
		ch.buildFCFS(scv)
	}
	ch.svcOut = make([]float64, ch.n)
	for s := range ch.n {
		for _, r := range ch.svcR[s] {
			ch.svcOut[s] += r
		}
	}
	return ch
}

// add appends a state to level and returns its index.
func (ch *serverChain) add(level int) int {
	s := ch.n
	ch.n++
	for len(ch.level) <= level {
		ch.level = append(ch.level, nil)
	}
	ch.pos = append(ch.pos, len(ch.level[level]))
	ch.level[level] = append(ch.level[level], s)
	ch.lvl = append(ch.lvl, level)
	ch.arrTo, ch.arrP = append(ch.arrTo, nil), append(ch.arrP, nil)
	ch.svcTo, ch.svcR = append(ch.svcTo, nil), append(ch.svcR, nil)
	return s
}

// buildExp builds the count chain of exponential sizes: state n holds n
// jobs.
func (ch *serverChain) buildExp() {
	M := ch.M
	for n := 0; n <= M; n++ {
		ch.add(n)
	}
	for n := 0; n <= M; n++ {
		if n < M {
			ch.arrTo[n], ch.arrP[n] = []int{n + 1}, []float64{1}
		}
		if n > 0 {
			ch.svcTo[n], ch.svcR[n] = []int{n - 1}, []float64{1}
		}
	}
}

// h2Rates returns the service rates (small, giant) of the balanced-means
// H2 law of SCV scv and the probabilities that a job is small or giant.
func h2Rates(scv float64) (mu, ph [2]float64) {
	p, giant, small := farm.H2Params(scv)
	return [2]float64{1 / small, 1 / giant}, [2]float64{1 - p, p}
}

// buildPS builds the PS chain with H2 sizes: state (i small, j giant) on
// level i + j, at most giants giants if giants > 0 (a giant arriving to a
// server holding that many is lost: a self-loop).
func (ch *serverChain) buildPS(scv float64, giants int) {
	M := ch.M
	mu, ph := h2Rates(scv)
	ch.ps = &psChain{mu: mu, ph: ph, J: M}
	if giants > 0 {
		ch.ps.J = min(giants, M)
	}
	idx := map[[2]int]int{}
	top := func(n int) int { // most giants at level n
		if giants > 0 {
			return min(n, giants)
		}
		return n
	}
	for n := 0; n <= M; n++ {
		for j := 0; j <= top(n); j++ {
			idx[[2]int{n - j, j}] = ch.add(n)
		}
	}
	for n := 0; n <= M; n++ {
		for j := 0; j <= top(n); j++ {
			i := n - j
			s := idx[[2]int{i, j}]
			if n < M {
				g, ok := idx[[2]int{i, j + 1}]
				if !ok {
					g = s // the giant is lost
				}
				ch.arrTo[s] = []int{idx[[2]int{i + 1, j}], g}
				ch.arrP[s] = []float64{ph[0], ph[1]}
			}
			if i > 0 {
				ch.svcTo[s] = append(ch.svcTo[s], idx[[2]int{i - 1, j}])
				ch.svcR[s] = append(ch.svcR[s], mu[0]*float64(i)/float64(n))
			}
			if j > 0 {
				ch.svcTo[s] = append(ch.svcTo[s], idx[[2]int{i, j - 1}])
				ch.svcR[s] = append(ch.svcR[s], mu[1]*float64(j)/float64(n))
			}
		}
	}
}

// newPSLevels builds the PS chain with H2 sizes, truncated at M jobs and
// J giants, as the period map reads it: its levels (level n holds the
// states (n − j, j), j = 0…min(n, J), at consecutive indices), the PS
// parameters and each state's total service rate, without the
// transitions that the level-reduction solver needs (the period map
// writes them out; at M = 3,632, J = 144 they would be about 100 MB).
func newPSLevels(scv float64, M, J int) *serverChain {
	mu, ph := h2Rates(scv)
	J = min(J, M)
	ch := &serverChain{M: M, ps: &psChain{mu: mu, ph: ph, J: J}}
	for n := 0; n <= M; n++ {
		st := make([]int, min(n, J)+1)
		for j := range st {
			st[j] = ch.n
			ch.n++
		}
		ch.level = append(ch.level, st)
	}
	ch.svcOut = make([]float64, ch.n)
	for n, st := range ch.level {
		for j, s := range st {
			// As buildPS sums them: the small jobs' rate, then the giants'.
			if i := n - j; i > 0 {
				ch.svcOut[s] += mu[0] * float64(i) / float64(n)
			}
			if j > 0 {
				ch.svcOut[s] += mu[1] * float64(j) / float64(n)
			}
		}
	}
	return ch
}

// buildFCFS builds the FCFS chain with H2 sizes: state 0 (empty), or
// (n ≥ 1 jobs, phase of the job in service).
func (ch *serverChain) buildFCFS(scv float64) {
	M := ch.M
	mu, ph := h2Rates(scv)
	empty := ch.add(0)
	idx := map[[2]int]int{}
	for n := 1; n <= M; n++ {
		for f := range 2 {
			idx[[2]int{n, f}] = ch.add(n)
		}
	}
	ch.arrTo[empty] = []int{idx[[2]int{1, 0}], idx[[2]int{1, 1}]}
	ch.arrP[empty] = []float64{ph[0], ph[1]}
	for n := 1; n <= M; n++ {
		for f := range 2 {
			s := idx[[2]int{n, f}]
			if n < M {
				ch.arrTo[s], ch.arrP[s] = []int{idx[[2]int{n + 1, f}]}, []float64{1}
			}
			if n == 1 {
				ch.svcTo[s], ch.svcR[s] = []int{empty}, []float64{mu[f]}
			} else {
				// The next job starts in phase g with probability ph[g].
				ch.svcTo[s] = []int{idx[[2]int{n - 1, 0}], idx[[2]int{n - 1, 1}]}
				ch.svcR[s] = []float64{mu[f] * ph[0], mu[f] * ph[1]}
			}
		}
	}
}

// levelSums writes the mass of each level.
func (ch *serverChain) levelSums(q, x []float64) {
	for n, states := range ch.level {
		q[n] = 0
		for _, s := range states {
			q[n] += x[s]
		}
	}
}

// flow writes dx = x·G for arrival rates a(level).
func (ch *serverChain) flow(dx, x, a []float64) {
	clear(dx)
	for s := range ch.n {
		xs := x[s]
		if xs == 0 {
			continue
		}
		if r := a[ch.lvl[s]]; r > 0 && len(ch.arrTo[s]) > 0 {
			dx[s] -= r * xs
			for k, t := range ch.arrTo[s] {
				dx[t] += r * xs * ch.arrP[s][k]
			}
		}
		dx[s] -= ch.svcOut[s] * xs
		for k, t := range ch.svcTo[s] {
			dx[t] += ch.svcR[s][k] * xs
		}
	}
}

// stationary writes the stationary distribution of the chain with arrival
// rates a(level), by linear level reduction (Gaver, Jacobs and Latouche,
// 1984): from the top level down, U_M = L_M and U_n = L_n + R_n·D_{n+1},
// R_{n−1} = −A_{n−1}·U_n⁻¹ (A: level n−1 → n, L: within a level, D: level
// n → n−1); then π_0·U_0 = 0 and π_n = π_{n−1}·R_{n−1}. Every block is
// small (at most M + 1 states), so the cost is O(M⁴) flops for PS and
// O(M) for FCFS.
func (ch *serverChain) stationary(pi, a []float64) error {
	M := ch.M
	size := func(n int) int { return len(ch.level[n]) }
	up := func(n int) *mat.Dense { // A_n: level n → n+1
		A := mat.NewDense(size(n), size(n+1), nil)
		for i, s := range ch.level[n] {
			for k, t := range ch.arrTo[s] {
				A.Set(i, ch.pos[t], A.At(i, ch.pos[t])+a[n]*ch.arrP[s][k])
			}
		}
		return A
	}
	local := func(n int) *mat.Dense { // L_n
		L := mat.NewDense(size(n), size(n), nil)
		for i, s := range ch.level[n] {
			out := ch.svcOut[s]
			if len(ch.arrTo[s]) > 0 {
				out += a[n]
			}
			L.Set(i, i, -out)
		}
		return L
	}
	down := func(n int) *mat.Dense { // D_n: level n → n−1
		D := mat.NewDense(size(n), size(n-1), nil)
		for i, s := range ch.level[n] {
			for k, t := range ch.svcTo[s] {
				D.Set(i, ch.pos[t], D.At(i, ch.pos[t])+ch.svcR[s][k])
			}
		}
		return D
	}
	R := make([]*mat.Dense, M) // R_n: level n → n+1 rate matrix of π
	U := local(M)
	for n := M; n >= 1; n-- {
		// R_{n−1} = −A_{n−1}·U_n⁻¹: solve U_nᵀ·Xᵀ = −A_{n−1}ᵀ.
		A := up(n - 1)
		var xt mat.Dense
		var negAt mat.Dense
		negAt.Scale(-1, A.T())
		if err := xt.Solve(U.T(), &negAt); err != nil {
			return fmt.Errorf("bestofd: level reduction at level %d: %w", n, err)
		}
		R[n-1] = mat.DenseCopyOf(xt.T())
		// U_{n−1} = L_{n−1} + R_{n−1}·D_n.
		var rd mat.Dense
		rd.Mul(R[n-1], down(n))
		U = local(n - 1)
		U.Add(U, &rd)
	}
	// Level 0: π_0·U_0 = 0 with π_0 > 0. Level 0 holds one state (the
	// empty server) in every chain built here.
	if size(0) != 1 {
		return errors.New("bestofd: level 0 must hold one state")
	}
	cur := mat.NewVecDense(1, []float64{1})
	pi[ch.level[0][0]] = 1
	total := 1.0
	for n := 1; n <= M; n++ {
		next := mat.NewVecDense(size(n), nil)
		next.MulVec(R[n-1].T(), cur)
		for i, s := range ch.level[n] {
			v := math.Max(next.AtVec(i), 0)
			pi[s] = v
			total += v
		}
		cur = next
	}
	if !(total > 0) || math.IsInf(total, 0) || math.IsNaN(total) {
		return fmt.Errorf("bestofd: stationary distribution not normalisable (total %v)", total)
	}
	for s := range pi {
		pi[s] /= total
	}
	return nil
}
