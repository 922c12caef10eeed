package jiq

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/spec"
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

// namesField fails t unless err is a *param.Error naming a field of the
// struct v.
func namesField(t *testing.T, err error, v any) {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *param.Error", err, err)
	}
	if _, ok := reflect.TypeOf(v).FieldByName(pe.Param); !ok {
		t.Fatalf("error %v names %q, not a field of %T", err, pe.Param, v)
	}
}

func finiteAll(v []float64) bool {
	for _, x := range v {
		if !param.Finite(x) {
			return false
		}
	}
	return true
}

// Model.Validate on any input: it validates or returns a *param.Error
// naming a field of Model, never panics; a model that validates is in
// the documented ranges. A small valid model's stationary limit (Limit:
// closed forms and bisection, cheap) is computed or refused with such an
// error, and has no NaN.
func FuzzModelValidate(f *testing.F) {
	f.Add(0, 0.9, []byte{7, 3}, uint8(1), []byte{}, uint8(3), 0.0, 0, 0.0)
	f.Add(1, 0.9, []byte{7, 3}, uint8(1), []byte{5, 5}, uint8(1), 0.5, 40, 1e-9)
	f.Add(1, 0.99, []byte{1, 2, 3, 4}, uint8(2), []byte{4, 3, 2, 1}, uint8(2), 0.0, 0, 0.0)
	f.Add(0, 2.9, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, uint8(0), []byte{}, uint8(3), 1e308, 0, 0.5)
	f.Add(1, 1.0, []byte{1}, uint8(1), []byte{1, 0}, uint8(1), -1.0, -1, 1.0)
	f.Add(2, math.NaN(), []byte{0}, uint8(1), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f}, uint8(0), math.Inf(1), maxIMax+1, math.NaN())
	f.Add(-1, 5e-324, []byte{}, uint8(0), []byte{}, uint8(0), 5e-324, maxIMax, 5e-324)
	f.Add(1, 0.9999999999999999, []byte{255, 0, 0}, uint8(2), []byte{0, 0, 1}, uint8(1), 0.0, 0, 0.999)
	f.Fuzz(func(t *testing.T, scen int, load float64, alpha []byte, amode uint8, beta []byte, bmode uint8, exchange float64, imax int, tailTol float64) {
		m := &Model{Scenario: spec.Scenario(scen), Load: load, Alpha: fuzzShares(alpha, amode), Beta: fuzzShares(beta, bmode),
			Exchange: exchange, IMax: imax, TailTol: tailTol}
		if err := m.Validate(); err != nil {
			namesField(t, err, Model{})
			return
		}
		if !m.Scenario.Valid() || !(m.Load > 0) || !param.Finite(m.Load) || m.Scenario == Queueing && m.Load >= 1 ||
			len(m.Alpha) == 0 || m.Beta != nil && len(m.Beta) != len(m.Alpha) || !finiteAll(m.Alpha) || !finiteAll(m.Beta) ||
			!(m.Exchange >= 0) || !param.Finite(m.Exchange) || m.IMax < 0 || m.IMax > maxIMax || m.R() != len(m.Alpha) {
			t.Fatalf("%+v validates", m)
		}
		if nu := m.NuStar(); math.IsNaN(nu) || nu < 0 {
			t.Fatalf("%+v: ν* = %v", m, nu)
		}
		// Limit's stability check is a dense eigenproblem of about R + IMax
		// coordinates: keep it small.
		if m.R() > 8 || m.Scenario == Queueing && (m.IMax < 1 || m.IMax > 60) {
			return
		}
		lim, err := Limit(m, nil)
		if err != nil {
			namesField(t, err, Model{})
			return
		}
		if !param.Finite(lim.Busy) || lim.Busy < 0 || lim.Busy > 1+1e-9 || !param.Finite(lim.Blocking) ||
			math.IsNaN(lim.MeanWait) || math.IsNaN(lim.Sojourn) || !finiteAll(lim.Tokens) || !finiteAll(lim.Occupancy) {
			t.Fatalf("Limit(%+v) = %+v", m, lim)
		}
	})
}
