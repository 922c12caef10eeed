package steadystate

import (
	"fmt"
	"math"

	"github.com/fluidlb/fluid/internal/param"
	"gonum.org/v1/gonum/stat/distuv"
)

// Planning constants: how many relaxation times of a server's queue a
// replication must cover.
const (
	// RefuseRelaxations: a replication that covers fewer relaxation times
	// per server cannot give a steady-state estimate at all. The transient
	// from an empty start takes a few relaxation times, which MSER must
	// find in the first half of the run, and the independence test needs
	// 4·DefaultMinBatches = 128 batches each several correlation times
	// long; at 20 relaxation times a test batch is a sixth of one.
	RefuseRelaxations = 20
	// RecommendRelaxations: the run a replication needs, whatever the
	// precision, for the procedure to find 128 test batches of about five
	// integrated correlation times (τ_r/2 each in heavy traffic), at which
	// the von Neumann test stops rejecting: 128·5/2 = 320 relaxation
	// times. The AR(1) case of the coverage tests whose correlation sets
	// its run stops after about 700 integrated correlation times, 350
	// relaxation times.
	RecommendRelaxations = 350
	// MaxRun is the longest run (observations) the planner considers
	// feasible at all (about a day of one core, the simulator's bound on
	// work): a model whose minimal run is longer has no steady state within
	// reach, and NewPlan refuses it.
	MaxRun = 1e12
)

// Model is one server's queue as the planner sees it, in mean service
// times (mean size 1, so the load ρ is the arrival rate per server), and
// the number of servers whose jobs make up the observed series. Every
// field is required: 0 is a meaningful SCV (deterministic).
type Model struct {
	// Servers N ≥ 1 share the arrivals; the series has one observation
	// per job of any of them.
	Servers int
	// Load ρ per server, 0 < ρ < 1.
	Load float64
	// ArrivalSCV c_a² ≥ 0 of a server's interarrival times (1: Poisson,
	// as under random dispatch of a Poisson stream; 1/N: round robin).
	ArrivalSCV float64
	// SizeSCV c_s² ≥ 0 of the job sizes (1: exponential; 0: deterministic).
	SizeSCV float64
	// SizeMoment3 is E[S³] at mean size 1, at least (1 + c_s²)²; 0: that of
	// a gamma law with the same SCV, (1 + c_s²)(1 + 2c_s²). The H2 sizes of
	// SCV 10 and 30 have 330 and 2,790 against the gamma's 231 and 1,891.
	SizeMoment3 float64
}

// Validate checks the model; an invalid field is a *param.Error naming
// it.
func (m Model) Validate() error {
	switch {
	case m.Servers < 1:
		return param.Errorf("Servers", "%d, want ≥ 1", m.Servers)
	case !(m.Load > 0 && m.Load < 1):
		return param.Errorf("Load", "%v, want 0 < ρ < 1: at ρ ≥ 1 the queue has no steady state", m.Load)
	case !param.Finite(m.ArrivalSCV) || m.ArrivalSCV < 0:
		return param.Errorf("ArrivalSCV", "%v, want ≥ 0", m.ArrivalSCV)
	case !param.Finite(m.SizeSCV) || m.SizeSCV < 0:
		return param.Errorf("SizeSCV", "%v, want ≥ 0", m.SizeSCV)
	case m.ArrivalSCV+m.SizeSCV == 0:
		return param.Errorf("SizeSCV", "0 with ArrivalSCV 0: a D/D/1 queue has no randomness to relax")
	case m.SizeMoment3 != 0 && (!param.Finite(m.SizeMoment3) || m.SizeMoment3 < (1+m.SizeSCV)*(1+m.SizeSCV)*(1-1e-12)):
		return param.Errorf("SizeMoment3", "%v, want ≥ (1 + SizeSCV)² = %v (Lyapunov), or 0", m.SizeMoment3, (1+m.SizeSCV)*(1+m.SizeSCV))
	}
	return nil
}

