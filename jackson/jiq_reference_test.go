package jackson

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/fluidlb/fluid/internal/approx"
	"github.com/fluidlb/fluid/outcome"
)

// solveReference is the previous implementation of Solve, kept as an
// exact reference: the general network solve (Buzen's convolution with
// the delay station's log factors, O(N) memory), one more chain per pool
// for P(n_r = 0) (O(N·R²) in all) and the token means from the tails
// ρ^k·G(N−k)/G(N).
func solveReference(m *JIQ) (*JIQResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	nw, idx := m.Network()
	sol, err := nw.Solve(m.Servers)
	if err != nil {
		return nil, err
	}
	n := float64(m.Servers)
	res := &JIQResult{
		Servers:  m.Servers,
		NoTokens: make([]float64, len(m.Alpha)),
		Tokens:   make([]float64, len(m.Alpha)),
		Busy:     sol.Throughput[0] / n, // E[n₀] = X₀/μ₀ = G(N−1)/G(N)
		Outcome:  outcome.Outcome{Status: outcome.Exact},
	}
	for r := range res.NoTokens {
		res.NoTokens[r] = 1
	}
	for j, r := range idx {
		res.NoTokens[r] = sol.ProbEmpty(j + 1)
		res.Tokens[r] = sol.MeanQueue(j+1) / n
	}
	for r, a := range m.Alpha {
		res.Blocking += a * res.NoTokens[r]
	}
	return res, nil
}

// negligible is the size below which two values count as equal: both
// implementations set chain values below about 1e-280 of the largest to
// zero.
const negligible = 1e-250

// agrees reports whether got agrees with want within rel relative, values
// in [0, negligible) on both sides counting as equal; a NaN agrees with nothing.
func agrees(got, want, rel float64) bool {
	if got >= 0 && got < negligible && want >= 0 && want < negligible {
		return true
	}
	return approx.Equal(got, want, 0, rel)
}

