package farm

import "math"

// Split is the two-group view of a board: the servers split at a queue
// length Cut into a low group (board ≤ Cut, a fraction Low of the
// servers, mean LowMean) and a high group (the rest, mean HighMean), the
// split that maximises the variance between the groups,
// Low·(1 − Low)·(HighMean − LowMean)² (Otsu's threshold, "A threshold
// selection method from gray-level histograms", 1979). Gap is
// HighMean − LowMean, 0 for a board at one queue length.
type Split struct {
	Cut               int
	Low               float64
	LowMean, HighMean float64
	Gap               float64
}

// TwoGroups is the split of a board distribution p (p[q] the fraction of
// servers holding q jobs; the masses need not sum to exactly 1). It costs
// one pass over p.
func TwoGroups(p []float64) Split {
	var mass, first float64
	for q, x := range p {
		mass += x
		first += float64(q) * x
	}
	var best Split
	bestVar := 0.0
	var w, m float64 // mass and first moment at or below the cut
	for c := 0; c+1 < len(p); c++ {
		w += p[c]
		m += float64(c) * p[c]
		hi := mass - w
		if w <= 0 || hi <= 0 {
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

// TipGap is the two-group gap above which a stale board with k
// dispatchers has tipped into the herd, at refresh period T and load
// λ < 1:
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
// its own, the spread its noise keeps up, which grows like 1/(1 − λ): in
// simulations of 100 and 800 servers (k = 1…5, λ = 0.8–0.9, T = 10–2,000,
// balanced boards, no herd) the gap times (1 − λ) stayed within
// 0.6–1.9, and the N → ∞ balanced fixed points are within that range
// too; herds measured 2.3 (the herded fixed point of k = 5, λ = 0.9 at
// T = 20, counted as herded by neither definition) and 4.7 to 70 and
// more. The second term, 3/(1 − λ), sits between them.
//
// The definition is shared by the theory (the N → ∞ board distribution
// along the map's orbits, Tipped) and the simulator (the empirical board
// at each refresh), so that both call the same thing a tip. A run has
// tipped at the first refresh after the start whose gap exceeds it; the
// herd never lets go (the map and every simulation agree), so the first
// crossing is final.
func TipGap(period, load float64) float64 {
	return math.Max((1-load)*period, 3/(1-load))
}

// Tipped reports whether the board distribution p has tipped into the
// herd at refresh period T and load λ: its two-group gap (TwoGroups)
// exceeds TipGap(T, λ).
func Tipped(p []float64, period, load float64) bool {
	return TwoGroups(p).Gap > TipGap(period, load)
}
