package sim

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/jackson"
	"github.com/fluidlb/fluid/outcome"
)

// coverageRuns is the number of independent runs per case of the coverage
// test: FLUID_COVERAGE_RUNS, default 200.
func coverageRuns() int {
	if n, err := strconv.Atoi(os.Getenv("FLUID_COVERAGE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 200
}

// coverageCase is a model with an exactly known steady-state mean, run on
// the default settings (except RelPrecision where stated) many times.
type coverageCase struct {
	name  string
	model Model
	eps   float64 // RelPrecision (0: the default 2%)
	exact float64
	what  func(*Result) Estimate // the estimate checked (default: the mean time in system)
}

// erlangSojourn is the mean time in system of the E_k/M/1 queue at load
// λ (interarrival times Erlang-k of mean 1/λ, exponential service of mean
// 1): 1/(1 − σ), σ the root in (0, 1) of σ = (kλ/(kλ + 1 − σ))^k, the
// Laplace transform of the interarrival time at 1 − σ (Kleinrock,
// Queueing Systems I, §6.4). Round robin of a Poisson stream over k
// servers gives each of them exactly this queue.
func erlangSojourn(k int, lambda float64) float64 {
	lo, hi := 0.0, 1-1e-15
	for range 200 { // bisection on f(σ) = A(1 − σ) − σ, positive below the root
		mid := (lo + hi) / 2
		kl := float64(k) * lambda
		if math.Pow(kl/(kl+1-mid), float64(k))-mid > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 1 / (1 - (lo+hi)/2)
}

// The coverage of the default procedure: on models with exact answers,
// the default 95% interval covers the exact value in 90–98% of ≥ 200
// independent runs (runs of independent seeds; the band is the nominal
// 95% less the known small loss of sequential stopping, and a binomial
// 200-run count falls outside 91–98.5% less than 1% of the time at true
// coverage 95%). Each case states its exact value's source. The load is
// 0.8 at N = 10 so that 200 runs of each fit in the CI tier (the failures
// of the issue were the same at 0.9: runs shorter than the relaxation
// time, which the planner now refuses); the H2 cases run at a looser
// precision (5%, 10%) for the same reason — a looser target stops
// earlier, where initialisation bias and lucky stops hurt the coverage
// most, so it is the harder test of the procedure.
//
// Long: set FLUID_COVERAGE=1 (.ci/run does); FLUID_COVERAGE_RUNS changes
// the number of runs.
func TestCoverage(t *testing.T) {
	if os.Getenv("FLUID_COVERAGE") == "" {
		t.Skip("the coverage test runs with FLUID_COVERAGE=1 (about 10 minutes on 2 cores)")
	}
	const n, load = 10, 0.8
	h2 := func(scv float64) farm.Sizes { return farm.Sizes{Kind: farm.H2, SCV: scv} }
	// Pollaczek–Khinchine: E[T] = 1 + λ(1 + c²)/(2(1 − λ)) for M/G/1 FCFS.
	pk := func(scv float64) float64 { return 1 + load*(1+scv)/(2*(1-load)) }
	jq, err := jackson.Solve(&jackson.JIQ{Servers: 100, Load: 0.9, Alpha: []float64{0.7, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	blocking := func(r *Result) Estimate { return r.Blocking }
	cases := []coverageCase{
		{"M/M/1 (random, exp)", Model{Servers: n, Load: load}, 0, 1 / (1 - load), nil},
		{"M/G/1 (random, h2:10)", Model{Servers: n, Load: load, Sizes: h2(10)}, 0.05, pk(10), nil},
		{"M/G/1 (random, h2:30)", Model{Servers: n, Load: load, Sizes: h2(30)}, 0.1, pk(30), nil},
		{"M/G/1-PS (random, h2:30)", Model{Servers: n, Load: load, Sizes: h2(30), Discipline: farm.PS}, 0.1, 1 / (1 - load), nil},
		{"E_10/M/1 (round robin, exp)", Model{Servers: n, Load: load, Policy: farm.Policy{Kind: farm.RoundRobin}}, 0, erlangSojourn(n, load), nil},
		{"JIQ blocking, N = 100 (Jackson)", Model{Servers: 100, Load: 0.9, Alpha: []float64{0.7, 0.3}, Policy: farm.Policy{Kind: farm.JIQBlocking}}, 0, jq.Blocking, blocking},
	}
	runs := coverageRuns()
	t.Logf("%-32s %8s %6s %8s %6s %6s %10s", "case", "exact", "runs", "covered", "low", "high", "jobs/run")
	for ci, c := range cases {
		covered, low, high := 0, 0, 0
		var jobs int64
		statuses := map[outcome.Status]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					s := &Settings{Seed: uint64(1_000_000*(ci+1) + i), RelPrecision: c.eps}
					s.Workers = 1
					r, err := Run(&c.model, s)
					if err != nil {
						t.Error(err)
						continue
					}
					e := r.Sojourn
					if c.what != nil {
						e = c.what(r)
					}
					mu.Lock()
					statuses[r.Status]++
					jobs += r.Jobs
					switch {
					case e.Covers(c.exact):
						covered++
					case e.Upper < c.exact:
						low++
					default:
						high++
					}
					mu.Unlock()
				}
			}()
		}
		for i := range runs {
			next <- i
		}
		close(next)
		wg.Wait()
		frac := float64(covered) / float64(runs)
		t.Logf("%-32s %8.5g %6d %7.1f%% %6d %6d %10.3g  %v", c.name, c.exact, runs, 100*frac, low, high, float64(jobs)/float64(runs), statuses)
		if runs >= 200 && (frac < 0.90 || frac > 0.98) {
			t.Errorf("%s: the 95%% interval covers %v in %.1f%% of %d runs, want 90–98%%", c.name, c.exact, 100*frac, runs)
		}
	}
}

// The E_k/M/1 root against the M/M/1 limit (k = 1: σ = λ), and at
// k = 10, λ = 0.8 a root of its equation below λ (the Erlang arrivals are
// more regular than Poisson ones: less waiting).
func TestErlangSojourn(t *testing.T) {
	if got := erlangSojourn(1, 0.8); math.Abs(got-5) > 1e-9 {
		t.Errorf("k = 1: %v, want the M/M/1 5", got)
	}
	s := 1 - 1/erlangSojourn(10, 0.8)
	if r := math.Pow(8/(8+1-s), 10); math.Abs(r-s) > 1e-12 || !(s > 0 && s < 0.8) {
		t.Errorf("k = 10: σ = %v, A(1 − σ) = %v", s, r)
	}
}
