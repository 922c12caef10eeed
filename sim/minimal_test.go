package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/fluidlb/fluid/farm"
	"github.com/fluidlb/fluid/internal/cputime"
)

// minimalBestOfTwo is the speed reference for the simulator's inner loop:
// the smallest event loop we know for best of two (with replacement) on n
// FCFS servers with unit-mean exponential sizes at load λ, and nothing
// else — a hand-written binary heap of departures (one entry per busy
// server), a ring buffer of arrival times per server, PCG draws. It
// returns the mean time in system of the jobs after the first warmup
// arrivals and the number of events. It shares no code with the engine,
// so it is also an independent check of the engine's result.
func minimalBestOfTwo(n int, load float64, warmup, jobs int, seed uint64) (sojourn float64, events int64) {
	const ringCap = 256 // per server; a longer queue panics (index out of range)
	src := rand.NewPCG(seed, seed^0xda3e39cb94b95bdb)
	r := rand.New(src)
	ring := make([]float64, n*ringCap)
	head := make([]int32, n)
	qlen := make([]int32, n)
	type dep struct {
		t float64
		s int32
	}
	h := make([]dep, 0, n)
	down := func(j int) {
		for {
			l := 2*j + 1
			if l >= len(h) {
				return
			}
			if l+1 < len(h) && h[l+1].t < h[l].t {
				l++
			}
			if h[j].t <= h[l].t {
				return
			}
			h[j], h[l] = h[l], h[j]
			j = l
		}
	}
	rate := load * float64(n)
	var now, sum float64
	nextArr := r.ExpFloat64() / rate
	arrived, done := 0, 0
	for done < jobs {
		events++
		if len(h) == 0 || nextArr < h[0].t {
			now = nextArr
			nextArr = now + r.ExpFloat64()/rate
			hi, _ := bits.Mul64(src.Uint64(), uint64(n))
			lo, _ := bits.Mul64(src.Uint64(), uint64(n))
			i := int(hi)
			if qlen[lo] < qlen[i] {
				i = int(lo)
			}
			ring[i*ringCap+int((head[i]+qlen[i])&(ringCap-1))] = now
			if arrived < warmup {
				ring[i*ringCap+int((head[i]+qlen[i])&(ringCap-1))] = -1
			}
			arrived++
			qlen[i]++
			if qlen[i] == 1 {
				h = append(h, dep{now + r.ExpFloat64(), int32(i)})
				for j := len(h) - 1; j > 0 && h[(j-1)/2].t > h[j].t; j = (j - 1) / 2 {
					h[j], h[(j-1)/2] = h[(j-1)/2], h[j]
				}
			}
			continue
		}
		now = h[0].t
		i := int(h[0].s)
		if a := ring[i*ringCap+int(head[i])]; a >= 0 {
			sum += now - a
			done++
		}
		head[i] = (head[i] + 1) & (ringCap - 1)
		qlen[i]--
		if qlen[i] > 0 {
			h[0].t = now + r.ExpFloat64()
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return sum / float64(done), events
}

// TestMinimalLoopAgrees checks the engine's best of two, the general
// engine and the Markovian fast path each, against the minimal loop, an
// independent implementation of the same model: mean time in system at
// N = 100, λ = 0.9, from 20 replications of each. The tolerance is 4
// standard errors of the difference (the replications' spread measured
// here), so the test fails on a real difference of a few tenths of a
// percent — a wrong tie rule, a queue off by one — and practically never
// by chance.
func TestMinimalLoopAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("20 + 20 + 20 replications of 200,000 jobs")
	}
	const reps, jobs, warmup = 20, 200_000, 20_000
	c, err := config{Model: Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2, Replacement: true}}, Settings: Settings{Jobs: jobs, Warmup: warmup, Seed: 7}}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	var b []float64
	for i := range reps {
		s, _ := minimalBestOfTwo(100, 0.9, warmup, jobs, uint64(1000+i))
		b = append(b, s)
	}
	mb, vb := meanVar(b)
	defer func() { disableMarkov = false }()
	for _, general := range []bool{true, false} {
		disableMarkov = general
		var a []float64
		for i := range reps {
			a = append(a, runRep(c, i, nil).Sojourn)
		}
		ma, va := meanVar(a)
		se := math.Sqrt(va/reps + vb/reps)
		t.Logf("engine (general %v) %.5f, minimal loop %.5f, difference %.5f ± %.5f (1 s.e.)", general, ma, mb, ma-mb, se)
		if math.Abs(ma-mb) > 4*se {
			t.Errorf("engine (general %v) sojourn %.5f vs minimal loop %.5f: differ by %.1f standard errors", general, ma, mb, math.Abs(ma-mb)/se)
		}
	}
}

func meanVar(x []float64) (m, v float64) {
	for _, y := range x {
		m += y
	}
	m /= float64(len(x))
	for _, y := range x {
		v += (y - m) * (y - m)
	}
	return m, v / float64(len(x)-1)
}

// bestOfTwoBench is the engine's configuration of BenchmarkMinimalLoop.
var bestOfTwoBench = config{Model: Model{Servers: 100, Load: 0.9, Policy: farm.Policy{Kind: farm.JSQd, D: 2, Replacement: true}}, Settings: Settings{Jobs: 1_000_000, Warmup: -1}}

// BenchmarkMinimalLoop runs the minimal loop and the engine on the same
// model (best of two with replacement, FCFS, exponential sizes, N = 100,
// λ = 0.9, 10⁶ jobs), alternating, in one benchmark, and reports each
// one's events per second and their ratio — the figure of merit, which
// machine noise moves far less than either time.
func BenchmarkMinimalLoop(b *testing.B) {
	c, err := bestOfTwoBench.normalized()
	if err != nil {
		b.Fatal(err)
	}
	disableMarkov = true // the general engine: BenchmarkMarkovFastPath times the fast path
	defer func() { disableMarkov = false }()
	var p cputime.Pair
	var evMin, evEng int64
	for i := 0; b.Loop(); i++ {
		p.Run(func() {
			_, ev := minimalBestOfTwo(c.Servers, c.Load, 0, c.Jobs, uint64(i+1))
			evMin += ev
		}, func() {
			evEng += runRep(c, i, nil).Events
		})
	}
	tMin, tEng := p.Wall[0].Seconds(), p.Wall[1].Seconds()
	b.ReportMetric(float64(evMin)/tMin/1e6, "Mevents/s-minimal")
	b.ReportMetric(float64(evEng)/tEng/1e6, "Mevents/s-engine")
	b.ReportMetric((tEng/float64(evEng))/(tMin/float64(evMin)), "engine/minimal")
}

// BenchmarkMinimalOnly and BenchmarkEngineOnly run one side of
// BenchmarkMinimalLoop each, for profiles (-cpuprofile) of either loop.
func BenchmarkMinimalOnly(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		minimalBestOfTwo(100, 0.9, 0, 1_000_000, uint64(i+1))
	}
}

func BenchmarkEngineOnly(b *testing.B) {
	c, err := bestOfTwoBench.normalized()
	if err != nil {
		b.Fatal(err)
	}
	disableMarkov = true
	defer func() { disableMarkov = false }()
	for i := 0; b.Loop(); i++ {
		runRep(c, i, nil)
	}
}
