package bestofd

import (
	"errors"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// TestModelBounds: inputs the fixed-point solve cannot finish are refused
// before any work, naming the field (fluid meanfield once ran past a
// minute at FCFS SCV 1000, reported a singular matrix at SCV 10³⁰⁸ and
// "not settled" at λ = 1 − 10⁻¹²); the largest admitted values solve.
func TestModelBounds(t *testing.T) {
	h2 := func(scv float64) farm.Sizes { return farm.Sizes{Kind: farm.H2, SCV: scv} }
	refused := []struct {
		name  string
		m     Model
		field string
	}{
		{"λ = 1 − 1e-12", Model{D: 2, Load: 1 - 1e-12}, "Load"},
		{"λ = 0.99999, h2:30", Model{D: 2, Load: 0.99999, Sizes: h2(30)}, "Load"},
		{"FCFS h2:1000", Model{D: 2, Load: 0.9, Sizes: h2(1000)}, "Sizes"},
		{"PS h2:1e308", Model{D: 2, Load: 0.9, Sizes: h2(1e308), Discipline: farm.PS}, "Sizes"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			var pe *param.Error
			if err := c.m.Validate(); !errors.As(err, &pe) || pe.Param != c.field {
				t.Errorf("Validate() = %v, want a *param.Error naming %s", err, c.field)
			}
		})
	}
	if testing.Short() {
		return
	}
	admitted := []struct {
		name string
		m    Model
	}{
		{"λ = MaxLoad", Model{D: 2, Load: MaxLoad}},
		{"λ = MaxLoadH2, h2:30", Model{D: 2, Load: MaxLoadH2, Sizes: h2(30)}},
		{"FCFS h2:MaxSCVFCFS", Model{D: 2, Load: 0.9, Sizes: h2(MaxSCVFCFS)}},
		{"PS h2:MaxSCV", Model{D: 2, Load: 0.9, Sizes: h2(MaxSCV), Discipline: farm.PS}},
	}
	for _, c := range admitted {
		t.Run(c.name, func(t *testing.T) {
			r, err := FixedPoint(&c.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Status.OK() {
				t.Errorf("status %v, want an answer", r.Status)
			}
		})
	}
}
