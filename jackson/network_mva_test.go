package jackson

import (
	"github.com/fluidlb/fluid/internal/param"
)

// MVAResult is the output of exact Mean Value Analysis.
type MVAResult struct {
	N int
	// Throughput is X_i = v_i·X₀(N), customers per unit time through
	// station i.
	Throughput []float64
	// MeanQueue is E[n_i].
	MeanQueue []float64
	// Residence is the time a customer spends at station i per visit to
	// station 0 (R_i(N), including its v_i visits).
	Residence []float64
}

// MVA runs exact Mean Value Analysis (Reiser and Lavenberg, J. ACM 27,
// 1980) for networks of single-server and delay stations: with service
// demands D_i = v_i/μ_i, for n = 1..N,
//
//	R_i(n) = D_i·(1 + Q_i(n−1))  (single server, by the arrival theorem)
//	R_i(n) = D_i                 (delay)
//	X(n) = n / Σ_i R_i(n),  Q_i(n) = X(n)·R_i(n).
//
// It is an independent cross-check of the convolution: it never forms a
// normalising constant. Load-dependent stations are rejected.
func (nw *Network) MVA(n int) (*MVAResult, error) {
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
	d := make([]float64, m)
	for i, st := range nw.Stations {
		if st.Kind == LoadDependent {
			return nil, param.Errorf("Stations", "station %d (%s): exact MVA here handles single-server and delay stations only", i, st.Name)
		}
		d[i] = v[i] / st.Rate
	}
	q := make([]float64, m)
	r := make([]float64, m)
	var x float64
	for k := 1; k <= n; k++ {
		var sum float64
		for i, st := range nw.Stations {
			if st.Kind == Delay {
				r[i] = d[i]
			} else {
				r[i] = d[i] * (1 + q[i])
			}
			sum += r[i]
		}
		x = float64(k) / sum
		for i := range q {
			q[i] = x * r[i]
		}
	}
	res := &MVAResult{N: n, Throughput: make([]float64, m), MeanQueue: q, Residence: r}
	for i := range v {
		res.Throughput[i] = x * v[i]
	}
	return res, nil
}
