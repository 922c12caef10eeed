package farm

import "math"

// Split is the two-group view of a board: the servers split at a queue
// length Cut into a low group (board ≤ Cut, a fraction Low of the
// servers, mean LowMean) and a high group (the rest, mean HighMean). Gap
// is HighMean − LowMean, 0 for a board at one queue length.
type Split struct {
	Cut               int
	Low               float64
	LowMean, HighMean float64
	Gap               float64
}

// The split is broad: both groups hold at least MinGroup of the servers,
// and the top TrimTop of the servers count at the queue length below
// which the other 1 − TrimTop lie (the board is winsorised there). A herd
// is an imbalance of the whole farm, "not one bad server": one server
// of 100 with 3,200 extra jobs is avoided by every dispatcher and drains,
// and neither it nor a few like it may set the gap.
const (
	MinGroup = 0.1
	TrimTop  = 0.05
)

// TwoGroups is the broad split of a board distribution p (p[q] the
// fraction of servers holding q jobs; the masses need not sum to exactly
// 1) that maximises the variance between the groups,
// Low·(1 − Low)·(HighMean − LowMean)² (Otsu's threshold, "A threshold
// selection method from gray-level histograms", 1979), among the cuts
// that leave at least MinGroup of the servers on each side, with the top
// TrimTop of the servers winsorised. It costs two passes over p.
func TwoGroups(p []float64) Split {
	var mass float64
	for _, x := range p {
		mass += x
	}
	if !(mass > 0) {
		return Split{}
	}
	// The winsorised board: the mass above the (1 − TrimTop) quantile
	// counts at that quantile, top.
	top, cum := len(p)-1, 0.0
	for q, x := range p {
		if cum += x; cum >= (1-TrimTop)*mass {
			top = q
			break
		}
	}
	var first float64
	for q, x := range p[:top] {
		first += float64(q) * x
	}
	first += float64(top) * (mass - cum + p[top])
	var best Split
	bestVar := -1.0
	var w, m float64 // mass and first moment at or below the cut
	for c := 0; c < top; c++ {
		w += p[c]
		m += float64(c) * p[c]
		hi := mass - w
		if w < MinGroup*mass || hi < MinGroup*mass {
			continue
		}
		lo, up := m/w, (first-m)/hi
		if v := w * hi * (up - lo) * (up - lo); v > bestVar {
			bestVar = v
			best = Split{Cut: c, Low: w / mass, LowMean: lo, HighMean: up, Gap: up - lo}
		}
	}
	return best
}

// TipGap is the two-group gap (TwoGroups) above which a stale board with
// k dispatchers is herded, at refresh period T and load λ < 1:
//
//	max((1 − λ)·T, 3/(1 − λ)).
//
// The herd is the state in which the board's two groups swap every
// refresh: the dispatchers pile onto the group that looks short, and by
// the next refresh it is the long one. A gap survives to the next refresh
// only if the queues cannot drain it in one period: a server ahead of the
// others loses its excess at 1 − λ per service time once the dispatchers'
// top-up is over ("The Cliff Was a Trap Door"), so a gap below (1 − λ)·T
// closes before the board is read again. The balanced state has a gap of
// its own, the spread its noise keeps up, which grows like 1/(1 − λ):
// gap·(1 − λ) is 0.68–1.49 at the N → ∞ balanced fixed points (k = 1…10,
// λ = 0.7–0.95, T = 10–3,000) and stayed within 0.65–1.82 on simulated
// balanced boards of 100 and 800 servers (k = 1…5, λ = 0.8–0.9,
// T = 10–400); herds measured 4.7 to over 200. The second term, 3/(1 − λ),
// sits between them. The herded fixed point of k = 5, λ = 0.9 at T = 20
// (gap·(1 − λ) 2.4 in the map, 2.3–2.6 simulated) is the only state there
// and lies below it; its noise crosses it now and then.
func TipGap(period, load float64) float64 {
	return math.Max((1-load)*period, 3/(1-load))
}

// Herded reports whether the board distribution p is herded at refresh
// period T and load λ: its two-group gap (TwoGroups) exceeds TipGap(T, λ).
func Herded(p []float64, period, load float64) bool {
	return TwoGroups(p).Gap > TipGap(period, load)
}

// TipWatch follows the boards of a run, refresh by refresh, and says when
// it tips into the herd: at the second of two consecutive herded boards
// (Herded). One herded board is not enough: two dispatchers flip a
// half-loaded farm's imbalance at each refresh without growing it, so its
// gap survives the first period and then drains away (the farm recovers,
// as "The Cliff Was a Trap Door" found at every T from 5 to 300 with a
// backlog of 0.2·T), where the herd keeps its gap from refresh to
// refresh. The definition is shared by the theory (the N → ∞ board
// distributions along the map's orbits) and the simulator (the empirical
// board at each refresh after the start, or after a push), so that both
// call the same thing a tip. The herd never lets go (the map and every
// simulation agree), so the first tip is final.
//
// The zero TipWatch is not usable: set Period and Load.
type TipWatch struct {
	Period, Load float64
	last         bool // the last board seen was herded
}

// Next takes the board at the next refresh and reports whether the run
// has tipped there.
func (w *TipWatch) Next(p []float64) bool {
	h := Herded(p, w.Period, w.Load)
	tip := h && w.last
	w.last = h
	return tip
}

// Reset forgets the boards seen (a push lands: the board it leaves is
// not one the run arrived at).
func (w *TipWatch) Reset() { w.last = false }
