package staleboard

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// EdgeSettings control Edge. Zero fields mean defaults.
type EdgeSettings struct {
	// Floor is the lowest scaled period T(1−λ)² searched. Default 0.05.
	Floor float64
	// Top is the scaled period where the search starts; the balanced
	// fixed point must exist there (it is doubled until it does). Default
	// 1.25·max(0.9(k−2), 0.5) + 1, above the rule-of-thumb line by a margin wider
	// than the model's deviations from it.
	Top float64
	// RelTol is the relative width of the final bracket. Default 1e-4.
	RelTol float64
	// Confirm runs the dynamic confirmation (see EdgeConfirmation) of an
	// N = ∞ edge.
	Confirm bool
	// Horizon is H, the refresh periods within which a finite system must
	// tip for the finite-N edge (Model.Servers > 0). Default
	// DefaultHorizon.
	Horizon int
	// MaxPeriod bounds the refresh periods the search may visit, in T:
	// the search cost grows faster than T, so an edge whose search starts above
	// it (λ close to 1: T* ≈ 0.9(k−2)/(1−λ)²) is refused before any work
	// instead of running for hours. Default DefaultEdgeMaxPeriod; at most
	// MaxPeriod.
	MaxPeriod float64
	// Search locates the N = ∞ edge by fixedpoint.FollowEnd's search
	// (continuation and bisection to RelTol) instead of solving for the
	// border collision (the package documentation describes both). The
	// search is what the root falls back on; it costs five to ten times
	// the map evaluations, and is kept for comparison.
	Search bool
	// Run: Workers is the number of entries EdgeTable computes at once
	// (default GOMAXPROCS; results do not depend on it). Progress is told
	// of every finished entry: the entries finished and their number, from
	// several goroutines at once. A cancelled Context stops the
	// computation within a map evaluation: the entries not finished end
	// with Status Interrupted (EdgeTable keeps those finished before).
	outcome.Run
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
	// board tips (its mean exceeds farm.TipThreshold, the simulator's
	// criterion too) after BelowIterations iterations, and the mean time in
	// system there, 20 periods later, is BelowSojourn (the herd's).
	Below           float64
	BelowTipped     bool
	BelowIterations int
	BelowSojourn    float64
}

// EdgeResult is the tipping edge of the stale board with k dispatchers.
//
// Its Status is EdgeFound once the edge is bracketed to RelTol, NoEdge
// when the balanced fixed point can be followed down to the floor (no
// edge, as for k = 2), AboveRange (finite N only) when the tipping
// probability stays ≥ ½ over the whole search, and Interrupted when the
// Context was cancelled before the entry finished (the other fields are
// then those of the model alone). Evaluations counts the map evaluations
// (every one: solves, finite differences, spectra, the confirmation);
// Elapsed is the wall time.
type EdgeResult struct {
	outcome.Outcome
	K     int
	Load  float64
	Tally Tally
	// Period is T*, the lowest refresh period with a stable balanced fixed
	// point (followed from long T, hops between coexisting branches
	// allowed), and Scaled = T*(1−λ)². With NoEdge they are the floor.
	Period, Scaled float64
	// Lo and Hi bracket the edge in T: balanced fixed point at Hi, none
	// reachable at Lo.
	Lo, Hi float64
	// Collision is the T at which the last branch's border distance
	// t_{V+1} − T reaches zero: solved for by the root path, extrapolated
	// by the search (NaN if not estimated).
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
	// Line is the rule-of-thumb reference 0.9(k − 2).
	Line float64
	// Confirmation is set when EdgeSettings.Confirm is.
	Confirmation *EdgeConfirmation
	// Method is how the N = ∞ edge was located: EdgeRoot (the border
	// collision solved for), EdgeSearch (EdgeSettings.Search) or
	// EdgeFallback (the root path gave way to the search; Fallback says
	// why).
	Method   EdgeMethod
	Fallback string

	// Servers and Horizon are the model's N and the settings' horizon H
	// for a finite-N edge (zero for N = ∞). Its Period and Scaled are then
	// T*(N, H), where a system of N servers started balanced tips within H
	// refresh periods with probability ½ (see TipProbability); Lo and Hi
	// bracket it (probability ≥ ½ at Lo, < ½ at Hi); Infinite is the
	// N = ∞ edge the search starts from; Escapes counts the escape analyses
	// (see Escape) the search computed or shared. The fields that describe
	// the ending branch (Branch, Mechanism, Leading, …) belong to the
	// N = ∞ edge and are left zero. Status is NoEdge when P < ½ already
	// at the floor (no edge at N either), AboveRange when P stays ≥ ½ over
	// the whole search (Period and Lo are then a lower bound).
	Servers, Horizon int
	Infinite         *EdgeResult
	Escapes          int

	// board is the balanced fixed point at Hi (N = ∞), where a finite-N
	// search continues from.
	board []float64
}

