package staleboard

import (
	"errors"
	"math"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/internal/fuzzing"
	"github.com/fluidlb/fluid/internal/param"
)

// The validators on any input: Model.Validate and FiniteModel.Validate
// validate or return a *param.Error naming a field of their model, never
// panic; a model that validates is in the documented ranges (the period
// also within MaxPeriodPerLoad·λ), and its map is built (NewMap).
// Board, the start's board distribution, is a distribution of Jobs+1
// entries or an error naming Start.
func FuzzModelValidate(f *testing.F) {
	f.Add(5, 0.9, 100.0, 0, 0, 0, 0)
	f.Add(1, 0.5, 0.0, 1, 100, 2, 110)
	f.Add(3, 0.95, 1e-300, 2, MaxServers, 3, 880)
	f.Add(MaxK, 0.9999999999999999, 1e308, 0, 1, 1, 5)
	f.Add(0, 0.9, 10.0, 0, 0, 4, 1)
	f.Add(MaxK+1, 1.0, -1.0, 3, -1, 5, -1)
	f.Add(-1<<63, math.NaN(), math.Inf(1), -1, MaxServers+1, -1, MaxStartJobs+1)
	f.Add(2, 5e-324, math.Inf(-1), 1<<62, 1<<62, 1, MaxStartJobs)
	f.Add(5, 1e-20, 400.0, 0, 5, 0, 0)
	f.Fuzz(func(t *testing.T, k int, load, period float64, tally, servers, startKind, jobs int) {
		sys := System{K: k, Load: load, Tally: Tally(tally)}
		m := &Model{System: sys, Period: period}
		err := m.Validate()
		if err != nil {
			fuzzing.NamesField(t, err, Model{})
		} else {
			if m.K < 1 || m.K > MaxK || !(m.Load > 0 && m.Load < 1) || !(m.Period >= MinPeriod && m.Period <= MaxPeriod) ||
				m.Period > MaxPeriodPerLoad*m.Load || m.Tally < Own || m.Tally > Partitioned {
				t.Fatalf("%+v validates", m)
			}
			if mk := m.MapK(); mk < 1 || mk > m.K {
				t.Fatalf("%+v: map k %d", m, mk)
			}
			if s := m.Scale(); !(s > 0 && s < 1) {
				t.Fatalf("%+v: scale %v", m, s)
			}
		}
		mp, merr := NewMap(m)
		switch {
		case merr != nil:
			fuzzing.NamesField(t, merr, Model{})
		case err != nil || mp.K != m.MapK():
			t.Fatalf("NewMap(%+v) = %+v; Validate: %v", m, mp, err)
		}
		fm := &FiniteModel{System: sys, Servers: servers, Horizon: jobs}
		if ferr := fm.Validate(); ferr != nil {
			fuzzing.NamesField(t, ferr, FiniteModel{})
		} else if fm.Servers < MinServers(fm.K) || fm.Servers > MaxServers || fm.horizon() < 1 || fm.horizon() > MaxHorizon {
			t.Fatalf("%+v validates", fm)
		}
		st := farm.Start{Kind: farm.StartKind(startKind), Jobs: jobs}
		p, berr := Board(st)
		if berr != nil {
			var pe *param.Error
			if !errors.As(berr, &pe) || pe.Param != "Start" {
				t.Fatalf("Board(%+v): %v does not name Start", st, berr)
			}
			return
		}
		var sum float64
		for _, x := range p {
			sum += x
		}
		// A distribution: mass 1 to rounding over up to MaxStartJobs terms.
		if len(p) != st.MaxJobs()+1 || !approx.Equal(sum, 1, 1e-9, 0) {
			t.Fatalf("Board(%+v): %d entries, mass %v", st, len(p), sum)
		}
	})
}
