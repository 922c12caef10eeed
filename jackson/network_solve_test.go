package jackson

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/internal/param"
)

// Solution is the stationary distribution of a closed network with N
// customers, in product form:
//
//	π(n) = G(N)⁻¹ · Π_i f_i(n_i),
//	f_i(n) = v_i^n / Π_{k=1..n} μ_i(k),
//
// with v the visit ratios (v₀ = 1) and G the normalising constant.
type Solution struct {
	N int
	// Visits are the visit ratios, Visits[0] = 1.
	Visits []float64
	// LogG is log G(n), n = 0..N.
	LogG []float64
	// Throughput is X_i = v_i·G(N−1)/G(N), customers per unit time through
	// station i.
	Throughput []float64

	net    *Network
	dlog   []float64   // log G(n) − log G(n−1)
	suffix []float64   // suffix[k] = log G(N) − log G(N−k), compensated
	lf     [][]float64 // log f_i(n) for delay and load-dependent stations
	logRho []float64   // log ρ_i for single-server stations
	queues []int       // indices of the single-server stations, in chain order
	chain  map[int]int // station index → position in queues
	empty  [][]float64 // G₋ᵣ(n)/G(n) per single-server station, every level (lazy)
	emptyN []float64   // G₋ᵣ(N)/G(N) per single-server station (lazy)
	minus  map[int][]float64
}

// Solve computes the product-form solution for population n ≥ 1.
func (nw *Network) Solve(n int) (*Solution, error) {
	if n < 1 || n > MaxPopulation {
		return nil, param.Errorf("Population", "population %d, want 1..%d", n, MaxPopulation)
	}
	if err := nw.Validate(); err != nil {
		return nil, err
	}
	v, err := nw.VisitRatios()
	if err != nil {
		return nil, err
	}
	m := len(nw.Stations)
	s := &Solution{N: n, Visits: v, net: nw, lf: make([][]float64, m), logRho: make([]float64, m), chain: map[int]int{}, minus: map[int][]float64{}}
	for i, st := range nw.Stations {
		switch st.Kind {
		case Queue:
			s.logRho[i] = math.Log(v[i] / st.Rate)
			s.chain[i] = len(s.queues)
			s.queues = append(s.queues, i)
		case Delay:
			s.lf[i] = make([]float64, n+1)
			la := math.Log(v[i] / st.Rate)
			for k := 1; k <= n; k++ {
				s.lf[i][k] = s.lf[i][k-1] + la - math.Log(float64(k))
			}
		case LoadDependent:
			s.lf[i] = make([]float64, n+1)
			lv := math.Log(v[i])
			for k := 1; k <= n; k++ {
				mu := st.RateAt(k)
				if !param.Finite(mu) || mu <= 0 {
					return nil, param.Errorf("Stations", "station %d (%s): μ(%d) = %v, want a finite number > 0", i, st.Name, k, mu)
				}
				s.lf[i][k] = s.lf[i][k-1] + lv - math.Log(mu)
			}
		}
	}
	c := s.run(-1, emptyNone)
	s.dlog = c.dlog
	s.LogG = c.logG()
	s.suffix = make([]float64, n+1)
	var acc kahan
	for k := 1; k <= n; k++ {
		acc.add(s.dlog[n-k+1])
		s.suffix[k] = acc.sum()
	}
	ratio := math.Exp(-s.dlog[n]) // G(N−1)/G(N)
	s.Throughput = make([]float64, m)
	for i := range nw.Stations {
		s.Throughput[i] = v[i] * ratio
	}
	return s, nil
}

// run runs the convolution without station skip (−1: none).
func (s *Solution) run(skip int, mode emptyMode) *chains {
	b := &base{}
	var logRho []float64
	for i, st := range s.net.Stations {
		if i == skip {
			continue
		}
		switch st.Kind {
		case Queue:
			logRho = append(logRho, s.logRho[i])
		case Delay:
			b.hasDelay = true
			b.a += s.Visits[i] / st.Rate
		case LoadDependent:
			b.loadDep = append(b.loadDep, s.lf[i])
		}
	}
	return runChains(b, logRho, s.N, mode)
}

