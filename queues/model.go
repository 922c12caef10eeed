package queues

import (
	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Bounds of the models' parameters.
const (
	// MinLoad is the smallest load solved.
	MinLoad = 1e-6
	// MaxStates bounds the server states of a truncated chain (2²² states:
	// 32 MB per probability vector).
	MaxStates = 1 << 22
)

// law is a job-size law of mean 1 as the chains use it: phase k (0: the
// small jobs, 1: the giants of H2) has probability p[k] and rate mu[k].
type law struct {
	p, mu []float64
	scv   float64
}

// lawOf returns the exponential or balanced-means H2 law (farm.H2Params:
// with probability p a giant of mean 1/(2p), otherwise a small job of
// mean 1/(2(1 − p))); the models take no other law.
func lawOf(z farm.Sizes) (law, error) {
	if err := z.Validate(); err != nil {
		return law{}, err
	}
	switch z.Kind {
	case farm.Exponential:
		return law{p: []float64{1}, mu: []float64{1}, scv: 1}, nil
	case farm.H2:
		p, giant, small := farm.H2Params(z.SCV)
		return law{p: []float64{1 - p, p}, mu: []float64{1 / small, 1 / giant}, scv: z.SCV}, nil
	}
	return law{}, param.Errorf("Sizes", "%v: the queue models take exp or h2:SCV sizes", z)
}

// h2 reports whether the law has two phases.
func (l law) h2() bool { return len(l.p) == 2 }

func validLoad(load float64) error {
	if !param.Finite(load) || load < MinLoad || load >= 1 {
		return param.Errorf("Load", "λ = %v, want %v ≤ λ < 1 (at λ ≥ 1 the queues grow without bound)", load, MinLoad)
	}
	return nil
}

func validDiscipline(d farm.Discipline) error {
	if !d.Valid() {
		return param.Errorf("Discipline", "unknown discipline %d", int(d))
	}
	return nil
}

// Settings control the solvers. A nil pointer or a zero field means the
// documented default.
type Settings struct {
	// Run: cancellation (checked between iterations) and progress. The
	// solvers run on one goroutine.
	outcome.Run
	// TailTol is the largest probability a truncation may cut off (the
	// fraction of arrivals finding the top level of a truncated chain).
	// Default 1e-10; for SolveJSQ 1e-5, because each server with three
	// jobs that its chain tracks cuts the arrivals turned away by only a
	// tenth while multiplying the cost (those jobs move E[T] by about their
	// fraction: 2·10⁻⁶ at N = 100, λ = 0.9).
	TailTol float64
	// Tol is the ‖·‖₁ change of the stationary vector at which an
	// iterative solve stops. Default 1e-10.
	Tol float64
	// MaxIter bounds the iterations of an iterative solve. Default 2,000.
	MaxIter int
}

func (s *Settings) tailTol() float64 {
	if s == nil {
		return 1e-10
	}
	return param.Or(s.TailTol, 1e-10)
}

func (s *Settings) tol() float64 {
	if s == nil {
		return 1e-10
	}
	return param.Or(s.Tol, 1e-10)
}

func (s *Settings) maxIter() int {
	if s == nil {
		return 2000
	}
	return param.Or(s.MaxIter, 2000)
}

func (s *Settings) run() outcome.Run {
	if s == nil {
		return outcome.Run{}
	}
	return s.Run
}

func (s *Settings) validate() error {
	if s == nil {
		return nil
	}
	if !param.Finite(s.TailTol) || s.TailTol < 0 || s.TailTol > 1e-3 {
		return param.Errorf("TailTol", "%v, want 0 (default 1e-10) or in (0, 1e-3]", s.TailTol)
	}
	if !param.Finite(s.Tol) || s.Tol < 0 || s.Tol > 1e-3 {
		return param.Errorf("Tol", "%v, want 0 (default 1e-10) or in (0, 1e-3]", s.Tol)
	}
	if s.MaxIter < 0 || s.MaxIter > 1_000_000 {
		return param.Errorf("MaxIter", "%d, want 0 (default 2,000) or 1..1,000,000", s.MaxIter)
	}
	return nil
}

// Result is what every farm model here computes, per job and per server.
// T is a job's time in system and S its size (mean 1).
type Result struct {
	// Outcome: Exact for closed forms and finite eliminations, Converged
	// for an iteration that met Settings.Tol; otherwise the limit or the
	// failure (the numbers are then those of the last iterate).
	// Evaluations counts the iterations of an iterative solve (0 for the
	// direct ones).
	outcome.Outcome
	// Sojourn is E[T], MeanQueue the time-average number of jobs per
	// server (λ·E[T], Little's law).
	Sojourn, MeanQueue float64
	// Delay is E[T] − 1, the time a job spends in the system beyond its
	// size. Under FCFS it is the wait before service, E[W].
	Delay float64
	// WaitProb is the probability that a job does not have its server to
	// itself on arrival: under FCFS P(W > 0), under PS the probability of
	// arriving to share a busy server.
	WaitProb float64
	// Slowdown is E[T/S] where it is finite and computed; otherwise 0,
	// and SlowdownNote says why (one line).
	Slowdown     float64
	SlowdownNote string
	// Approximate reports that the numbers are an approximation, not the
	// exact value of the model; Method names how they were computed, and
	// Note, for an approximation, how far it was measured from simulation.
	Approximate bool
	Method      string
	Note        string
	// MaxQueue is the truncation of a truncated chain (jobs per server, or
	// jobs in the farm for a central queue), Lost the fraction of arrivals
	// it turned away, States the states solved; 0 where nothing was
	// truncated.
	MaxQueue int
	Lost     float64
	States   int
}

// finish fills MeanQueue and Delay from Sojourn, checks that nothing is
// NaN or out of range (InvalidResult if so) and stamps the time.
func (r *Result) finish(load float64) {
	r.MeanQueue = load * r.Sojourn
	r.Delay = r.Sojourn - 1
	if r.Delay < 0 && r.Delay > -1e-12 {
		r.Delay = 0
	}
	for _, v := range []float64{r.Sojourn, r.MeanQueue, r.Delay, r.WaitProb, r.Slowdown, r.Lost} {
		if !param.Finite(v) || v < 0 {
			r.Status = outcome.InvalidResult
		}
	}
	if r.WaitProb > 1+1e-12 || r.Lost > 1 {
		r.Status = outcome.InvalidResult
	}
	if r.Status != outcome.InvalidResult {
		return
	}
	// No NaN leaves: the numbers of an invalid result are zeroed, its
	// Status says why.
	for _, p := range []*float64{&r.Sojourn, &r.MeanQueue, &r.Delay, &r.WaitProb, &r.Slowdown, &r.Lost} {
		if !param.Finite(*p) {
			*p = 0
		}
	}
}

// slowdownFCFS is the note for FCFS with exponential or H2 sizes.
const slowdownFCFS = "infinite: under FCFS the wait W is independent of the size S and positive with positive probability, and E[1/S] = ∞ for exponential and H2 sizes"
