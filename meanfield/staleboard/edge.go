package staleboard

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/fixedpoint"
	"github.com/fluidlb/fluid/internal/parallel"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// DefaultFloor is the default EdgeSettings.Floor: the search for an edge
// stops at T(1−λ)² = 0.05, where a system still balanced reports no edge.
const DefaultFloor = 0.05

// EdgeSettings control Edge. Zero fields mean defaults.
type EdgeSettings struct {
	// Floor is the lowest scaled period T(1−λ)² searched. Default
	// DefaultFloor.
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
	// board tips (farm.TipWatch, the simulator's criterion too) after BelowIterations iterations, and the mean time in
	// system there, 20 periods later, is BelowSojourn (the herd's).
	Below           float64
	BelowTipped     bool
	BelowIterations int
	BelowSojourn    float64
}

// EdgeResult is the tipping edge of the stale board with k dispatchers at
// N → ∞.
//
// Its Status is EdgeFound once the edge is bracketed to RelTol, NoEdge
// when the balanced fixed point can be followed down to the floor (no
// edge, as for k = 2), and Interrupted when the Context was cancelled
// before the entry finished (the other fields are then those of the
// system alone). Evaluations counts the map evaluations (every one:
// solves, finite differences, spectra, the confirmation); Elapsed is the
// wall time.
type EdgeResult struct {
	outcome.Outcome
	System
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
	// point (the branch that ends); with unequal shares, the pass in
	// progress at T* of the dispatcher with the largest share.
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
	// Method is how the edge was located: EdgeRoot (the border collision
	// solved for), EdgeSearch (EdgeSettings.Search) or EdgeFallback (the
	// root path gave way to the search; Fallback says why).
	Method   EdgeMethod
	Fallback string

	// board is the balanced fixed point at Hi, where a finite-N search
	// continues from.
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
// system's k dispatchers at load λ: the lowest T down to which a stable
// balanced fixed point can be followed from long T, hopping to a
// coexisting branch where one ends. The end, a border collision, is
// solved for as a root (see the package documentation for the method and
// its cost); where that fails the search of fixedpoint.FollowEnd
// (continuation, hops to coexisting branches, a dynamic stability test,
// bisection) takes over, and EdgeResult.Method says which did. A state
// counts as balanced only if its board mean is within a factor 1.6 of the
// followed one (the herd multiplies it by 5 or more).
func Edge(sys *System, s *EdgeSettings) (*EdgeResult, error) {
	out, err := EdgeTable([]System{*sys}, s)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// interrupted is the result of an entry the Context stopped.
func interrupted(sys *System) *EdgeResult {
	r := &EdgeResult{System: *sys, Line: line(sys.K), Collision: math.NaN()}
	r.Status = outcome.Interrupted
	return r
}

// DefaultEdgeMaxPeriod is the default EdgeSettings.MaxPeriod: edges up to
// λ = 0.98 at k = 5.
const DefaultEdgeMaxPeriod = 20000

// edgeSettings checks an edge's system, fills in the settings' defaults
// and checks them.
func edgeSettings(sys *System, s *EdgeSettings) (*EdgeSettings, error) {
	if err := sys.Validate(); err != nil {
		return nil, err
	}
	if err := sys.checkEdgeChoices(); err != nil {
		return nil, err
	}
	set := EdgeSettings{}
	if s != nil {
		set = *s
	}
	set.Floor = param.Or(set.Floor, DefaultFloor)
	set.Top = param.Or(set.Top, 1.25*math.Max(line(sys.K), 0.5)+1)
	set.RelTol = param.Or(set.RelTol, 1e-4)
	set.MaxPeriod = param.Or(set.MaxPeriod, DefaultEdgeMaxPeriod)
	if err := set.checkRange(sys, 1); err != nil {
		return nil, err
	}
	evals := edgeEvaluations
	if set.Search {
		evals = searchEvaluations
	}
	if err := sys.checkWork("K", evals, set.Top/sys.Scale()); err != nil {
		return nil, err
	}
	if !(set.RelTol > 0 && set.RelTol < 1) {
		return nil, param.Errorf("RelTol", "%v, want a number in (0, 1)", set.RelTol)
	}
	if set.Workers < 0 {
		return nil, param.Errorf("Workers", "%d, want ≥ 0 (0: all cores)", set.Workers)
	}
	return &set, nil
}

// checkRange checks the periods a search of the system visits, from the
// floor up to reach times the top, against the settings' and the map's
// bounds.
func (set *EdgeSettings) checkRange(sys *System, reach float64) error {
	if err := param.Positive("Floor", set.Floor); err != nil {
		return err
	}
	if !(set.Top > set.Floor) || !param.Finite(set.Top) {
		return param.Errorf("Top", "search range [%v, %v] in T(1−λ)² is empty", set.Floor, set.Top)
	}
	if !(set.MaxPeriod > 0) || set.MaxPeriod > MaxPeriod {
		return param.Errorf("MaxPeriod", "%v, want 0 < T ≤ %v", set.MaxPeriod, MaxPeriod)
	}
	scale := sys.Scale()
	if T := set.Floor / scale; T < MinPeriod {
		return param.Errorf("Floor", "%v is T = %.3g at λ = %v, want T ≥ %v mean service times", set.Floor, T, sys.Load, MinPeriod)
	}
	if T := set.Top / scale; T > set.MaxPeriod {
		return param.Errorf("MaxPeriod", "the search for k = %d at λ = %v starts at T = %.4g, above the bound %v: the search cost grows faster than T (about T^1.1 per map evaluation, more evaluations at large T) (raise the bound to compute it anyway)", sys.K, sys.Load, T, set.MaxPeriod)
	}
	if T := reach * set.Top / scale; T > MaxPeriodPerLoad*sys.Load {
		return param.Errorf("Load", "λ = %v: the search for k = %d reaches T = %.4g, want T ≤ %g·λ = %.4g: at lighter loads the map's mean time in system is lost to rounding (its error is about 1.4e-16·T/λ)", sys.Load, sys.K, T, MaxPeriodPerLoad, MaxPeriodPerLoad*sys.Load)
	}
	return nil
}

// edgeEvaluations and searchEvaluations bound the map evaluations of an
// edge for the cost model (MaxWork): 75–130 by the root path (a gap or a
// hard collision adds a few solves), 600–1,400 by the search.
const (
	edgeEvaluations   = 150
	searchEvaluations = 1400
)

// line is the write-up's reference line 0.9(k − 2) for the edge in
// T(1−λ)².
func line(k int) float64 { return 0.9 * float64(k-2) }

// edge computes the N = ∞ edge of sys with settings already filled in.
func edge(sys *System, set *EdgeSettings) (*EdgeResult, error) {
	start := time.Now()
	scale := sys.Scale()
	res := &EdgeResult{System: *sys, Line: line(sys.K), Collision: math.NaN()}
	top, x0, evals, err := edgeTop(sys, set)
	res.Evaluations += evals
	if err != nil {
		return nil, err
	}
	run := newEdgeRun(sys, set, len(x0))
	end, err := run.locate(res, top, x0)
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
	r, err := run.newMap(end.Hi).Apply(end.X)
	if err != nil {
		return nil, err
	}
	res.Evaluations++
	res.BoardMean, res.Sojourn = r.BoardMean, r.Sojourn
	if sys.shares() != nil {
		// The search follows no border, so it names no piece: the branch
		// is the pass in progress at T* of the largest share's dispatcher
		// (MapResult.Pass), as fluid map reports it.
		res.Branch = r.Pass
	}
	res.board = end.X
	if set.Confirm && res.Status == outcome.EdgeFound {
		if res.Confirmation, evals, err = run.confirm(end); err != nil {
			return nil, err
		}
		res.Evaluations += evals
	}
	res.Evaluations += run.evals
	res.Elapsed = time.Since(start)
	return res, nil
}

// edgeTop sizes the support at the top of the search: the balanced fixed
// point there, from an empty board, raising the top until it is balanced.
// It returns the top's period, its fixed point padded to the support, and
// the map evaluations.
func edgeTop(sys *System, set *EdgeSettings) (float64, []float64, int, error) {
	load := sys.Load
	top := set.Top / ((1 - load) * (1 - load))
	// The root path only starts from the top's fixed point (every point it
	// reports is solved on its own); the search continues it, as before.
	topTol := 1e-10
	if !set.Search {
		topTol = rootTopTol
		if sys.Sizes.Kind != farm.Exponential && sys.shares() == nil {
			topTol = rootPhaseTopTol
		}
	}
	evals := 0
	for {
		board, sojourn, n, ok, err := topFixedPoint(sys, top, set, topTol)
		evals += n
		if err != nil {
			return 0, nil, evals, err
		}
		if ok && sojourn*(1-load) < 5 {
			n := max(2*support(board, 1e-18)+32, 64)
			return top, pad(board[:min(len(board), n)], n), evals, nil
		}
		if top > 1e6 {
			return 0, nil, evals, fmt.Errorf("staleboard: no balanced state found up to T = %g (k = %d, λ = %v)", top, sys.MapK(), load)
		}
		top *= 2
	}
}

// locate finds the end of the balanced branch below the top's fixed
// point x0: by the root path, the search, or the root path falling back
// on the search (res's Method and Fallback say which).
func (r *edgeRun) locate(res *EdgeResult, top float64, x0 []float64) (*fixedpoint.End, error) {
	set, scale := r.set, (1-r.load)*(1-r.load)
	endSettings := &fixedpoint.EndSettings{
		Hi:     top,
		X0:     x0,
		Lo:     set.Floor / scale,
		RelTol: set.RelTol,
		// The supports hold 100–1000 classes: Arnoldi on 24 Krylov vectors
		// gives the outer eigenvalues for 48 evaluations.
		Spectrum: &fixedpoint.SpectrumSettings{DenseLimit: 40, Krylov: 24},
	}
	if set.Search || r.sys.shares() != nil {
		// With unequal shares every dispatcher's pass border is a kink:
		// the search, which needs no border of its own.
		res.Method = EdgeSearch
		return fixedpoint.FollowEnd(r.family(), endSettings)
	}
	res.Method = EdgeRoot
	end, err := r.rootEdge(top, x0, set.Floor/scale, set.RelTol)
	if errors.Is(err, errNoRoot) {
		// The search, from the top.
		res.Method, res.Fallback = EdgeFallback, err.Error()
		return fixedpoint.FollowEnd(r.family(), endSettings)
	}
	return end, err
}

// confirm checks the edge end by direct iteration: above the edge from
// the followed (verified stable) fixed point nearest 1.01·T*, below it
// from the last one. It returns the confirmation and its map evaluations
// (those of confirmAbove's solves are the run's).
func (r *edgeRun) confirm(end *fixedpoint.End) (*EdgeConfirmation, int, error) {
	above, xa, err := r.confirmAbove(end)
	if err != nil {
		return nil, 0, err
	}
	c := &EdgeConfirmation{Above: above, Below: 0.99 * end.Hi}
	decay, evals, err := perturbationDecay(r.newMap(c.Above), xa)
	if err != nil {
		return nil, 0, err
	}
	c.AboveDecay, c.AboveOK = decay, decay < 0.5
	n, err := c.tipBelow(r.newMap(c.Below), r.load, end.X)
	return c, evals + n, err
}

// perturbationDecay iterates the map 100 times from the stable fixed
// point x perturbed by moving 1e-4 of mass one level up (a zero-sum
// perturbation, on the free support: no mass is cut), and returns the
// ‖·‖₁ distance from x after, relative to before, and the evaluations.
func perturbationDecay(mp *Map, x []float64) (float64, int, error) {
	p := append([]float64(nil), x...)
	for b := len(p) - 2; b >= 0; b-- {
		if p[b] > 1e-3 {
			p[b] -= 1e-4
			p[b+1] += 1e-4
			break
		}
	}
	d0 := l1(p, x)
	for range 100 {
		r, err := mp.Apply(p)
		if err != nil {
			return 0, 0, err
		}
		p = r.Next
	}
	return l1(p, x) / d0, 100, nil
}

// tipBelow iterates the map (at c.Below) from the last balanced fixed
// point x until the board tips into the herd (farm.TipWatch, the
// simulator's criterion too), within 5000 periods,
// and records the herd's mean time in system 20 periods later. It returns
// the evaluations.
func (c *EdgeConfirmation) tipBelow(mp *Map, load float64, x []float64) (int, error) {
	evals, q := 0, x
	watch := farm.TipWatch{Period: c.Below, Load: load}
	for it := 1; it <= 5000; it++ {
		r, err := mp.Apply(q)
		if err != nil {
			return evals, err
		}
		evals++
		q = r.Next
		if !watch.Next(mp.Counts(q)) { // the board: the count law of the state
			continue
		}
		c.BelowTipped, c.BelowIterations = true, it
		// Let the herd settle a little, then record its mean time.
		for range 20 {
			if r, err = mp.Apply(q); err != nil {
				return evals, err
			}
			evals++
			q = r.Next
		}
		c.BelowSojourn = r.Sojourn
		break
	}
	return evals, nil
}

// EdgeTable computes Edge for every system, on up to s.Workers
// goroutines. Results are in the order of systems whatever the number of
// workers: entries are computed independently (equal systems share one
// computation), so the numbers do not depend on it either. Every system
// is validated before any work starts. A cancelled Context keeps the
// entries finished before; the others end Interrupted.
func EdgeTable(systems []System, s *EdgeSettings) ([]*EdgeResult, error) {
	sets, err := edgeTableSettings(systems, s, 1)
	if err != nil {
		return nil, err
	}
	groups, order := groupSystems(systems)
	var run outcome.Run
	if s != nil {
		run = s.Run
	}
	var finished atomic.Int64
	out := make([]*EdgeResult, len(systems))
	err = parallel.For(len(groups), run.Workers, order, func(g int) error {
		first := groups[g][0]
		if err := sets[first].canceled(); err != nil {
			return err
		}
		r, err := edge(&systems[first], sets[first])
		if err != nil {
			return err
		}
		for _, i := range groups[g] {
			out[i] = r
			run.Report(finished.Add(1), int64(len(systems)), "")
		}
		return nil
	})
	if err != nil && !run.Stopped() {
		return nil, err
	}
	for i, r := range out {
		if r == nil {
			out[i] = interrupted(&systems[i])
		}
	}
	return out, nil
}

// edgeTableSettings validates every system (so that a bad entry anywhere
// in the list is named before the settings' bounds are checked entry by
// entry), then the settings for each, with the searches reaching reach
// times the top.
func edgeTableSettings(systems []System, s *EdgeSettings, reach float64) ([]*EdgeSettings, error) {
	for i := range systems {
		if err := systems[i].Validate(); err != nil {
			return nil, err
		}
	}
	sets := make([]*EdgeSettings, len(systems))
	for i := range systems {
		set, err := edgeSettings(&systems[i], s)
		if err != nil {
			return nil, err
		}
		if err := set.checkRange(&systems[i], reach); err != nil {
			return nil, err
		}
		sets[i] = set
	}
	return sets, nil
}

// groupSystems groups the entries of equal systems, in order of first
// appearance, and returns the groups and the order to compute them in:
// largest first (the cost grows with k and as (1 − λ)^−2), for better
// packing on the workers.
func groupSystems(systems []System) ([][]int, []int) {
	index := map[System]int{}
	var groups [][]int
	for i, s := range systems {
		g, ok := index[s]
		if !ok {
			g = len(groups)
			index[s] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	cost := func(g int) float64 {
		s := systems[groups[g][0]]
		return float64(s.MapK()) / s.Scale() * float64(len(groups[g]))
	}
	sort.SliceStable(order, func(a, b int) bool { return cost(order[a]) > cost(order[b]) })
	return groups, order
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
	sys   System       // the system of the maps
	sv    *phaseServer // its server chain (nil: exponential sizes)
	set   *EdgeSettings
	n     int
	maps  map[float64]*Map
	evals int
}

// newEdgeRun is the edge computation of sys on a support of n states.
func newEdgeRun(sys *System, set *EdgeSettings, n int) *edgeRun {
	r := &edgeRun{k: sys.MapK(), load: sys.Load, sys: *sys, set: set, n: n, maps: map[float64]*Map{}}
	r.sv = newModelMap(sys, 1).server
	return r
}

// newMap returns the system's map at period T.
func (r *edgeRun) newMap(T float64) *Map { return newModelMap(&r.sys, T) }

// board returns the board (the count law) of the map state x: x itself
// with exponential sizes, its count marginal otherwise.
func (r *edgeRun) board(x []float64) []float64 {
	if r.sv == nil {
		return x
	}
	c, _ := r.sv.counts(nil, x)
	return c
}

// mean is the board mean of the map state x.
func (r *edgeRun) mean(x []float64) float64 { return Mean(r.board(x)) }

// border is passBorder on the board of the map state x.
func (r *edgeRun) border(T float64, x []float64) (int, float64) {
	return passBorder(r.k, r.load, T, r.board(x))
}

// passEnd is passEnd on the board of the map state x.
func (r *edgeRun) passEnd(V int, x []float64) float64 {
	return passEnd(r.k, r.load, V, r.board(x))
}

// shift is shiftBoard on the map state x: with phases, the board shifted
// and lifted with fresh phases (a more loaded start), padded to x's
// length.
func (r *edgeRun) shift(x []float64, d int) []float64 {
	if r.sv == nil {
		return shiftBoard(x, d)
	}
	y := r.sv.lift(shiftBoard(r.board(x), d))
	if len(y) > len(x) {
		return y[:len(x)]
	}
	return pad(y, len(x))
}

// mapAt returns the board-only map at period T, built once.
func (r *edgeRun) mapAt(T float64) (*Map, error) {
	if m, ok := r.maps[T]; ok {
		return m, nil
	}
	if !(T > 0) || !param.Finite(T) {
		return nil, fmt.Errorf("staleboard: refresh period %v out of range", T)
	}
	m := r.newMap(T).boardOnly()
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
// visited once (the crossing maps move T with every evaluation). A probe
// evaluates the coarser probe map (probeMap).
func (r *edgeRun) fnUncached(T float64, probe bool) (fixedpoint.Func, error) {
	if !(T > 0) || !param.Finite(T) {
		return nil, fmt.Errorf("staleboard: refresh period %v out of range", T)
	}
	m := r.newMap(T).boardOnly()
	if probe {
		probeMap(m)
	}
	return r.support(m), nil
}

// Truncations of the probe maps: with job phases, the evaluations that
// only steer the root path (the top's fixed point, solved to
// rootPhaseTopTol, and the crossings of the ladder, to rootProbeTol) and
// the top's mean time in system cut the count law's
// top below probeTrimTol instead of 1e-20 and the Poisson tails of the
// passes at probePoissonTol instead of 1e-17. The mass they lose is
// counted (MapResult.Lost): about 1e-13 a period at k = 5, λ = 0.9 (T =
// 60 … 440), a hundredth of the support's limit (1e-12 at the top, 1e-10
// on the path) and far below the solves' tolerances (1e-4, 1e-5), so a
// probe lands where the full map's would to well within its tolerance;
// the results (collisions, the fixed point above, the spectrum) are solved
// with the full map. The triangular PS state space makes the top counts
// the dearest: the probes cost about a third less.
const (
	probeTrimTol    = 1e-15
	probePoissonTol = 1e-15
)

// probeMap makes the phase map m a probe map (exponential maps are left
// as they are: their window evolution is cheap at every T).
func probeMap(m *Map) {
	if m.server != nil {
		m.TrimTol, m.PoissonTol = probeTrimTol, probePoissonTol
	}
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
	var border func(T float64, x []float64) (int, float64)
	if r.sys.shares() == nil {
		border = func(T float64, x []float64) (int, float64) {
			// The branch V ends where t_{V+1} reaches T; crossing t_V only
			// continues the fixed point onto branch V − 1.
			return r.border(T, x)
		}
	}
	return &fixedpoint.Family{
		Map:   r.fn,
		Start: func(float64) []float64 { return pad([]float64{1}, r.n) },
		Same: func(prev, next []float64) bool {
			a, b := r.mean(prev), r.mean(next)
			return b < 1.6*a+1 && a < 1.6*b+1
		},
		Border: border,
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

// topFixedPoint is the balanced fixed point at T from an empty board (with
// job phases, from the exponential one), as FixedPoint solves it (Anderson
// to tol, 1e-10 in FixedPoint, on a support grown as soon as an
// evaluation loses more than 1e-12; by a probe map on the root path with
// phases),
// with every map evaluation counted and the context checked: the board,
// the mean time in system there (by the full map, by the probe map on the
// root path), the evaluations and whether the solve converged. The first
// map evaluation, which sizes the support, is the solve's first too.
func topFixedPoint(sys *System, T float64, set *EdgeSettings, tol float64) ([]float64, float64, int, bool, error) {
	evals := 0
	count := func() error {
		if err := set.canceled(); err != nil {
			return err
		}
		evals++
		return nil
	}
	fast := newModelMap(sys, T).boardOnly()
	probe := !set.Search && sys.shares() == nil && tol >= rootTopTol
	if probe {
		probeMap(fast)
	}
	if err := count(); err != nil {
		return nil, 0, evals, false, err
	}
	start := []float64{1}
	if fast.server != nil && sys.shares() == nil {
		// With job phases a period at long T costs a hundred times the
		// exponential one: the solve starts from the exponential map's
		// balanced fixed point at T, lifted with fresh phases (a warm
		// start for the same balanced state: 9 evaluations instead of
		// 11 for PS, SCV 4 at the top T = 437.5 of k = 5, λ = 0.9, for
		// 12 exponential ones costing a fiftieth), or from the empty
		// board if there is none.
		exp := *sys
		exp.Sizes, exp.Discipline = farm.Sizes{}, farm.FCFS
		b, _, n, ok, err := topFixedPoint(&exp, T, set, tol)
		if err != nil {
			return nil, 0, evals, false, err
		}
		evals += n
		if ok {
			start = fast.State(b)
		}
	}
	r, err := fast.Apply(start)
	if err != nil {
		return nil, 0, evals, false, err
	}
	n := max(2*support(r.Next, 1e-18)+32, 1)
	x := pad(start, n)
	// The solve's first evaluation is at x, Φ(start) padded: the one just
	// made (the map ignores the zeros past the board's top).
	first, x0 := r, x
	used := 0 // evaluations of the solves cut short
	for {
		// Strict, as in FixedPoint: a solve whose iterate outgrows the
		// support goes on from it on a longer one.
		sf := &supportFunc{m: fast, strict: n < maxFixedPointSupport}
		f := func(dst, x []float64) error {
			if first != nil && slices.Equal(x, x0) {
				r := first
				first = nil
				return sf.check(x, r, sf.take(dst, r))
			}
			first = nil
			if err := count(); err != nil {
				return err
			}
			return sf.eval(dst, x)
		}
		// The solves share 2,000 iterations, as in FixedPoint.
		res, err := fixedpoint.Solve(f, x, &fixedpoint.Settings{Method: fixedpoint.Anderson, Tol: tol, MaxIter: max(2000-used, 1), Simplex: true, Stagnation: 100})
		used += sf.nEval
		if errors.Is(err, errLeftSupport) {
			n = min(sf.grown, maxFixedPointSupport)
			x = pad(sf.lastIn, n)
			continue
		}
		if err != nil {
			return nil, 0, evals, false, err
		}
		if err := count(); err != nil {
			return nil, 0, evals, false, err
		}
		// The mean time in system only tells a balanced top from a herd
		// (a factor 5): on the root path the probe map's suffices.
		full := newModelMap(sys, T)
		if probe {
			probeMap(full)
		}
		fr, err := full.Apply(res.X)
		if err != nil {
			return nil, 0, evals, false, err
		}
		// A solve that lost more than 1e-12 at the longest support is not
		// the map's fixed point.
		return res.X, fr.Sojourn, evals, res.Status == outcome.Converged && sf.lost <= 1e-12, nil
	}
}
