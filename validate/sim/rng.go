package sim

import (
	"math"
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

// fineTail is the value of 1 − float64() below which tailUniform refines
// its draw: 2⁻¹¹, where the 53-bit grid's spacing becomes coarser than
// 2⁻⁴² relative to the value.
const fineTail = 1 << 42

// tailUniform is uniform on (0, 1] with a relative resolution of at least
// 2⁻⁴² everywhere, down to 2⁻¹⁰⁰⁰: the heavy-tail samplers raise it to a
// negative power, where 1 − float64() (a multiple of 2⁻⁵³) would cut the
// tail at 2⁵³ and lose its mass (for a Pareto of shape a, a fraction
// 2^(−53(a−1)/a) of the mean: 0.3% at a = 1.2, 27% at a = 1.05).
//
// It draws u = j·2⁻⁵³ as 1 − float64() does (the same number, from the
// same single draw, whenever u > 2⁻¹¹); below, where u stands for the
// interval ((j−1)·2⁻⁵³, j·2⁻⁵³], a second draw places it uniformly inside
// that interval, and for j = 1 the draw recurses into (0, 2⁻⁵³].
func (r *rng) tailUniform() float64 {
	scale := 1.0
	for {
		j := 1<<53 - r.src.Uint64()>>11 // 1 … 2⁵³
		if j > fineTail {
			return scale * float64(j) * (1.0 / (1 << 53))
		}
		if j > 1 || scale < 0x1p-940 {
			return scale * (float64(j) - r.float64()) * (1.0 / (1 << 53))
		}
		scale *= 1.0 / (1 << 53)
	}
}

// intn is uniform on 0..n−1 (Lemire's multiply-shift; the bias, below
// n/2⁶⁴, is far below anything a simulation can see).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int(hi)
}

// exp is exponential with mean 1, positive and finite. The ziggurat
// returns exactly 0 with probability about 2⁻³² (and +Inf, from the log of
// a zero uniform in its tail, with probability below 2⁻⁶⁰); both are
// redrawn, since a size of 0 makes a slowdown 0/0 and an infinite time
// poisons every mean. The stream is unchanged whenever neither occurs.
func (r *rng) exp() float64 {
	for {
		if x := r.r.ExpFloat64(); x > 0 && x <= math.MaxFloat64 {
			return x
		}
	}
}
