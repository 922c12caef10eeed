package jackson

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/fuzzing"
	"github.com/fluidlb/fluid/internal/param"
)

// JIQ.Validate on any input: it validates, or returns ErrNotProductForm
// (ν > 0) or a *param.Error naming a field of JIQ, never panics; a model
// that validates is in the documented ranges, its network routes every
// token somewhere, and a small one (N ≤ 2000: Solve is O(N·R)) solves to
// probabilities.
func FuzzJIQValidate(f *testing.F) {
	f.Add(100, 0.9, []byte{7, 3}, uint8(1), []byte{}, uint8(3), 0.0)
	f.Add(1, 2.5, []byte{1, 2, 3}, uint8(2), []byte{0, 1, 0}, uint8(1), 0.0)
	f.Add(MaxPopulation, 1e308, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, uint8(0), []byte{}, uint8(3), 0.0)
	f.Add(10, 1e300, []byte{1, 1}, uint8(1), []byte{1, 1}, uint8(1), 0.0)
	f.Add(10, 5e-324, []byte{1, 1}, uint8(1), []byte{1, 1}, uint8(1), 0.0)
	f.Add(0, 0.9, []byte{1}, uint8(1), []byte{}, uint8(3), 1.0)
	f.Add(MaxPopulation+1, math.NaN(), []byte{}, uint8(0), []byte{1}, uint8(1), math.Inf(1))
	f.Add(-1<<63, math.Inf(1), []byte{0}, uint8(1), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f}, uint8(0), -1.0)
	f.Fuzz(func(t *testing.T, servers int, load float64, alpha []byte, amode uint8, beta []byte, bmode uint8, exchange float64) {
		m := &JIQ{Servers: servers, Load: load, Alpha: fuzzing.Floats(alpha, amode), Beta: fuzzing.Floats(beta, bmode), Exchange: exchange}
		if err := m.Validate(); err != nil {
			if errors.Is(err, ErrNotProductForm) {
				if !(m.Exchange > 0) {
					t.Fatalf("%+v: %v", m, err)
				}
				return
			}
			fuzzing.NamesField(t, err, JIQ{})
			return
		}
		if m.Servers < 1 || m.Servers > MaxPopulation || !(m.Load > 0) || !param.Finite(m.Load) || len(m.Alpha) == 0 ||
			m.Beta != nil && len(m.Beta) != len(m.Alpha) || m.Exchange != 0 {
			t.Fatalf("%+v validates", m)
		}
		nw, idx := m.Network()
		if len(nw.Stations) != len(idx)+1 || len(idx) == 0 {
			t.Fatalf("%+v: network of %d stations for dispatchers %v", m, len(nw.Stations), idx)
		}
		var sum float64
		for _, p := range nw.Routing[0] {
			sum += p
		}
		if !approx.Equal(sum, 1, 1e-9, 0) {
			t.Fatalf("%+v: routing from the busy station sums to %v", m, sum)
		}
		if m.Servers > 2000 {
			return
		}
		res, err := Solve(m)
		if err != nil {
			return
		}
		// Probabilities, within rounding (the shares sum to 1 within 1e-9).
		if !(res.Blocking >= 0 && res.Blocking <= 1+1e-9) || !(res.Busy >= 0 && res.Busy <= 1+1e-9) {
			t.Fatalf("Solve(%+v): blocking %v, busy %v", m, res.Blocking, res.Busy)
		}
		for r := range res.NoTokens {
			if !(res.NoTokens[r] >= 0 && res.NoTokens[r] <= 1+1e-9) || !(res.Tokens[r] >= 0) {
				t.Fatalf("Solve(%+v): dispatcher %d: P(no token) %v, tokens %v", m, r, res.NoTokens[r], res.Tokens[r])
			}
		}
	})
}
