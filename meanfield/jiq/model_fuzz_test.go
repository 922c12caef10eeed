package jiq

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/fuzzing"
	"github.com/fluidlb/fluid/internal/param"
)

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
		m := &Model{Scenario: farm.Scenario(scen), Load: load, Alpha: fuzzing.Floats(alpha, amode), Beta: fuzzing.Floats(beta, bmode),
			Exchange: exchange, IMax: imax, TailTol: tailTol}
		if err := m.Validate(); err != nil {
			fuzzing.NamesField(t, err, Model{})
			return
		}
		if !m.Scenario.Valid() || !(m.Load > 0) || !param.Finite(m.Load) || m.Scenario == Queueing && m.Load >= 1 ||
			len(m.Alpha) == 0 || m.Beta != nil && len(m.Beta) != len(m.Alpha) || !param.AllFinite(m.Alpha) || !param.AllFinite(m.Beta) ||
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
		lim, err := Limit(m)
		if err != nil {
			fuzzing.NamesField(t, err, Model{})
			return
		}
		if !param.Finite(lim.Busy) || lim.Busy < 0 || lim.Busy > 1+1e-9 || !param.Finite(lim.Blocking) ||
			math.IsNaN(lim.MeanWait) || math.IsNaN(lim.Sojourn) || !param.AllFinite(lim.Tokens) || !param.AllFinite(lim.Occupancy) {
			t.Fatalf("Limit(%+v) = %+v", m, lim)
		}
	})
}
