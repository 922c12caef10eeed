package bestofd

import (
	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
)

// Limits of the models' integer parameters.
const (
	// MaxD bounds the number of servers sampled.
	MaxD = farm.MaxSampled
	// maxQueue bounds the count truncation.
	maxQueue = 100_000
	// MinLoad is the smallest load solved: below it the fixed point is the
	// empty system to double precision and its spectrum is not computable.
	MinLoad = 1e-6
	// MaxPeriod bounds the refresh period of PeriodicUpdate so that its
	// default truncation, 32 + 2λT jobs, fits maxQueue. What a period
	// costs is bounded separately, by a work budget (AttractorSettings.
	// MaxWork).
	MaxPeriod = 40_000
)

// Model is the N → ∞ mean field of best-of-d dispatching (JSQ(d)) on live
// job counts: each job samples d servers and joins the one with the fewest
// jobs. A server holding n jobs receives Poisson arrivals at rate
//
//	a(n) = λ·(S_n^d − S_{n+1}^d)/P(n),  S_n = P(count ≥ n),
//
// which depends on the whole population (the mean-field coupling). Job
// sizes are exponential (FCFS and PS then coincide) or the balanced-means
// hyperexponential H2 (farm.H2Params). A server's state is its count for
// exponential sizes, its (small, giant) job counts under PS, and its count
// with the phase of the job in service under FCFS.
type Model struct {
	// D is the number of servers sampled, 1..MaxD (1 is random dispatch).
	D int
	// Load is λ, 0 < λ < 1.
	Load float64
	// Discipline of the servers (default FCFS).
	Discipline farm.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes farm.Sizes
	// MaxQueue truncates the count (arrivals to a full server are dropped
	// and counted as lost). Zero: chosen automatically, doubled until the
	// mass at the top is below TailTol.
	MaxQueue int
	// TailTol is the largest acceptable mass at the truncation level
	// (default 1e-13).
	TailTol float64
}

// Validate checks the parameters (*param.Error names the bad field).
func (m *Model) Validate() error {
	if m.D < 1 || m.D > MaxD {
		return param.Errorf("D", "best of d = %d, want 1 ≤ d ≤ %d", m.D, MaxD)
	}
	if !param.Finite(m.Load) || m.Load < MinLoad || m.Load >= 1 {
		return param.Errorf("Load", "λ = %v, want %v ≤ λ < 1", m.Load, MinLoad)
	}
	if !m.Discipline.Valid() {
		return param.Errorf("Discipline", "unknown discipline %d", int(m.Discipline))
	}
	scv, err := scvOf(m.Sizes)
	if err != nil {
		return err
	}
	if m.D == 1 {
		// Random dispatch: each server is an M/G/1 queue whose count
		// decays geometrically, about like (1 − 2(1−λ)/(1+c²))^n; the
		// truncation needs the tail below 1e-13.
		if need := 30 * (1 + scv) / 2 / (1 - m.Load); need > maxQueue {
			return param.Errorf("Load", "λ = %v with d = 1 (random dispatch) needs about %.3g queue levels, more than %d: each server is an M/G/1 queue, E[T] = 1 + λ(1 + c²)/(2(1 − λ)) in closed form", m.Load, need, maxQueue)
		}
	}
	if m.MaxQueue < 0 || (m.MaxQueue > 0 && m.MaxQueue < 2) || m.MaxQueue > maxQueue {
		return param.Errorf("MaxQueue", "truncation %d, want 0 (automatic) or 2..%d", m.MaxQueue, maxQueue)
	}
	if !param.Finite(m.TailTol) || m.TailTol < 0 || m.TailTol >= 1 {
		return param.Errorf("TailTol", "%v, want 0 (default) or in (0, 1)", m.TailTol)
	}
	return nil
}

// scvOf returns the SCV of exponential (1) or H2 sizes; the mean fields
// here take no other law.
func scvOf(z farm.Sizes) (float64, error) {
	if err := z.Validate(); err != nil {
		return 0, err
	}
	switch z.Kind {
	case farm.Exponential:
		return 1, nil
	case farm.H2:
		return z.SCV, nil
	}
	return 0, param.Errorf("Sizes", "%v: the mean field takes exp or h2:SCV sizes", z)
}

func (m *Model) scv() float64 {
	c, _ := scvOf(m.Sizes)
	return c
}

func (m *Model) tailTol() float64 {
	if m.TailTol == 0 {
		return 1e-13
	}
	return m.TailTol
}
