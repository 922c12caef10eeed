package staleboard

import (
	"math"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Mechanism is the trap door's mechanism at one board, as numbers: how
// spread out the board is, and how a difference between two groups of
// servers comes back one refresh later. "The Cliff Was a Trap Door"
// pictures it so: every dispatcher tops up the servers that look short
// by d, so k of them send k·d extra and the short servers end (k − 1)·d
// ahead; the differences come back inverted and multiplied by k − 1,
// unless the queues drain the overshoot, at 1 − λ per service time,
// before the next refresh.
type Mechanism struct {
	// Board is the board distribution the numbers are about, Mean its
	// mean, Quantiles its 5%, 25%, 50%, 75% and 95% points, Split its two
	// groups (farm.TwoGroups: the gap the tipping definition reads).
	Board     []float64
	Mean      float64
	Quantiles [5]int
	Split     farm.Split
	// Servers is N; Range is the expected range of N servers' boards drawn
	// independently from Board, E[max − min] = Σ_q 1 − F(q)^N − (1 − F(q))^N,
	// and ScaledRange is Range·(1 − λ) (the write-up measured 2.1–2.8 for
	// the longest less the shortest queue on the board at N = 100). Zero
	// when Servers is 0.
	Servers            int
	Range, ScaledRange float64
	// The response to a two-group difference: half the servers' boards
	// raised by D (staleboard.Disturb with a half backlog), one refresh
	// period of the map, and Back, the difference between the raised
	// group's mean queue at the next refresh and the other's. Factor is
	// Back/D; TopUp is −(k − 1), the write-up's factor before any drain;
	// Drained is 1 − Factor/TopUp, the share of the overshoot (k − 1)·D
	// gone by the next refresh (1: all of it; above 1: the raised group
	// stays ahead).
	D, Back, Factor float64
	TopUp, Drained  float64
	// NextLow and NextHigh are the two groups' mean queues at the next
	// refresh (Back = NextHigh − NextLow).
	NextLow, NextHigh float64
	// Evaluations counts the map evaluations.
	Evaluations int
}

// MechanismAt computes the mechanism numbers of the model's map at the
// board p: its spread (with the expected range of servers draws, for
// servers > 0) and the one-refresh response to a difference d on half
// the servers (d > 0, in jobs; fractional d splits the raised servers
// between the two levels around it).
func MechanismAt(m *Model, p []float64, servers int, d float64) (*Mechanism, error) {
	mp, err := NewMap(m)
	if err != nil {
		return nil, err
	}
	if _, err := checkBoard(p); err != nil {
		return nil, err
	}
	if servers < 0 || servers > MaxServers {
		return nil, param.Errorf("Servers", "N = %d, want 0..%d", servers, MaxServers)
	}
	if !(d > 0 && d <= farm.MaxPushJobs) {
		return nil, param.Errorf("D", "a difference of %v jobs, want 0 < d ≤ %d", d, farm.MaxPushJobs)
	}
	out := &Mechanism{Board: p, Mean: Mean(p), Split: farm.TwoGroups(p), Servers: servers, D: d, TopUp: -float64(m.MapK() - 1)}
	out.Quantiles = quantiles(p)
	if servers > 0 {
		out.Range = expectedRange(p, servers)
		out.ScaledRange = out.Range * (1 - m.Load)
	}
	// The laws at T of a server by its board value, under the passes of
	// the raised board: the raised group is the classes b + d, the other
	// the classes b, each with the weight p_b.
	q := disturb(p, farm.Push{Kind: farm.Backlog, Fraction: 0.5}, d, 0)
	mass, _ := checkBoard(q)
	top := boardTop(q)
	s := mp.schedule(q, top, mass)
	laws := mp.classLaws(q, top, &s)
	out.Evaluations = 1
	mean := func(c int) (float64, bool) {
		if c >= len(laws) || laws[c] == nil {
			return 0, false
		}
		return Mean(laws[c]), true
	}
	i := int(math.Floor(d))
	u := d - float64(i)
	var low, high, wl, wh float64
	for b, x := range p {
		if ml, ok := mean(b); ok {
			low += x * ml
			wl += x
		}
		for j, w := range [2]float64{1 - u, u} {
			if mh, ok := mean(b + i + j); ok && w > 0 {
				high += x * w * mh
				wh += x * w
			}
		}
	}
	out.NextLow, out.NextHigh = low/wl, high/wh
	out.Back = out.NextHigh - out.NextLow
	out.Factor = out.Back / d
	if out.TopUp != 0 {
		out.Drained = 1 - out.Factor/out.TopUp
	}
	return out, nil
}

// quantiles are the 5%, 25%, 50%, 75% and 95% points of a board: the
// least q with F(q) ≥ the level.
func quantiles(p []float64) [5]int {
	var out [5]int
	levels := [5]float64{0.05, 0.25, 0.5, 0.75, 0.95}
	var cum float64
	j := 0
	for q, x := range p {
		cum += x
		for j < len(levels) && cum >= levels[j]-1e-12 {
			out[j] = q
			j++
		}
	}
	for ; j < len(levels); j++ {
		out[j] = len(p) - 1
	}
	return out
}

// expectedRange is E[max − min] of n independent draws from the board p:
// Σ_q P(max > q) − P(min > q) = Σ_q 1 − F(q)^n − (1 − F(q))^n.
func expectedRange(p []float64, n int) float64 {
	var cum, r float64
	for _, x := range p[:len(p)-1] {
		cum = math.Min(cum+x, 1)
		r += 1 - math.Pow(cum, float64(n)) - math.Pow(1-cum, float64(n))
	}
	return r
}
