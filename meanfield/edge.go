package meanfield

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
)

// EdgeSettings control Edge. Zero fields mean defaults.
type EdgeSettings struct {
	// Floor is the lowest scaled period T(1−λ)² searched. Default 0.05.
	Floor float64
	// Top is the scaled period where the search starts; the balanced
	// fixed point must exist there (it is doubled until it does). Default
	// 1.25·max(0.9(k−2), 0.5) + 1, above the seed's line by a margin wider
	// than the model's deviations from it.
	Top float64
	// RelTol is the relative width of the final bracket. Default 1e-4.
	RelTol float64
	// Confirm runs the dynamic confirmation (see EdgeConfirmation).
	Confirm bool
	// Progress, if not nil, is told of every fixed-point solve (T, found).
	Progress func(period float64, ok bool)
}

// EdgeConfirmation checks the edge by plain iteration of the map.
type EdgeConfirmation struct {
	// Above is a period just above T* (the followed fixed point nearest
	// 1.01·T*): a zero-sum perturbation (size 1e-4) of the balanced fixed
	// point there shrinks by AboveDecay after 100 iterations.
	Above      float64
	AboveDecay float64
	AboveOK    bool
	// Below is 0.99·T*: iterating from the last balanced fixed point, the
	// board mean leaves the balanced state (exceeds twice its value) after
	// BelowIterations iterations, and the mean time in system there is
	// BelowSojourn (the herd's).
	Below           float64
	BelowTipped     bool
	BelowIterations int
	BelowSojourn    float64
}

// EdgeResult is the tipping edge of the stale board with k dispatchers.
type EdgeResult struct {
	K    int
	Load float64
	// Found is false when the balanced fixed point can be followed down to
	// the floor (no edge, as for k = 2).
	Found bool
	// Period is T*, the lowest refresh period with a stable balanced fixed
	// point (followed from long T, hops between coexisting branches
	// allowed), and Scaled = T*(1−λ)². When !Found they are the floor.
	Period, Scaled float64
	// Lo and Hi bracket the edge in T: balanced fixed point at Hi, none
	// reachable at Lo.
	Lo, Hi float64
	// Collision is the T at which the last branch's border distance
	// t_{V+1} − T, extrapolated, reaches zero (NaN if not estimated).
	Collision float64
	// Branch is V, the pass in progress at T* on the last balanced fixed
	// point (the branch that ends).
	Branch int
	// Mechanism is how the branch ends: a border collision (the map is only
	// piecewise smooth) or an eigenvalue crossing.
	Mechanism fixedpoint.Mechanism
	// Leading is the leading eigenvalue of the map's Jacobian (zero-sum
	// perturbations) at the last stable fixed point, Radius its modulus.
	Leading complex128
	Radius  float64
	// BoardMean and Sojourn at the last balanced fixed point.
	BoardMean, Sojourn float64
	// Line is the seed's reference 0.9(k − 2).
	Line float64
	// Confirmation is set when EdgeSettings.Confirm is.
	Confirmation *EdgeConfirmation
	Evaluations  int
	Seconds      float64
}

