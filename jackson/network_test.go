package jackson

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fluidlb/fluid/internal/param"
)

// Kind is the service discipline of a station.
type Kind int

const (
	// Queue is a single-server station with load-independent rate Rate.
	Queue Kind = iota
	// Delay is an infinite-server station: each customer is served at rate
	// Rate, whatever the others do.
	Delay
	// LoadDependent is a station whose total service rate is RateAt(n)
	// when it holds n ≥ 1 customers.
	LoadDependent
)

func (k Kind) String() string {
	switch k {
	case Queue:
		return "queue"
	case Delay:
		return "delay"
	case LoadDependent:
		return "load-dependent"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Station is a node of a closed network.
type Station struct {
	Name string
	Kind Kind
	// Rate is μ: the server's rate (Queue) or each customer's rate (Delay).
	Rate float64
	// RateAt returns μ(n) > 0, the total service rate with n ≥ 1 customers
	// present (LoadDependent only). RateTable builds one from a table.
	RateAt func(n int) float64
}

// RateTable returns μ(n) = table[n−1] for n ≤ len(table), and the last
// entry beyond (a station whose rate saturates).
func RateTable(table []float64) func(n int) float64 {
	t := append([]float64(nil), table...)
	return func(n int) float64 {
		if n <= len(t) {
			return t[n-1]
		}
		return t[len(t)-1]
	}
}

// rate returns the total service rate of station s holding n ≥ 1.
func (s *Station) rate(n int) float64 {
	switch s.Kind {
	case Queue:
		return s.Rate
	case Delay:
		return float64(n) * s.Rate
	default:
		return s.RateAt(n)
	}
}

// Network is a closed single-class network: customers leaving station i go
// to station j with probability Routing[i][j]. The routing must be
// stochastic and irreducible (every station reachable from every other).
type Network struct {
	Stations []Station
	Routing  [][]float64
}

// Validate checks the stations and the routing matrix.
func (nw *Network) Validate() error {
	m := len(nw.Stations)
	if m == 0 {
		return param.Errorf("Stations", "the network has no stations")
	}
	for i, s := range nw.Stations {
		switch s.Kind {
		case Queue, Delay:
			if !param.Finite(s.Rate) || s.Rate <= 0 {
				return param.Errorf("Stations", "station %d (%s): rate %v, want a finite number > 0", i, s.Name, s.Rate)
			}
		case LoadDependent:
			if s.RateAt == nil {
				return param.Errorf("Stations", "station %d (%s): load-dependent station without RateAt", i, s.Name)
			}
		default:
			return param.Errorf("Stations", "station %d (%s): unknown kind %d", i, s.Name, int(s.Kind))
		}
	}
	if len(nw.Routing) != m {
		return param.Errorf("Routing", "%d rows for %d stations", len(nw.Routing), m)
	}
	for i, row := range nw.Routing {
		if len(row) != m {
			return param.Errorf("Routing", "row %d has %d entries for %d stations", i, len(row), m)
		}
		var sum float64
		for j, p := range row {
			if !param.Finite(p) || p < 0 {
				return param.Errorf("Routing", "entry [%d][%d] = %v, want a finite probability", i, j, p)
			}
			sum += p
		}
		if math.Abs(sum-1) > param.SumTol {
			return param.Errorf("Routing", "row %d sums to %.12g: customers leaving station %d must go somewhere (a closed network's rows sum to 1)", i, sum, i)
		}
	}
	// Irreducibility: every station reaches station 0 and is reached
	// from it.
	reach := func(forward bool) []bool {
		seen := make([]bool, m)
		seen[0] = true
		stack := []int{0}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range m {
				p := nw.Routing[i][j]
				if !forward {
					p = nw.Routing[j][i]
				}
				if p > 0 && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		return seen
	}
	from, to := reach(true), reach(false)
	for i := range m {
		if !from[i] || !to[i] {
			return param.Errorf("Routing", "not irreducible: station %d (%s) %s station 0; a closed network needs every station to reach every other", i, nw.Stations[i].Name, map[bool]string{true: "cannot reach", false: "is not reached from"}[from[i]])
		}
	}
	return nil
}

// VisitRatios solves the traffic equations v = v·P with v₀ = 1 (gonum/mat
// LU). The network must be valid.
func (nw *Network) VisitRatios() ([]float64, error) {
	m := len(nw.Stations)
	a := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			// Row i of (Pᵀ − I): Σ_j P[j][i]·v_j − v_i = 0.
			a.Set(i, j, nw.Routing[j][i])
		}
		a.Set(i, i, a.At(i, i)-1)
	}
	// Replace the first equation (redundant: the rows of Pᵀ − I sum to 0)
	// by the normalisation v₀ = 1.
	for j := range m {
		a.Set(0, j, 0)
	}
	a.Set(0, 0, 1)
	b := mat.NewVecDense(m, nil)
	b.SetVec(0, 1)
	var v mat.VecDense
	if err := v.SolveVec(a, b); err != nil {
		return nil, fmt.Errorf("jackson: traffic equations: %w", err)
	}
	out := make([]float64, m)
	for i := range out {
		out[i] = v.AtVec(i)
		if !(out[i] > 0) || !param.Finite(out[i]) {
			return nil, fmt.Errorf("jackson: traffic equations gave visit ratio %v at station %d", out[i], i)
		}
	}
	return out, nil
}

// Network returns the closed Jackson network of the blocking JIQ system:
// N tokens circulate among station 0 (server busy: infinite server, rate 1
// per token) and station r (idle, token at dispatcher r: single server,
// rate α_r·λ·N), routed 0 → r with probability β_r and r → 0. Dispatchers
// with β_r = 0 never receive tokens and are left out; the second result
// maps network stations 1.. to dispatcher indices.
func (m *JIQ) Network() (*Network, []int) {
	beta := m.beta()
	var idx []int
	for r, b := range beta {
		if b > 0 {
			idx = append(idx, r)
		}
	}
	k := len(idx) + 1
	nw := &Network{Stations: make([]Station, k), Routing: make([][]float64, k)}
	nw.Stations[0] = Station{Name: "busy", Kind: Delay, Rate: 1}
	nw.Routing[0] = make([]float64, k)
	for j, r := range idx {
		nw.Stations[j+1] = Station{Name: "tokens", Kind: Queue, Rate: m.Alpha[r] * m.Load * float64(m.Servers)}
		nw.Routing[0][j+1] = beta[r]
		nw.Routing[j+1] = make([]float64, k)
		nw.Routing[j+1][0] = 1
	}
	// Rounding in a β that sums to 1 within the input tolerance must not
	// fail the routing check: normalise the row.
	var sum float64
	for _, p := range nw.Routing[0] {
		sum += p
	}
	for j := range nw.Routing[0] {
		nw.Routing[0][j] /= sum
	}
	return nw, idx
}