// Plan is what a run of a Model needs, worked out before any simulation
// (Whitt 1989, "Planning queueing simulations").
type Plan struct {
	Model Model `json:"model"`
	// RelaxationTime τ_r of a server's queue, in mean service times:
	//
	//	τ_r = (c_a² + c_s²) / (2(1 − √ρ)²),
	//
	// exact for the M/M/1 queue length (1/(1 − √ρ)², Abate & Whitt 1987)
	// and Whitt's heavy-traffic approximation otherwise (the reflected
	// Brownian motion's 2σ²/μ² with σ² = ρ(c_a² + c_s²), μ = 1 − ρ, refined
	// to be exact at SCV 1).
	RelaxationTime float64 `json:"relaxation_time"`
	// MeanSojourn ≈ E[T] = 1 + E[W] and SojournVariance ≈ Var(T) =
	// Var(W) + c_s² under FCFS, with E[W] = ρ(c_a² + c_s²)/(2(1 − ρ)) and
	// Var(W) = E[W]² + ρ·E[S³]/(3(1 − ρ)): Pollaczek–Khinchine and Takács,
	// exact for M/G/1; Kingman's heavy-traffic form with the same third
	// moment term otherwise.
	MeanSojourn     float64 `json:"mean_sojourn"`
	SojournVariance float64 `json:"sojourn_variance"`
	// AsymptoticVariance σ² of the per-job sojourn series: the mean of n
	// jobs (of all servers, which under random dispatch are independent)
	// has variance ≈ σ²/n. σ² = 2·Var(T)·ρ·τ_r/2: the integrated
	// correlation time of reflected Brownian motion is half its
	// relaxation time, ρ·τ_r/2 jobs of one server. It is exact as ρ → 1
	// and low before: for M/M/1 at ρ = 0.9 it gives 34,200 where long
	// simulations measure about 40,000. The sequential runs of the coverage
	// tests (M/M/1, M/H2/1 with SCV 10 and 30 at ρ = 0.9) stop after about
	// 1.6 times ForPrecision: this 15%, and the procedure's margins (the t
	// quantile, the longer side of the skew-corrected interval, the checks'
	// overshoot).
	AsymptoticVariance float64 `json:"asymptotic_variance"`
	// JobsPerRelaxation is how many observations of the series (jobs of
	// all N servers) one relaxation time holds: ρ·N·τ_r.
	JobsPerRelaxation float64 `json:"jobs_per_relaxation"`
	// Minimum is the fewest observations a replication needs:
	// RefuseRelaxations relaxation times per server.
	Minimum int64 `json:"minimum"`
	// ForPrecision is the observations, all replications together, that
	// meet the precision of the Settings on the mean time in system:
	// σ²·(z/(ε/(1+ε)·E[T]))² at level 1 − α, z = Φ⁻¹(1 − α/2).
	ForPrecision int64 `json:"for_precision"`
	// Recommended is the run of one replication that meets both the
	// precision and RecommendRelaxations relaxation times per server: the
	// larger of the two.
	Recommended int64 `json:"recommended"`
}

