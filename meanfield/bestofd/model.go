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
	// MaxLoad is the largest load solved with exponential sizes, and
	// MaxLoadH2 with H2 sizes: closer to 1 the fixed-point solve stalls at
	// a residual of about 5·10⁻⁶ above its tolerance (measured: λ = 1 −
	// 10⁻⁷ with exponential sizes, 1 − 10⁻⁶ with SCV 4 and 1 − 10⁻⁵ with
	// SCV 30 end not settled; 1 − 10⁻⁶ and 1 − 10⁻⁴ solve in under a
	// second).
	MaxLoad   = 1 - 1e-6
	MaxLoadH2 = 1 - 1e-4
	// MaxSCVFCFS bounds the size spread under FCFS: the chain of count
	// and phase in service needs thousands of levels beyond it (SCV 100
	// solves in about 1.5 s at λ = 0.9; SCV 300 ran past 100 s). Under PS
	// best of d is insensitive to the spread and any SCV solves at once.
	MaxSCVFCFS = 100
	// MaxSCV bounds it under PS: the H2's small-job and giant rates then
	// differ by about 4·SCV², and beyond 10⁴ the level reduction loses the
	// small jobs to rounding (SCV 10³⁰⁸ made its matrices singular).
	MaxSCV = 10_000
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
	if top := map[bool]float64{false: MaxLoad, true: MaxLoadH2}[scv > 1]; m.Load > top {
		return param.Errorf("Load", "λ = %v, want λ ≤ 1 − %.0e with %v sizes: closer to 1 the fixed point cannot be solved to its tolerance", m.Load, 1-top, m.Sizes)
	}
	if scv > MaxSCV {
		return param.Errorf("Sizes", "SCV %v, want at most %v: the two phases' rates would differ by more than rounding can resolve", scv, float64(MaxSCV))
	}
	if m.Discipline == farm.FCFS && scv > MaxSCVFCFS {
		return param.Errorf("Sizes", "SCV %v, want at most %v under FCFS: the server chain (count, phase in service) would need thousands of levels (under PS any SCV solves)", scv, float64(MaxSCVFCFS))
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
