package sim

import (
	"math/bits"
	"math/rand/v2"
)

// rng is a replication's random stream: PCG (math/rand/v2) called
// directly for uniforms, and its ziggurat exponential.
type rng struct {
	src *rand.PCG
	r   *rand.Rand
}

// newRNG returns the stream of replication rep under seed: both PCG words
// are derived by SplitMix64 from (seed, rep), so streams of different
// replications are unrelated and depend on nothing else.
func newRNG(seed uint64, rep int) *rng {
	s := seed ^ 0x9e3779b97f4a7c15*uint64(rep+1)
	a := splitmix(&s)
	b := splitmix(&s)
	src := rand.NewPCG(a, b)
	return &rng{src: src, r: rand.New(src)}
}

func splitmix(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float64 is uniform on [0, 1).
func (r *rng) float64() float64 { return float64(r.src.Uint64()>>11) * (1.0 / (1 << 53)) }

// intn is uniform on 0..n−1 (Lemire's multiply-shift; the bias, below
// n/2⁶⁴, is far below anything a simulation can see).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int(hi)
}

// exp is exponential with mean 1.
func (r *rng) exp() float64 { return r.r.ExpFloat64() }