// Tail returns P(n_i ≥ k) for a single-server station i:
// ρ_i^k·G(N−k)/G(N).
func (s *Solution) Tail(i, k int) float64 {
	if s.net.Stations[i].Kind != Queue {
		panic("jackson: Tail of a station that is not single-server")
	}
	if k > s.N {
		return 0
	}
	return math.Exp(float64(k)*s.logRho[i] - s.suffix[k])
}

// ProbEmpty returns P(n_i = 0). For single-server stations it is
// G₋ᵢ(N)/G(N) from the chain that omits station i, run in the same scale
// as the full one: accurate to rounding however small.
func (s *Solution) ProbEmpty(i int) float64 {
	if s.net.Stations[i].Kind != Queue {
		return s.Marginal(i)[0]
	}
	if s.empty != nil {
		return s.empty[s.chain[i]][s.N]
	}
	if s.emptyN == nil {
		c := s.run(-1, emptyFinal)
		s.emptyN = make([]float64, len(c.empty))
		for q, e := range c.empty {
			s.emptyN[q] = e[0]
		}
	}
	return s.emptyN[s.chain[i]]
}

func (s *Solution) emptyRatios() [][]float64 {
	if s.empty == nil {
		s.empty = s.run(-1, emptyAll).empty
	}
	return s.empty
}

// Utilization returns P(n_i ≥ 1), the probability that station i is busy:
// ρ_i·G(N−1)/G(N) for a single-server station, 1 − P(n_i = 0) otherwise.
func (s *Solution) Utilization(i int) float64 {
	if s.net.Stations[i].Kind == Queue {
		return s.Tail(i, 1)
	}
	return 1 - s.Marginal(i)[0]
}

// Marginal returns P(n_i = k), k = 0..N. For a single-server station,
// P(n_i = k) = P(n_i ≥ k)·G₋ᵢ(N−k)/G(N−k), a product with no
// cancellation; otherwise P(n_i = k) = f_i(k)·G₋ᵢ(N−k)/G(N), with G₋ᵢ the
// constants of the network without station i (one more convolution,
// cached; its accuracy is that of two separately accumulated log
// constants, about 1e-16 times |log G(N)| relative).
func (s *Solution) Marginal(i int) []float64 {
	n := s.N
	p := make([]float64, n+1)
	if s.net.Stations[i].Kind == Queue {
		e := s.emptyRatios()[s.chain[i]]
		for k := 0; k <= n; k++ {
			p[k] = s.Tail(i, k) * e[n-k]
		}
		return p
	}
	lgm, ok := s.minus[i]
	if !ok {
		lgm = s.run(i, emptyNone).logG()
		s.minus[i] = lgm
	}
	for k := 0; k <= n; k++ {
		p[k] = math.Exp(s.lf[i][k] + lgm[n-k] - s.LogG[n])
	}
	return p
}

// MeanQueue returns E[n_i], the mean number of customers at station i.
func (s *Solution) MeanQueue(i int) float64 {
	st := s.net.Stations[i]
	switch st.Kind {
	case Delay:
		return s.Throughput[i] / st.Rate // Little's law, time 1/μ each
	case Queue:
		// E[n_i] = Σ_{k≥1} P(n_i ≥ k); the terms decrease in k, so stop
		// once they no longer move the sum.
		var sum float64
		for k := 1; k <= s.N; k++ {
			t := s.Tail(i, k)
			sum += t
			if t < 1e-17*sum {
				break
			}
		}
		return sum
	}
	var mean float64
	for k, pk := range s.Marginal(i) {
		mean += float64(k) * pk
	}
	return mean
}

// String summarises the solution.
func (s *Solution) String() string {
	return fmt.Sprintf("closed network, N = %d, log G(N) = %.6g", s.N, s.LogG[s.N])
}