// relErr is |got − want|/|want| as agrees measures it (0 for two tiny
// values, +Inf when either is not finite), for the logs of the largest
// difference.
func relErr(got, want float64) float64 {
	switch {
	case agrees(got, want, 0):
		return 0
	case !approx.Equal(got, want, math.MaxFloat64, 0):
		return math.Inf(1)
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// checkRel fails t when got does not agree with want within rel relative
// (agrees), and records the difference in worst[what].
func checkRel(t *testing.T, worst map[string]float64, what string, got, want, rel float64) {
	t.Helper()
	worst[what] = math.Max(worst[what], relErr(got, want))
	if !agrees(got, want, rel) {
		t.Errorf("%s = %.17g, want %.17g (relative %.2g, tolerance %.2g)", what, got, want, relErr(got, want), rel)
	}
}

// jiqGrid lists the models the comparison tests solve.
func jiqGrid(maxN int) []*JIQ {
	alphas := [][]float64{
		{1}, {0.7, 0.3}, {0.5, 0.5}, {0.5, 0.3, 0.2}, {0.34, 0.33, 0.33}, {0.3, 0.25, 0.2, 0.15, 0.1},
		{0.19, 0.15, 0.13, 0.11, 0.1, 0.09, 0.07, 0.06, 0.05, 0.05},
		{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
	}
	var out []*JIQ
	for _, a := range alphas {
		for _, lam := range []float64{0.05, 0.5, 0.9, 0.99, 1, 1.2, 3} {
			for _, n := range []int{1, 2, 7, 100, 1000, 10000, 100000} {
				if n > maxN {
					continue
				}
				out = append(out, &JIQ{Servers: n, Load: lam, Alpha: a})
				if len(a) > 1 {
					// Token allotment β = α, and one pool that gets no tokens.
					out = append(out, &JIQ{Servers: n, Load: lam, Alpha: a, Beta: a})
					b := make([]float64, len(a))
					b[0], b[len(b)-1] = 0.25, 0.75
					out = append(out, &JIQ{Servers: n, Load: lam, Alpha: a, Beta: b})
				}
			}
		}
	}
	return out
}

// TestJIQAgainstReference compares Solve with the previous implementation
// (the general convolution with one chain per empty pool) on a grid of
// about 1,100 models up to N = 10⁵: blocking, each P(no tokens), the mean tokens
// and the busy fraction agree to 1e-11 relative, however small they are
// (the blocking goes down to 1e-236 here). Both are accurate to a few
// 1e-12 (TestJIQAgainstExact); the differences are the accumulated
// rounding of two recursions over N levels.
func TestJIQAgainstReference(t *testing.T) {
	maxN := 100000
	if testing.Short() {
		maxN = 10000
	}
	worst := map[string]float64{}
	for _, m := range jiqGrid(maxN) {
		t.Run(fmt.Sprintf("N=%d λ=%v α=%v β=%v", m.Servers, m.Load, m.Alpha, m.Beta), func(t *testing.T) {
			got, err := Solve(m)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := solveReference(m)
			if err != nil {
				t.Fatal(err)
			}
			checkRel(t, worst, "Blocking", got.Blocking, ref.Blocking, 1e-11)
			checkRel(t, worst, "Busy", got.Busy, ref.Busy, 1e-11)
			for r := range m.Alpha {
				checkRel(t, worst, "NoTokens", got.NoTokens[r], ref.NoTokens[r], 1e-11)
				checkRel(t, worst, "Tokens", got.Tokens[r], ref.Tokens[r], 1e-11)
			}
		})
	}
	t.Logf("largest relative differences from the reference: %v", worst)
}

// TestJIQAgainstExact compares Solve and the reference with the product
// form evaluated in 50-digit arithmetic (mpmath: the same level recursion
// with the delay factor 1/n!, and one chain per omitted pool for
// P(n_r = 0), from the same float64 inputs). Values beyond float64's range
// are expected as 0.
func TestJIQAgainstExact(t *testing.T) {
	cases := []struct {
		m             JIQ
		b, busy       string
		empty, tokens []string
	}{
		{JIQ{Servers: 100000, Load: 0.9, Alpha: []float64{1}}, "1.980034096359548487931244e-236", "0.9000000000000000222044605",
			[]string{"1.980034096359548487931244e-236"}, []string{"0.09999999999999997779553951"}},
		{JIQ{Servers: 100000, Load: 0.05, Alpha: []float64{1}}, "1.194329376751269395752719e-88848", "0.05000000000000000277555756",
			[]string{"1.194329376751269395752719e-88848"}, []string{"0.9499999999999999972244424"}},
		{JIQ{Servers: 100000, Load: 0.9, Alpha: []float64{0.5, 0.5}}, "0.00009999000099990003219902037", "0.8999100089991001121732612",
			[]string{"0.00009999000099990003219902037", "0.00009999000099990003219902037"}, []string{"0.05004499550044994391336942", "0.05004499550044994391336942"}},
		{JIQ{Servers: 100000, Load: 0.9, Alpha: []float64{0.7, 0.3}}, "0.3999999999999999666933093", "0.5399999999999999933386619",
			[]string{"0.5714285714285714172426222", "2.919809267807167762367062e-6786"}, []string{"0.000007500000000000000346944695", "0.4599925000000000066609912"}},
		{JIQ{Servers: 10000, Load: 0.9, Alpha: []float64{0.5, 0.3, 0.2}, Beta: []float64{0.5, 0.3, 0.2}}, "0.001978256959966482709828521", "0.8982195687360301877216887",
			[]string{"0.001978256959966482709828521", "0.001978256959966482709828521", "0.001978256959966482709828521"}, []string{"0.0339268104213232707594371", "0.0339268104213232707594371", "0.0339268104213232707594371"}},
		{JIQ{Servers: 100000, Load: 1.2, Alpha: []float64{0.5, 0.3, 0.2}}, "0.3999999999999999666933093", "0.7200000000000000133226763",
			[]string{"0.5999999999999999777955395", "0.3333333333333332716542764", "2.39244641544970838116507e-2109"}, []string{"0.000006666666666666667283457236", "0.00002000000000000000555111512", "0.2799733333333333200044891"}},
		{JIQ{Servers: 1000, Load: 0.5, Alpha: []float64{0.7, 0.3}}, "0.3999999999999999666933093", "0.2999999999999999888977698",
			[]string{"0.5714285714285714172426222", "3.147526664988565561081109e-195"}, []string{"0.0007500000000000000346944695", "0.6992500000000000110675358"}},
		{JIQ{Servers: 100000, Load: 0.99, Alpha: []float64{0.3333333333333333, 0.3333333333333333, 0.3333333333333334}}, "0.001816826293204093875745531", "0.9882013419697279931534041",
			[]string{"0.001816826293203982954297187", "0.001816826293203982954297187", "0.00181682629320431541607986"}, []string{"0.003932886010090805863955954", "0.003932886010090805863955954", "0.003932886010090395118683985"}},
		{JIQ{Servers: 2000, Load: 0.9, Alpha: []float64{0.34, 0.33, 0.33}}, "0.0153023606609793942251641", "0.8862278754051186170220683",
			[]string{"0.034610157510764126914395", "0.005355919859575136458218935", "0.005355919859575136458218935"}, []string{"0.01354255602499244481706704", "0.05011478428494446908043235", "0.05011478428494446908043235"}},
		{JIQ{Servers: 100000, Load: 0.5, Alpha: []float64{0.3, 0.25, 0.2, 0.15, 0.1}}, "0.4999999999999999722444244", "0.2500000000000000138777878",
			[]string{"0.6666666666666666358271382", "0.5999999999999999777955395", "0.5", "0.3333333333333332716542764", "4.786928703336689170021958e-12181"},
			[]string{"0.00000500000000000000069388939", "0.000006666666666666667283457236", "0.00001", "0.00002000000000000000555111512", "0.7499583333333333194486837"}},
	}
	parse := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0 // beyond float64's range
		}
		return v
	}
	worst := map[string]float64{}
	for _, c := range cases {
		t.Run(fmt.Sprintf("N=%d λ=%v α=%v β=%v", c.m.Servers, c.m.Load, c.m.Alpha, c.m.Beta), func(t *testing.T) {
			res, err := Solve(&c.m)
			if err != nil {
				t.Fatal(err)
			}
			// The tolerances are a few times the largest errors measured
			// (logged below); Busy is a ratio of adjacent constants, hence
			// its tighter bound.
			checkRel(t, worst, "Blocking", res.Blocking, parse(c.b), 1e-12)
			checkRel(t, worst, "Busy", res.Busy, parse(c.busy), 1e-14)
			for r := range c.empty {
				checkRel(t, worst, "NoTokens", res.NoTokens[r], parse(c.empty[r]), 1e-12)
				checkRel(t, worst, "Tokens", res.Tokens[r], parse(c.tokens[r]), 5e-12)
			}
			// The reference is not held to these bounds; its errors are
			// logged for comparison.
			if ref, err := solveReference(&c.m); err == nil {
				worst["reference Blocking"] = math.Max(worst["reference Blocking"], relErr(ref.Blocking, parse(c.b)))
				worst["reference Busy"] = math.Max(worst["reference Busy"], relErr(ref.Busy, parse(c.busy)))
			}
		})
	}
	t.Logf("largest relative errors: %v", worst)
}

// TestJIQBruteForceRelative checks blocking and every P(no tokens) against
// the CTMC of the JIQ system itself, enumerated and solved directly, in
// relative terms (TestJIQAgainstBruteForce checks absolute errors).
func TestJIQBruteForceRelative(t *testing.T) {
	worst := map[string]float64{}
	for _, c := range []struct {
		lambda      float64
		alpha, beta []float64
	}{
		{0.5, []float64{0.7, 0.3}, nil},
		{0.05, []float64{0.9, 0.1}, nil},
		{0.9, []float64{0.5, 0.5}, nil},
		{0.9, []float64{0.34, 0.33, 0.33}, nil},
		{1.4, []float64{0.5, 0.3, 0.2}, []float64{0.2, 0.3, 0.5}},
		{3, []float64{0.4, 0.3, 0.2, 0.1}, nil},
		{0.2, []float64{1}, nil},
	} {
		beta := c.beta
		if beta == nil {
			beta = make([]float64, len(c.alpha))
			for i := range beta {
				beta[i] = 1 / float64(len(beta))
			}
		}
		for n := 1; n <= 7; n++ {
			t.Run(fmt.Sprintf("λ=%v α=%v β=%v N=%d", c.lambda, c.alpha, c.beta, n), func(t *testing.T) {
				res, err := Solve(&JIQ{Servers: n, Load: c.lambda, Alpha: c.alpha, Beta: c.beta})
				if err != nil {
					t.Fatal(err)
				}
				b, empty := bruteJIQ(t, n, c.lambda, c.alpha, beta)
				// The direct solve is accurate to about 1e-16 absolute:
				// compare relative errors where that is below 1e-11
				// relative (values of at least 1e-5).
				check := func(what string, g, w float64) {
					if w >= 1e-5 {
						checkRel(t, worst, "relative difference", g, w, 1e-11)
					}
				}
				check("blocking", res.Blocking, b)
				for r := range empty {
					check(fmt.Sprintf("P(no tokens at %d)", r), res.NoTokens[r], empty[r])
				}
			})
		}
	}
	t.Logf("largest relative difference: %.2g", worst["relative difference"])
}

// TestJIQMaxPopulation solves at N = MaxPopulation = 10⁷: nothing
// overflows, Erlang's loss formula (R = 1) matches 30-digit arithmetic
// (the reference is off by 7.5e-11 at λ = 0.99),
// flow balance λ(1 − B) = E[n₀]/N and token conservation hold, and equal
// loads give N·B ≈ (R − 1)/(1 − λ).
func TestJIQMaxPopulation(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 10⁷")
	}
	const n = MaxPopulation
	// Erlang B at N = 10⁷, offered load 0.99·N (mpmath, 30 digits, from
	// the float64 offered load).
	res, err := Solve(&JIQ{Servers: n, Load: 0.99, Alpha: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	// 1e-12 relative: the rounding of a recursion over 10⁷ levels.
	worst := map[string]float64{}
	checkRel(t, worst, "Erlang B(10⁷, 0.99·10⁷)", res.Blocking, 3.1266256509883125827e-223, 1e-12)
	res, err = Solve(&JIQ{Servers: n, Load: 1, Alpha: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, worst, "Erlang B(10⁷, 10⁷)", res.Blocking, 0.00025227081591994751437, 1e-12)
	for _, m := range []*JIQ{
		{Servers: n, Load: 0.99, Alpha: []float64{1}},
		{Servers: n, Load: 0.9, Alpha: []float64{0.7, 0.3}},
		{Servers: n, Load: 1.5, Alpha: []float64{0.3, 0.25, 0.2, 0.15, 0.1}},
		{Servers: n, Load: 0.9, Alpha: []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}},
	} {
		t.Run(fmt.Sprintf("λ=%v α=%v", m.Load, m.Alpha), func(t *testing.T) {
			res, err := Solve(m)
			if err != nil {
				t.Fatal(err)
			}
			tokens := res.Busy
			for r := range m.Alpha {
				tokens += res.Tokens[r]
				approx.Within(t, fmt.Sprintf("P(no tokens at %d)", r), res.NoTokens[r], 0, 1)
			}
			approx.Within(t, "B", res.Blocking, 0, 1)
			// Flow balance to rounding; token conservation sums R + 1
			// means of 10⁷ levels (1e-9).
			checkRel(t, worst, "busy against λ(1−B)", res.Busy, m.Load*(1-res.Blocking), 1e-12)
			approx.Check(t, "tokens + busy", tokens, 1, 1e-9, 0)
			if len(m.Alpha) == 10 {
				// N·B → (R − 1)/(1 − λ) = 90, with an O(1/N) correction.
				approx.Check(t, "equal loads: N·B", res.Blocking*n, 9/0.1, 0, 1e-3)
			}
		})
	}
}
