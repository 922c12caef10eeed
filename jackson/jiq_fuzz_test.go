package jackson

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// fuzzShares decodes a share vector from fuzz bytes: mode 0 takes the
// raw float64 bits (any value, NaN and Inf included), modes 1 and 2 take
// each byte as a weight (2: plus one, so positive) normalized to sum 1,
// mode 3 is nil. At most 64 entries.
func fuzzShares(b []byte, mode uint8) []float64 {
	var v []float64
	switch mode % 4 {
	case 0:
		for i := 0; i+8 <= len(b) && len(v) < 64; i += 8 {
			v = append(v, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
	case 1, 2:
		var sum float64
		for _, c := range b[:min(len(b), 64)] {
			w := float64(c) + float64(mode%4-1)
			v = append(v, w)
			sum += w
		}
		for i := range v {
			v[i] /= sum
		}
	case 3:
		return nil
	}
	return v
}

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
		m := &JIQ{Servers: servers, Load: load, Alpha: fuzzShares(alpha, amode), Beta: fuzzShares(beta, bmode), Exchange: exchange}
		if err := m.Validate(); err != nil {
			if errors.Is(err, ErrNotProductForm) {
				if !(m.Exchange > 0) {
					t.Fatalf("%+v: %v", m, err)
				}
				return
			}
			var pe *param.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *param.Error", err, err)
			}
			if _, ok := reflect.TypeFor[JIQ]().FieldByName(pe.Param); !ok {
				t.Fatalf("error %v names %q, not a field of JIQ", err, pe.Param)
			}
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
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("%+v: routing from the busy station sums to %v", m, sum)
		}
		if m.Servers > 2000 {
			return
		}
		res, err := Solve(m, nil)
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
