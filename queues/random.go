package queues

import (
	"time"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/param"
	"github.com/fluidlb/fluid/outcome"
)

// Random is a farm of N servers behind a dispatcher that sends each job
// to a server chosen uniformly at random: the Poisson stream splits into
// N independent Poisson streams of rate λ, and every server is an M/G/1
// queue, whatever N.
type Random struct {
	// Servers N, 1..MaxServers (the answer does not depend on it).
	Servers int
	// Load is λ per server, MinLoad ≤ λ < 1.
	Load float64
	// Discipline of the servers (default FCFS).
	Discipline farm.Discipline
	// Sizes is the job-size law: exponential (the default) or H2.
	Sizes farm.Sizes
}

// Validate checks the parameters (*param.Error names the bad field).
func (m *Random) Validate() error {
	if m.Servers < 1 || m.Servers > MaxServers {
		return param.Errorf("Servers", "N = %d, want 1..%d", m.Servers, MaxServers)
	}
	if err := validLoad(m.Load); err != nil {
		return err
	}
	if err := validDiscipline(m.Discipline); err != nil {
		return err
	}
	_, err := lawOf(m.Sizes)
	return err
}

// SolveRandom gives the M/G/1 queue in closed form: under FCFS
// E[T] = 1 + λ(1 + c²)/(2(1 − λ)) (Pollaczek–Khinchine) and
// P(W > 0) = λ; under PS E[T | S = x] = x/(1 − λ) for every size law
// (Kleinrock, Queueing Systems vol. 2, §4.4; Kelly's symmetric queues), so
// E[T] = 1/(1 − λ), the slowdown E[T/S] = 1/(1 − λ) exactly, and a job
// arrives to share with probability λ.
func SolveRandom(m *Random, _ *Settings) (*Result, error) {
	start := time.Now()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	lw, _ := lawOf(m.Sizes)
	res := &Result{WaitProb: m.Load}
	res.Status = outcome.Exact
	if m.Discipline == farm.PS {
		res.Sojourn = 1 / (1 - m.Load)
		res.Slowdown = res.Sojourn
		res.Method = "M/G/1-PS: E[T | S = x] = x/(1 − λ)"
	} else {
		res.Sojourn = 1 + m.Load*(1+lw.scv)/(2*(1-m.Load))
		res.SlowdownNote = slowdownFCFS
		res.Method = "M/G/1 FCFS: Pollaczek–Khinchine"
	}
	res.finish(m.Load)
	res.Elapsed = time.Since(start)
	return res, nil
}
