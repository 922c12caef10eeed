package jiq

import (
	"errors"
	"testing"

	"github.com/fluidlb/fluid/internal/param"
)

// TestLoadBounds: loads whose answer the solvers cannot reach are refused
// naming Load (λ = 10³⁰⁰ ended the ODE check in a step-size underflow;
// λ = 10⁻⁹ ran it out of steps), and the bounds themselves are solved.
func TestLoadBounds(t *testing.T) {
	alpha := []float64{0.7, 0.3}
	var pe *param.Error
	if err := (&Model{Load: 1e300, Alpha: alpha}).Validate(); !errors.As(err, &pe) || pe.Param != "Load" {
		t.Errorf("λ = 1e300: Validate() = %v, want a *param.Error naming Load", err)
	}
	if _, err := Settle(&Model{Load: 1e-9, Alpha: alpha}, nil); !errors.As(err, &pe) || pe.Param != "Load" {
		t.Errorf("λ = 1e-9: Settle() = %v, want a *param.Error naming Load", err)
	}
	for _, load := range []float64{MinSettleLoad, MaxLoad} {
		r, err := Settle(&Model{Load: load, Alpha: alpha}, nil)
		if err != nil {
			t.Fatalf("λ = %v: %v", load, err)
		}
		if !r.Status.OK() {
			t.Errorf("λ = %v: status %v, want settled", load, r.Status)
		}
	}
}