// EdgeMethod says how an N = ∞ edge was located.
type EdgeMethod string

const (
	// EdgeRoot: the balanced state's crossings of the pass borders and
	// its border collision solved for as fixed points of the crossing
	// maps (the root path).
	EdgeRoot EdgeMethod = "root"
	// EdgeSearch: fixedpoint.FollowEnd's search (EdgeSettings.Search).
	EdgeSearch EdgeMethod = "search"
	// EdgeFallback: the root path could not end the branch at a border
	// collision, and the search took over from the top.
	EdgeFallback EdgeMethod = "fallback"
)

// Edge computes the tipping edge T* of the refresh-period map for the
// model's k dispatchers at load λ (its Period must be 0: the edge is a
// period): the lowest T down to which a stable balanced fixed point can be
// followed from long T, hopping to a coexisting branch where one ends.
// The end, a border collision, is solved for as a root (see the package
// documentation for the method and its cost); where that fails the search
// of fixedpoint.FollowEnd (continuation, hops to coexisting branches, a
// dynamic stability test, bisection) takes over, and EdgeResult.Method
// says which did. A state counts as balanced only if its board mean is
// within a factor 1.6 of the followed one (the herd multiplies it by 5 or
// more).
func Edge(m *Model, s *EdgeSettings) (*EdgeResult, error) {
	set, err := edgeSettings(m, s)
	if err != nil {
		return nil, err
	}
	out := make([]*EdgeResult, 1)
	err = edgeGroup([]Model{*m}, []int{0}, set, out, func(int) { set.Report(1, 1, "") })
	if err != nil && set.Stopped() {
		return interrupted(m, set), nil
	}
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// interrupted is the result of an entry the Context stopped.
func interrupted(m *Model, set *EdgeSettings) *EdgeResult {
	r := &EdgeResult{K: m.K, Load: m.Load, Tally: m.Tally, Line: line(m.K), Collision: math.NaN()}
	r.Status = outcome.Interrupted
	if m.Servers > 0 {
		r.Servers, r.Horizon = m.Servers, set.Horizon
	}
	return r
}

// DefaultEdgeMaxPeriod is the default EdgeSettings.MaxPeriod: edges up to
// λ = 0.98 at k = 5.
const DefaultEdgeMaxPeriod = 20000

// edgeSettings checks an edge's model (which takes no period), fills in
// the settings' defaults and checks them.
func edgeSettings(m *Model, s *EdgeSettings) (*EdgeSettings, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Period != 0 {
		return nil, param.Errorf("Period", "T = %v: the edge is a refresh period, leave Period 0", m.Period)
	}
	set := EdgeSettings{}
	if s != nil {
		set = *s
	}
	set.Floor = param.Or(set.Floor, 0.05)
	set.Horizon = param.Or(set.Horizon, DefaultHorizon)
	if set.Horizon < 1 || set.Horizon > MaxHorizon {
		return nil, param.Errorf("Horizon", "%d refresh periods, want 1..%d", set.Horizon, MaxHorizon)
	}
	set.Top = param.Or(set.Top, 1.25*math.Max(line(m.K), 0.5)+1)
	set.RelTol = param.Or(set.RelTol, 1e-4)
	if err := param.Positive("Floor", set.Floor); err != nil {
		return nil, err
	}
	if !(set.Top > set.Floor) || !param.Finite(set.Top) {
		return nil, param.Errorf("Top", "search range [%v, %v] in T(1−λ)² is empty", set.Floor, set.Top)
	}
	set.MaxPeriod = param.Or(set.MaxPeriod, DefaultEdgeMaxPeriod)
	if !(set.MaxPeriod > 0) || set.MaxPeriod > MaxPeriod {
		return nil, param.Errorf("MaxPeriod", "%v, want 0 < T ≤ %v", set.MaxPeriod, MaxPeriod)
	}
	if T := set.Floor / m.Scale(); T < MinPeriod {
		return nil, param.Errorf("Floor", "%v is T = %.3g at λ = %v, want T ≥ %v mean service times", set.Floor, T, m.Load, MinPeriod)
	}
	if T := set.Top / m.Scale(); T > set.MaxPeriod {
		return nil, param.Errorf("MaxPeriod", "the search for k = %d at λ = %v starts at T = %.4g, above the bound %v: the search cost grows faster than T (about T^1.1 per map evaluation, more evaluations at large T) (raise the bound to compute it anyway)", m.K, m.Load, T, set.MaxPeriod)
	}
	if !(set.RelTol > 0 && set.RelTol < 1) {
		return nil, param.Errorf("RelTol", "%v, want a number in (0, 1)", set.RelTol)
	}
	if set.Workers < 0 {
		return nil, param.Errorf("Workers", "%d, want ≥ 0 (0: all cores)", set.Workers)
	}
	return &set, nil
}

// line is the write-up's reference line 0.9(k − 2) for the edge in
// T(1−λ)².
func line(k int) float64 { return 0.9 * float64(k-2) }

// edge computes the N = ∞ edge of mod with settings already filled in.
func edge(mod *Model, set *EdgeSettings) (*EdgeResult, error) {
	start := time.Now()
	k, load := mod.MapK(), mod.Load
	line := line(mod.K)
	scale := (1 - load) * (1 - load)
	res := &EdgeResult{K: mod.K, Load: load, Tally: mod.Tally, Line: line, Collision: math.NaN()}

	// Size the support at the top: the balanced fixed point there, from an
	// empty board, raising the top until it is balanced.
	top := set.Top / scale
	// The root path only starts from the top's fixed point (every point it
	// reports is solved on its own); the search continues it, as before.
	topTol := 1e-10
	if !set.Search {
		topTol = rootTopTol
	}
	var n int
	var x0 []float64
	for {
		board, sojourn, evals, ok, err := topFixedPoint(k, load, top, set, topTol)
		res.Evaluations += evals
		if err != nil {
			return nil, err
		}
		if ok && sojourn*(1-load) < 5 {
			n = max(2*support(board, 1e-18)+32, 64)
			x0 = pad(board[:min(len(board), n)], n)
			break
		}
		if top > 1e6 {
			return nil, fmt.Errorf("staleboard: no balanced state found up to T = %g (k = %d, λ = %v)", top, k, load)
		}
		top *= 2
	}
	run := &edgeRun{k: k, load: load, set: set, n: n, maps: map[float64]*Map{}}
	fam := run.family()
	endSettings := func(hi float64, x []float64) *fixedpoint.EndSettings {
		return &fixedpoint.EndSettings{
			Hi:     hi,
			X0:     x,
			Lo:     set.Floor / scale,
			RelTol: set.RelTol,
			// The supports hold 100–1000 classes: Arnoldi on 24 Krylov vectors
			// gives the outer eigenvalues for 48 evaluations.
			Spectrum: &fixedpoint.SpectrumSettings{DenseLimit: 40, Krylov: 24},
		}
	}
	var end *fixedpoint.End
	var err error
	if set.Search {
		res.Method = EdgeSearch
		end, err = fixedpoint.FollowEnd(fam, endSettings(top, x0))
	} else {
		res.Method = EdgeRoot
		end, err = run.rootEdge(top, x0, set.Floor/scale, set.RelTol)
		if errors.Is(err, errNoRoot) {
			// The search, from the top.
			res.Method, res.Fallback = EdgeFallback, err.Error()
			end, err = fixedpoint.FollowEnd(fam, endSettings(top, x0))
		}
	}
	if err != nil {
		return nil, err
	}
	res.Status = outcome.EdgeFound
	if end.Mechanism == fixedpoint.NoEnd {
		res.Status = outcome.NoEdge
	}
	res.Period, res.Lo, res.Hi = end.Hi, end.Lo, end.Hi
	res.Scaled = res.Period * scale
	res.Branch, res.Mechanism, res.Collision = end.Piece, end.Mechanism, end.Collision
	if end.Spectrum != nil {
		res.Leading, res.Radius = end.Spectrum.Leading, end.Spectrum.Radius
	}
	if err := set.canceled(); err != nil {
		return nil, err
	}
	r, err := newMap(k, load, end.Hi).Apply(end.X)
	if err != nil {
		return nil, err
	}
	res.Evaluations++
	res.BoardMean, res.Sojourn = r.BoardMean, r.Sojourn
	res.board = end.X
	if set.Confirm && res.Status == outcome.EdgeFound {
		// Above the edge, start from the followed (verified stable) fixed
		// point nearest 1.01·T*; below it, from the last one.
		above, xa, err := run.confirmAbove(end)
		if err != nil {
			return nil, err
		}
		c, evals, err := confirmEdge(k, load, end.Hi, end.X, above, xa)
		if err != nil {
			return nil, err
		}
		res.Confirmation = c
		res.Evaluations += evals
	}
	res.Evaluations += run.evals
	res.Elapsed = time.Since(start)
	return res, nil
}

// confirmEdge checks the edge dynamically: at above (> edge) a zero-sum
// perturbation of the stable fixed point xa there decays; at 0.99·edge,
// iteration from x (the fixed point at the edge) leaves the balanced state.
func confirmEdge(k int, load, edge float64, x []float64, above float64, xa []float64) (*EdgeConfirmation, int, error) {
	c := &EdgeConfirmation{Above: above, Below: 0.99 * edge}
	evals := 0
	ma := newMap(k, load, c.Above)
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
	// tips into the herd, on a free support.
	mb := newMap(k, load, c.Below)
	thr := farm.TipThreshold(c.Below, load)
	q := x
	for it := 1; it <= 5000; it++ {
		r, err := mb.Apply(q)
		if err != nil {
			return nil, 0, err
		}
		evals++
		q = r.Next
		if r.BoardMean > thr {
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

// EdgeTable computes Edge for every model, on up to s.Workers goroutines.
// Results are in the order of models whatever the number of workers:
// entries are computed independently (finite-N entries of the same k, λ
// and tally share one search, run by one goroutine), so the numbers do
// not depend on it either. Every model is validated before any work
// starts.
func EdgeTable(models []Model, s *EdgeSettings) ([]*EdgeResult, error) {
	// Every model first, so that a bad entry anywhere in the list is
	// named before the settings' bounds are checked entry by entry.
	for i := range models {
		if err := models[i].Validate(); err != nil {
			return nil, err
		}
	}
	sets := make([]*EdgeSettings, len(models))
	for i := range models {
		set, err := edgeSettings(&models[i], s)
		if err != nil {
			return nil, err
		}
		sets[i] = set
	}
	// Group the entries by everything but N, in order of first appearance.
	type key struct {
		k     int
		load  float64
		tally Tally
	}
	index := map[key]int{}
	var groups [][]int
	for i, m := range models {
		kk := key{m.K, m.Load, m.Tally}
		g, ok := index[kk]
		if !ok {
			g = len(groups)
			index[kk] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	// Largest first (cost grows with k and with λ): better packing.
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	cost := func(g int) float64 {
		m := models[groups[g][0]]
		return float64(m.MapK()) / m.Scale() * float64(len(groups[g]))
	}
	sort.SliceStable(order, func(a, b int) bool { return cost(order[a]) > cost(order[b]) })
	var run outcome.Run
	if s != nil {
		run = s.Run
	}
	var finished atomic.Int64
	report := func(int) { run.Report(finished.Add(1), int64(len(models)), "") }
	out := make([]*EdgeResult, len(models))
	err := parallel.For(len(groups), run.Workers, order, func(g int) error {
		if err := sets[groups[g][0]].canceled(); err != nil {
			return err
		}
		return edgeGroup(models, groups[g], sets[groups[g][0]], out, report)
	})
	if err != nil && !run.Stopped() {
		return nil, err
	}
	// Cancelled: the entries finished before are kept; the others end
	// Interrupted.
	for i, r := range out {
		if r == nil {
			out[i] = interrupted(&models[i], sets[i])
		}
	}
	return out, nil
}

// canceled is the settings' context's error, if it is done.
func (s *EdgeSettings) canceled() error {
	if s.Context == nil {
		return nil
	}
	return s.Context.Err()
}

// edgeRun is one N = ∞ edge computation: its maps (one per period,
// computing the next board only) on a fixed support of n classes, and the
// count of every map evaluation made through them.
type edgeRun struct {
	k     int
	load  float64
	set   *EdgeSettings
	n     int
	maps  map[float64]*Map
	evals int
}

// mapAt returns the board-only map at period T, built once.
func (r *edgeRun) mapAt(T float64) (*Map, error) {
	if m, ok := r.maps[T]; ok {
		return m, nil
	}
	if !(T > 0) || !param.Finite(T) {
		return nil, fmt.Errorf("staleboard: refresh period %v out of range", T)
	}
	m := newMap(r.k, r.load, T).boardOnly()
	r.maps[T] = m
	return m, nil
}

// fn returns Φ_T on the support as a fixedpoint.Func: it checks the
// context, counts the evaluation, and reports a state that outgrew the
// support as out of the domain.
func (r *edgeRun) fn(T float64) (fixedpoint.Func, error) {
	m, err := r.mapAt(T)
	if err != nil {
		return nil, err
	}
	return r.support(m), nil
}

// fnUncached is fn with a map of its own, not kept: for the periods
// visited once (the crossing maps move T with every evaluation).
func (r *edgeRun) fnUncached(T float64) (fixedpoint.Func, error) {
	if !(T > 0) || !param.Finite(T) {
		return nil, fmt.Errorf("staleboard: refresh period %v out of range", T)
	}
	return r.support(newMap(r.k, r.load, T).boardOnly()), nil
}

// support is the map m on the run's support, as fn describes.
func (r *edgeRun) support(m *Map) fixedpoint.Func {
	f := &supportFunc{m: m}
	return func(dst, x []float64) error {
		if err := r.set.canceled(); err != nil {
			return err
		}
		r.evals++
		f.lost = 0
		if err := f.eval(dst, x); err != nil {
			return fmt.Errorf("%w: %v", fixedpoint.ErrDomain, err)
		}
		if f.lost > 1e-10 {
			// The state outgrew the support: far from balanced.
			return fmt.Errorf("%w: %.3g of the mass left the support", fixedpoint.ErrDomain, f.lost)
		}
		return nil
	}
}

// family is the balanced fixed point's family in T, for fixedpoint.
func (r *edgeRun) family() *fixedpoint.Family {
	return &fixedpoint.Family{
		Map:   r.fn,
		Start: func(float64) []float64 { return pad([]float64{1}, r.n) },
		Same: func(prev, next []float64) bool {
			a, b := Mean(prev), Mean(next)
			return b < 1.6*a+1 && a < 1.6*b+1
		},
		Border: func(T float64, x []float64) (int, float64) {
			// The branch V ends where t_{V+1} reaches T; crossing t_V only
			// continues the fixed point onto branch V − 1.
			return passBorder(r.k, r.load, T, x)
		},
	}
}

// passBorder returns V, the pass in progress at T for the board x (the
// schedule of Map.Apply: L_v = k·F(v)/λ, t_{v+1} = t_v + L_v), and the
// border distance t_{V+1} − T. It needs no map evaluation.
func passBorder(k int, load, T float64, x []float64) (int, float64) {
	v, t, L := walkPasses(k, load, x, func(v int, t, L float64, past bool) bool {
		return t+L >= T || (L == 0 && past)
	})
	return v, t + L - T
}

// passEnd returns t_{V+1} for the board x: the end of pass V, computed as
// Map.schedule does (so that Φ at T = passEnd has pass V in progress and
// just complete: the border between branches V and V + 1).
func passEnd(k int, load float64, V int, x []float64) float64 {
	if V < 0 {
		return 0
	}
	_, t, L := walkPasses(k, load, x, func(v int, _, _ float64, _ bool) bool { return v >= V })
	return t + L
}

// walkPasses is walkSchedule on the board x, with its top class and mass
// found here.
func walkPasses(k int, load float64, x []float64, stop func(v int, t, L float64, past bool) bool) (int, float64, float64) {
	var mass float64
	for _, v := range x {
		mass += v
	}
	return walkSchedule(k, load, x, boardTop(x), mass, stop)
}

// topFixedPoint is the balanced fixed point at T from an empty board, as
// FixedPoint solves it (Anderson to tol, 1e-10 in FixedPoint, on a support
// doubled until the truncation loses less than 1e-12), with every map
// evaluation counted and the context checked: the board, the mean time in
// system there, the evaluations and whether the solve converged.
func topFixedPoint(k int, load, T float64, set *EdgeSettings, tol float64) ([]float64, float64, int, bool, error) {
	evals := 0
	count := func() error {
		if err := set.canceled(); err != nil {
			return err
		}
		evals++
		return nil
	}
	fast := newMap(k, load, T).boardOnly()
	if err := count(); err != nil {
		return nil, 0, evals, false, err
	}
	r, err := fast.Apply([]float64{1})
	if err != nil {
		return nil, 0, evals, false, err
	}
	n := max(2*support(r.Next, 1e-18)+32, 1)
	x := pad([]float64{1}, n)
	for {
		sf := &supportFunc{m: fast}
		f := func(dst, x []float64) error {
			if err := count(); err != nil {
				return err
			}
			return sf.eval(dst, x)
		}
		res, err := fixedpoint.Solve(f, x, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: tol, MaxIter: 2000, Simplex: true, Stagnation: 100})
		if err != nil {
			return nil, 0, evals, false, err
		}
		if res.Status == outcome.Converged && sf.lost > 1e-12 && n < 1<<16 {
			n *= 2
			x = pad(res.X, n)
			continue
		}
		if err := count(); err != nil {
			return nil, 0, evals, false, err
		}
		full, err := newMap(k, load, T).Apply(res.X)
		if err != nil {
			return nil, 0, evals, false, err
		}
		return res.X, full.Sojourn, evals, res.Status == outcome.Converged, nil
	}
}