// NewPlan works out the plan of m under the precision and level of s
// (nil: the defaults). It is an error, before any work, when m is invalid
// or when even the minimal run is beyond MaxRun observations (λ so close
// to 1 that no run reaches steady state): the error names the Load.
func NewPlan(m Model, s *Settings) (*Plan, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	st, err := s.normalized()
	if err != nil {
		return nil, err
	}
	rho, v := m.Load, m.ArrivalSCV+m.SizeSCV
	d := 1 - math.Sqrt(rho)
	p := &Plan{Model: m}
	p.RelaxationTime = v / (2 * d * d)
	p.JobsPerRelaxation = rho * float64(m.Servers) * p.RelaxationTime
	minimum := RefuseRelaxations * p.JobsPerRelaxation
	if !(minimum <= MaxRun) {
		return nil, param.Errorf("Load", "%v: a server's queue relaxes in about %.3g mean service times, so even the minimal run (%d relaxation times on each of %d servers) is %.3g jobs, beyond any run (%.0g): no run reaches steady state", rho, p.RelaxationTime, RefuseRelaxations, m.Servers, minimum, MaxRun)
	}
	m3 := m.SizeMoment3
	if m3 == 0 {
		m3 = (1 + m.SizeSCV) * (1 + 2*m.SizeSCV)
	}
	w := rho * v / (2 * (1 - rho))
	p.MeanSojourn = 1 + w
	p.SojournVariance = w*w + rho*m3/(3*(1-rho)) + m.SizeSCV
	p.AsymptoticVariance = 2 * p.SojournVariance * rho * p.RelaxationTime / 2
	p.Minimum = int64(math.Ceil(minimum))
	eps := st.Precision / (1 + st.Precision)
	if st.Precision < 0 {
		eps = st.AbsPrecision / p.MeanSojourn
	}
	z := distuv.UnitNormal.Quantile(0.5 + st.Level/2)
	r := z / (eps * p.MeanSojourn)
	p.ForPrecision = clampRun(p.AsymptoticVariance * r * r)
	p.Recommended = max(p.ForPrecision, clampRun(RecommendRelaxations*p.JobsPerRelaxation))
	return p, nil
}

func clampRun(x float64) int64 { return int64(min(math.Ceil(x), 1<<62)) }

// Verdict is a plan's judgement of a requested run.
type Verdict int

const (
	// Adequate: the run covers the recommended length.
	Adequate Verdict = iota
	// Short: the run can give steady-state estimates but probably not at
	// the precision (or the independence test will keep rejecting): a
	// warning.
	Short
	// Hopeless: a replication covers fewer than RefuseRelaxations
	// relaxation times per server: refuse before any work.
	Hopeless
)

// String is the verdict's name, as in JSON.
func (v Verdict) String() string {
	switch v {
	case Adequate:
		return "adequate"
	case Short:
		return "short"
	case Hopeless:
		return "hopeless"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < Adequate || v > Hopeless {
		return nil, fmt.Errorf("steadystate: undeclared verdict %d", int(v))
	}
	return []byte(v.String()), nil
}

// Assessment is what Assess says of a requested run.
type Assessment struct {
	Verdict Verdict `json:"verdict"`
	// Relaxations is the number of relaxation times per server one
	// replication covers.
	Relaxations float64 `json:"relaxations"`
	// Reason says in one line why (empty when Adequate).
	Reason string `json:"reason,omitempty"`
}

// Assess judges a run of reps replications of perRep observations each
// (jobs of all servers), before any work.
func (p *Plan) Assess(perRep int64, reps int) Assessment {
	reps = max(reps, 1)
	a := Assessment{Relaxations: float64(perRep) / p.JobsPerRelaxation}
	total := float64(perRep) * float64(reps)
	switch {
	case perRep < p.Minimum:
		a.Verdict = Hopeless
		a.Reason = fmt.Sprintf("each replication covers %.3g relaxation times of a server's queue (τ ≈ %.3g mean service times), fewer than %d: no steady state can be found; run at least %d jobs per replication (%d recommended)",
			a.Relaxations, p.RelaxationTime, RefuseRelaxations, p.Minimum, p.Recommended)
	case total < float64(p.ForPrecision):
		a.Verdict = Short
		a.Reason = fmt.Sprintf("%.3g jobs in all, fewer than the %d the precision needs (asymptotic variance ≈ %.3g)", total, p.ForPrecision, p.AsymptoticVariance)
	case perRep < p.Recommended && a.Relaxations < RecommendRelaxations:
		a.Verdict = Short
		a.Reason = fmt.Sprintf("each replication covers %.3g relaxation times per server, fewer than the %d the batch means need to pass their independence test", a.Relaxations, RecommendRelaxations)
	}
	return a
}