// Edge computes the tipping edge T* of the refresh-period map for k
// dispatchers at load λ (SPEC §1.2): the lowest T down to which a stable
// balanced fixed point can be followed from long T. The balanced fixed
// point is followed with fixedpoint.FollowEnd (continuation, hops to
// coexisting branches, a dynamic stability test); a step counts as
// following the balanced state only if the board mean changes by less
// than a factor 1.6 (the herd multiplies it by 5 or more).
func Edge(k int, load float64, s *EdgeSettings) (*EdgeResult, error) {
	start := time.Now()
	if _, err := NewRefreshMap(k, load, 1); err != nil {
		return nil, err
	}
	set := EdgeSettings{}
	if s != nil {
		set = *s
	}
	line := 0.9 * float64(k-2)
	if set.Floor == 0 {
		set.Floor = 0.05
	}
	if set.Top == 0 {
		set.Top = 1.25*math.Max(line, 0.5) + 1
	}
	if set.RelTol == 0 {
		set.RelTol = 1e-4
	}
	if !(set.Floor > 0 && set.Top > set.Floor) || !param.Finite(set.Top) {
		return nil, param.Errorf("floor", "search range [%v, %v] in T(1−λ)² is empty", set.Floor, set.Top)
	}
	scale := (1 - load) * (1 - load)
	res := &EdgeResult{K: k, Load: load, Line: line, Collision: math.NaN()}

	// Size the support at the top: the balanced fixed point there, from an
	// empty board, raising the top until it is balanced.
	top := set.Top / scale
	var n int
	var x0 []float64
	for {
		m, err := NewRefreshMap(k, load, top)
		if err != nil {
			return nil, err
		}
		fp, err := m.FixedPoint([]float64{1}, nil)
		if err != nil {
			return nil, err
		}
		res.Evaluations += fp.Solve.Evaluations
		if fp.Solve.Status == fixedpoint.Converged && fp.Map.Sojourn*(1-load) < 5 {
			n = max(2*support(fp.Board, 1e-18)+32, 64)
			x0 = pad(fp.Board[:min(len(fp.Board), n)], n)
			break
		}
		if top > 1e6 {
			return nil, param.Errorf("load", "no balanced state found up to T = %g", top)
		}
		top *= 2
	}
	maps := map[float64]*RefreshMap{}
	mapAt := func(T float64) (*RefreshMap, error) {
		if m, ok := maps[T]; ok {
			return m, nil
		}
		m, err := NewRefreshMap(k, load, T)
		if err != nil {
			return nil, err
		}
		maps[T] = m
		return m, nil
	}
	boardMean := func(p []float64) float64 {
		var s float64
		for b, x := range p {
			s += float64(b) * x
		}
		return s
	}
	fam := &fixedpoint.Family{
		Map: func(T float64) (fixedpoint.Func, error) {
			m, err := mapAt(T)
			if err != nil {
				return nil, err
			}
			f := &supportFunc{m: m}
			return func(dst, x []float64) error {
				f.lost = 0
				if err := f.eval(dst, x); err != nil {
					return fmt.Errorf("%w: %v", fixedpoint.ErrDomain, err)
				}
				if f.lost > 1e-10 {
					// The state outgrew the support: far from balanced.
					return fmt.Errorf("%w: %.3g of the mass left the support", fixedpoint.ErrDomain, f.lost)
				}
				return nil
			}, nil
		},
		Start: func(float64) []float64 { return pad([]float64{1}, n) },
		Same: func(prev, next []float64) bool {
			a, b := boardMean(prev), boardMean(next)
			return b < 1.6*a+1 && a < 1.6*b+1
		},
		Border: func(T float64, x []float64) (int, float64) {
			m, err := mapAt(T)
			if err != nil {
				return 0, math.NaN()
			}
			r, err := m.Apply(x)
			if err != nil {
				return 0, math.NaN()
			}
			// The branch V ends where t_{V+1} reaches T; crossing t_V only
			// continues the fixed point onto branch V − 1.
			return r.Pass, r.PassEnd - T
		},
	}
	end, err := fixedpoint.FollowEnd(fam, &fixedpoint.EndSettings{
		Hi:       top,
		X0:       x0,
		Lo:       set.Floor / scale,
		RelTol:   set.RelTol,
		Progress: set.Progress,
		// The supports hold 100–1000 classes: Arnoldi on 24 Krylov vectors
		// gives the outer eigenvalues for 48 evaluations.
		Spectrum: &fixedpoint.SpectrumSettings{DenseLimit: 40, Krylov: 24},
	})
	if err != nil {
		return nil, err
	}
	res.Evaluations += end.Evaluations
	res.Found = end.Mechanism != fixedpoint.NoEnd
	res.Period, res.Lo, res.Hi = end.Hi, end.Lo, end.Hi
	res.Scaled = res.Period * scale
	res.Branch, res.Mechanism, res.Collision = end.Piece, end.Mechanism, end.Collision
	if end.Spectrum != nil {
		res.Leading, res.Radius = end.Spectrum.Leading, end.Spectrum.Radius
	}
	m, err := mapAt(end.Hi)
	if err != nil {
		return nil, err
	}
	r, err := m.Apply(end.X)
	if err != nil {
		return nil, err
	}
	res.BoardMean, res.Sojourn = r.BoardMean, r.Sojourn
	if set.Confirm && res.Found {
		// Above the edge, start from the followed (verified stable) fixed
		// point nearest 1.01·T*; below it, from the last one.
		above := end.Hi
		xa := end.X
		for _, sm := range end.Samples {
			if sm.OK && sm.Theta > end.Hi && (above == end.Hi || math.Abs(sm.Theta-1.01*end.Hi) < math.Abs(above-1.01*end.Hi)) {
				above, xa = sm.Theta, sm.X
			}
		}
		c, evals, err := confirmEdge(k, load, end.Hi, end.X, above, xa)
		if err != nil {
			return nil, err
		}
		res.Confirmation = c
		res.Evaluations += evals
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// confirmEdge checks the edge dynamically: at above (> edge) a zero-sum
// perturbation of the stable fixed point xa there decays; at 0.99·edge,
// iteration from x (the fixed point at the edge) leaves the balanced state.
func confirmEdge(k int, load, edge float64, x []float64, above float64, xa []float64) (*EdgeConfirmation, int, error) {
	c := &EdgeConfirmation{Above: above, Below: 0.99 * edge}
	evals := 0
	ma, err := NewRefreshMap(k, load, c.Above)
	if err != nil {
		return nil, 0, err
	}
	fp := struct{ X []float64 }{xa}
	// A zero-sum perturbation moving 1e-4 of mass one level up, iterated
	// on the free support (Apply), so no mass is cut.
	p := append([]float64(nil), fp.X...)
	for b := len(p) - 2; b >= 0; b-- {
		if p[b] > 1e-3 {
			p[b] -= 1e-4
			p[b+1] += 1e-4
			break
		}
	}
	dist := func(a, b []float64) float64 {
		var s float64
		for i := range max(len(a), len(b)) {
			s += math.Abs(entry(a, i) - entry(b, i))
		}
		return s
	}
	d0 := dist(p, fp.X)
	for range 100 {
		r, err := ma.Apply(p)
		if err != nil {
			return nil, 0, err
		}
		evals++
		p = r.Next
	}
	c.AboveDecay = dist(p, fp.X) / d0
	c.AboveOK = c.AboveDecay < 0.5
	// Below: iterate from the last balanced fixed point until the board
	// mean doubles (the herd), on a free support.
	mb, err := NewRefreshMap(k, load, c.Below)
	if err != nil {
		return nil, 0, err
	}
	var base float64
	for b, v := range x {
		base += float64(b) * v
	}
	q := x
	for it := 1; it <= 5000; it++ {
		r, err := mb.Apply(q)
		if err != nil {
			return nil, 0, err
		}
		evals++
		q = r.Next
		if r.BoardMean > 2*base+1 {
			c.BelowTipped, c.BelowIterations = true, it
			// Let the herd settle a little, then record its mean time.
			for range 20 {
				r, err = mb.Apply(q)
				if err != nil {
					return nil, 0, err
				}
				evals++
				q = r.Next
			}
			c.BelowSojourn = r.Sojourn
			break
		}
	}
	return c, evals, nil
}

// EdgeTable computes Edge for every k in ks and λ in loads, on up to
// workers goroutines (≤ 0: GOMAXPROCS). Results are in row-major order
// (loads outer, ks inner) whatever the number of workers: each entry is
// computed independently, so the numbers do not depend on it either.
// done, if not nil, is called (from the worker goroutines) after each
// entry.
func EdgeTable(ks []int, loads []float64, s *EdgeSettings, workers int, done func()) ([]*EdgeResult, error) {
	type job struct {
		i    int
		k    int
		load float64
	}
	var jobs []job
	for _, l := range loads {
		for _, k := range ks {
			jobs = append(jobs, job{len(jobs), k, l})
		}
	}
	// Largest first (cost grows with k and with λ): better packing.
	order := make([]job, len(jobs))
	copy(order, jobs)
	sort.SliceStable(order, func(a, b int) bool {
		ca := float64(order[a].k) / ((1 - order[a].load) * (1 - order[a].load))
		cb := float64(order[b].k) / ((1 - order[b].load) * (1 - order[b].load))
		return ca > cb
	})
	perm := make([]int, len(order))
	for i, j := range order {
		perm[i] = j.i
	}
	out := make([]*EdgeResult, len(jobs))
	err := parallel.For(len(jobs), workers, perm, func(i int) error {
		var err error
		out[i], err = Edge(jobs[i].k, jobs[i].load, s)
		if done != nil {
			done()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
