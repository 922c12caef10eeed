package staleboard

import (
	"testing"

	"github.com/fluidlb/fluid/outcome"
)

// BenchmarkCriticalPush is one critical half-loaded backlog b* at k = 5,
// λ = 0.9, T = 1,000 (the balanced fixed point, then about 10 orbits of
// 5–15 periods each), against its reference in the same run: the same
// bisection with every orbit classified by plain iteration to its
// attractor (Attractor, up to 300 periods), the classification the early
// stop replaces.
func BenchmarkCriticalPush(b *testing.B) {
	m := pushModel(1000, half)
	b.Run("early", func(b *testing.B) {
		for b.Loop() {
			r, err := CriticalPush(m, nil)
			if err != nil || r.Status != outcome.Converged {
				b.Fatal(r, err)
			}
			b.ReportMetric(float64(r.Evaluations), "evals/op")
		}
	})
	b.Run("attractor", func(b *testing.B) {
		for b.Loop() {
			lo, hi, evals := 0.0, 100.0, 0
			for hi-lo > 0.005*hi {
				mid := 0.5 * (lo + hi)
				att, err := Attractor(&m.Model, &AttractorSettings{Start: disturb([]float64{1}, half, mid, 0), MaxIter: 300})
				if err != nil {
					b.Fatal(err)
				}
				evals += att.Iterations
				if att.Sojourn > 0.3*m.Period {
					hi = mid
				} else {
					lo = mid
				}
			}
			b.ReportMetric(float64(evals), "evals/op")
		}
	})
}
