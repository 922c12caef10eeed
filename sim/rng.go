package sim

import (
	"math"
	"math/bits"
)

// rng is a replication's random stream: PCG for uniforms and the
// ziggurat for exponentials, both written out so that a draw is inlined
// or a direct call, never an interface call. They give exactly the
// numbers of math/rand/v2's PCG and Rand.ExpFloat64 (tests), so the
// streams are those of the standard library.
type rng struct {
	src pcg
}

// pcg is math/rand/v2's PCG (a 128-bit linear congruential state with
// the DXSM output function) written out so that the compiler inlines a
// draw: rand.PCG's Uint64 is just over its inlining budget, and a call
// per draw is a measurable share of a best-of-two event. The same seed
// gives the same numbers as rand.NewPCG (TestPCGMatchesStdlib).
type pcg struct{ hi, lo uint64 }

// Uint64 advances the state (state·mul + inc mod 2¹²⁸, the constants of
// PCG's reference implementation) and returns the DXSM output: the high
// word xor-shifted, multiplied by a 64-bit constant, xor-shifted again
// and multiplied by the odd-forced low word.
func (p *pcg) Uint64() uint64 {
	const (
		mulHi, mulLo = 2549297995355413924, 4865540595714422341
		incHi, incLo = 6364136223846793005, 1442695040888963407
		cheapMul     = 0xda942042e4dd58b5
	)
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	p.hi, p.lo = hi, lo
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// newRNG returns the stream of replication rep under seed: both PCG words
// are derived by SplitMix64 from (seed, rep), so streams of different
// replications are unrelated and depend on nothing else.
func newRNG(seed uint64, rep int) *rng {
	s := seed ^ 0x9e3779b97f4a7c15*uint64(rep+1)
	a := splitmix(&s)
	b := splitmix(&s)
	return &rng{src: pcg{a, b}}
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
		if x := r.ziggurat(); x > 0 && x <= math.MaxFloat64 {
			return x
		}
	}
}

// ziggurat is Marsaglia and Tsang's ziggurat method for the exponential
// of mean 1 ("The Ziggurat Method for Generating Random Variables", J.
// Stat. Softw. 5(8), 2000) with 256 layers, drawing as math/rand/v2's
// Rand.ExpFloat64 does: one 64-bit draw gives the layer (bits 32–39) and
// a 32-bit abscissa; inside the layer's rectangle under the next one
// (most draws) that is the value; layer 0 is the tail, x_0 − log U;
// otherwise a second uniform accepts the point under the density.
func (r *rng) ziggurat() float64 {
	for {
		u := r.src.Uint64()
		j := uint32(u)
		i := uint8(u >> 32)
		x := float64(j) * float64(zigW[i])
		if j < zigK[i] {
			return x
		}
		if i == 0 {
			return zigTail - math.Log(r.stdFloat64())
		}
		if zigF[i]+float32(r.stdFloat64())*(zigF[i-1]-zigF[i]) < float32(math.Exp(-x)) {
			return x
		}
	}
}

// stdFloat64 is uniform on [0, 1) from the low 53 bits, as
// math/rand/v2's Rand.Float64 (float64 uses the high bits).
func (r *rng) stdFloat64() float64 {
	return float64(r.src.Uint64()<<11>>11) / (1 << 53)
}

// zigTail is the tail's start as math/rand/v2 writes it.
const zigTail = 7.69711747013104972

// The ziggurat's tables: for layer i, zigK[i] is the fraction (of 2³²)
// of the layer's width under the layer above, zigW[i] scales a 32-bit
// abscissa to the layer's width, zigF[i] is the density at the layer's
// edge. They are computed by the recursion of Marsaglia and Tsang's
// setup — edge x_{i−1} = −log(v/x_i + e^{−x_i}), where v is every
// layer's area — from x_255 = 7.697117470131487 and
// v = 3.949659822581572·10⁻³, rounded as math/rand/v2's tables are
// (tested entry by entry through the draws).
var zigK, zigW, zigF = zigTables()

func zigTables() (k [256]uint32, w, f [256]float32) {
	const m = 1 << 32
	const v = 3.949659822581572e-3
	x := 7.697117470131487
	q := v / math.Exp(-x)
	k[0] = uint32(x / q * m)
	w[0] = float32(q / m)
	w[255] = float32(x / m)
	f[0] = 1
	f[255] = float32(math.Exp(-x))
	prev := x
	for i := 254; i >= 1; i-- {
		x = -math.Log(v/x + math.Exp(-x))
		k[i+1] = uint32(x / prev * m)
		prev = x
		f[i] = float32(math.Exp(-x))
		w[i] = float32(x / m)
	}
	return k, w, f
}
