package bestofd

import (
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/fuzzing"
	"github.com/fluidlb/fluid/internal/param"
)

// sizesOK reports whether z is a law the mean fields take: exponential,
// or H2 with a finite SCV > 1.
func sizesOK(z farm.Sizes) bool {
	return z.Kind == farm.Exponential || z.Kind == farm.H2 && param.Finite(z.SCV) && z.SCV > 1
}

// Model.Validate on any input: it validates or returns a *param.Error
// naming a field of Model, never panics; a model that validates is in
// the documented ranges.
func FuzzModelValidate(f *testing.F) {
	f.Add(2, 0.9, 0, 0, 0.0, 0.0, 0, 0.0)
	f.Add(3, 0.95, 1, 2, 30.0, 0.0, 200, 1e-10)
	f.Add(1, 0.5, 0, 3, 0.0, 2.5, 0, 0.0)
	f.Add(MaxD, 0.9999999999999999, 1, 2, 1.0000000000000002, 0.0, maxQueue, 0.9999999999999999)
	f.Add(MaxD+1, 1.0, 2, 2, 1.0, 0.0, 1, 1.0)
	f.Add(0, math.NaN(), -1, 9, math.Inf(1), math.NaN(), -1, math.NaN())
	f.Add(-1<<63, 5e-324, 1<<62, -1, math.NaN(), math.Inf(-1), maxQueue+1, -5e-324)
	f.Fuzz(func(t *testing.T, d int, load float64, disc, sizes int, scv, shape float64, maxQ int, tailTol float64) {
		m := &Model{D: d, Load: load, Discipline: farm.Discipline(disc), Sizes: farm.Sizes{Kind: farm.SizeKind(sizes), SCV: scv, Shape: shape},
			MaxQueue: maxQ, TailTol: tailTol}
		if err := m.Validate(); err != nil {
			fuzzing.NamesField(t, err, Model{})
			return
		}
		if m.D < 1 || m.D > MaxD || !(m.Load > 0 && m.Load < 1) || !m.Discipline.Valid() || !sizesOK(m.Sizes) ||
			m.MaxQueue < 0 || m.MaxQueue == 1 || m.MaxQueue > maxQueue || !(m.TailTol >= 0 && m.TailTol < 1) {
			t.Fatalf("%+v validates", m)
		}
		if c := m.scv(); !param.Finite(c) || c < 1 {
			t.Fatalf("%+v: SCV %v", m, c)
		}
		if tol := m.tailTol(); !(tol > 0 && tol < 1) {
			t.Fatalf("%+v: tail tolerance %v", m, tol)
		}
	})
}

// PeriodicUpdate.Validate on any input: it validates or returns a
// *param.Error naming a field of PeriodicUpdate, never panics; a model
// that validates is in the documented ranges.
func FuzzPeriodicUpdateValidate(f *testing.F) {
	f.Add(2, 0.9, 10.0, 0, 0, 0.0, 0.0, 0, 0, 0.0)
	f.Add(0, 0.9, 1e-300, 1, 2, 30.0, 0.0, 100, 12, 1e-12)
	f.Add(MaxD, 0.9999999999999999, 1e308, 0, 2, 1.0000000000000002, 0.0, maxQueue, maxQueue, 0.9999999999999999)
	f.Add(-1, 1.0, 0.0, 2, 3, 1.0, 2.0, -1, -1, 1.0)
	f.Add(MaxD+1, math.NaN(), math.Inf(1), -1, 9, math.NaN(), math.NaN(), maxQueue+1, maxQueue+1, math.NaN())
	f.Add(1, 5e-324, 5e-324, 1<<62, -1<<63, math.Inf(1), math.Inf(-1), 1<<62, -1<<63, math.Inf(1))
	f.Fuzz(func(t *testing.T, d int, load, period float64, disc, sizes int, scv, shape float64, maxQ, maxG int, minClass float64) {
		m := &PeriodicUpdate{D: d, Load: load, Period: period, Discipline: farm.Discipline(disc),
			Sizes: farm.Sizes{Kind: farm.SizeKind(sizes), SCV: scv, Shape: shape}, MaxQueue: maxQ, MaxGiants: maxG, MinClass: minClass}
		if err := m.Validate(); err != nil {
			fuzzing.NamesField(t, err, PeriodicUpdate{})
			return
		}
		if m.D < 0 || m.D > MaxD || !(m.Load > 0 && m.Load < 1) || !(m.Period > 0) || !param.Finite(m.Period) ||
			!m.Discipline.Valid() || !sizesOK(m.Sizes) || m.MaxQueue < 0 || m.MaxQueue > maxQueue ||
			m.MaxGiants < 0 || m.MaxGiants > maxQueue || !(m.MinClass >= 0 && m.MinClass < 1) {
			t.Fatalf("%+v validates", m)
		}
	})
}
