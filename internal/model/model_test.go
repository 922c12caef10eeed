package model

import (
	"math"
	"testing"
)

// H2Params: the giants carry half the work and the SCV is c² (SPEC §2:
// at c² = 30 one job in 61 is a giant of mean ≈ 30.5).
func TestH2Params(t *testing.T) {
	for _, c2 := range []float64{4, 10, 30} {
		p, g, s := H2Params(c2)
		mean := p*g + (1-p)*s
		second := 2 * (p*g*g + (1-p)*s*s)
		if math.Abs(mean-1) > 1e-12 || math.Abs(p*g-0.5) > 1e-12 || math.Abs(second-1-c2) > 1e-9 {
			t.Errorf("c²=%v: mean %v, giant work %v, SCV %v", c2, mean, p*g, second-1)
		}
	}
	if p, g, _ := H2Params(30); math.Abs(1/p-61) > 0.5 || math.Abs(g-30.5) > 0.1 {
		t.Errorf("c²=30: 1 in %.1f, giant mean %.2f", 1/p, g)
	}
}

func TestParseDiscipline(t *testing.T) {
	for s, want := range map[string]Discipline{"fcfs": FCFS, "PS": PS} {
		if d, err := ParseDiscipline(s); err != nil || d != want || !d.Valid() {
			t.Errorf("%q: %v, %v", s, d, err)
		}
	}
	if _, err := ParseDiscipline("lifo"); err == nil {
		t.Error("lifo accepted")
	}
	if Discipline(7).Valid() {
		t.Error("7 is not a discipline")
	}
}
