package steadystate

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fluidlb/fluid/internal/param"
)

// Method names, as Estimate.Method reports them.
const (
	// BatchMeans: one replication, cut into batch means after MSER's
	// truncation.
	BatchMeans = "batch_means"
	// ReplicatedBatchMeans: several replications, each truncated by MSER
	// and cut into batch means, pooled.
	ReplicatedBatchMeans = "replicated_batch_means"
	// ReplicationDeletion: several replications, each truncated by MSER
	// and contributing its whole remaining mean as one batch.
	ReplicationDeletion = "replication_deletion"
)

// Estimate is the steady-state estimate of one Quantity from one or more
// replications: the interval [Lower, Upper] at Level around Mean, and how
// it was formed.
type Estimate struct {
	Name string `json:"name,omitempty"`
	// Mean is the ratio Σ N / Σ D over the batches kept (for a mean, the
	// mean of the observations kept).
	Mean float64 `json:"mean"`
	// Lower and Upper bound the confidence interval at Level: Student t
	// with DF degrees of freedom, adjusted for the skewness of the batch
	// means (Skewness) unless Settings.Symmetric.
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// HalfWidth is the larger of Upper − Mean and Mean − Lower, so that
	// Mean ± HalfWidth contains [Lower, Upper]; RelHalfWidth is
	// HalfWidth / |Mean|. The precision target applies to it.
	HalfWidth    float64 `json:"half_width"`
	RelHalfWidth float64 `json:"rel_half_width"`
	Level        float64 `json:"level"`
	DF           float64 `json:"df"`
	// Skewness is the sample skewness of the batch means (of the
	// residuals N_j − Mean·D_j), which the interval corrects for.
	Skewness float64 `json:"skewness"`
	// Method is BatchMeans, ReplicatedBatchMeans or ReplicationDeletion.
	Method string `json:"method"`
	// Batches is the number of batch means, of BatchSize observations on
	// average (sizes differ by at most one fine batch within a
	// replication, and with the replications' lengths).
	Batches   int     `json:"batches"`
	BatchSize float64 `json:"batch_size"`
	// Warmup is the number of observations deleted by MSER, all
	// replications together; MaxWarmupFraction the largest fraction of a
	// replication deleted.
	Warmup            int64   `json:"warmup"`
	MaxWarmupFraction float64 `json:"max_warmup_fraction"`
	// Effective is the number of observations the estimate uses;
	// Observations all those added (the fine batch in progress of each
	// replication is in neither); Replications how many series were
	// pooled.
	Effective    int64 `json:"effective"`
	Observations int64 `json:"observations"`
	Replications int   `json:"replications"`
	// Lag1 is von Neumann's estimate 1 − Σ(Δ)²/(2·Σ dev²) of the lag-1
	// correlation of the test's batches for the batch count chosen (four
	// times as many as Batches, of a quarter of the size; pooled over the
	// replications; 0 when each replication is one batch). Independent
	// reports that the test did not reject independence there (always true
	// with one batch per replication: replications are independent by
	// construction).
	Lag1        float64 `json:"lag1"`
	Independent bool    `json:"independent"`
	// Steady reports that MSER found the end of the transient in the first
	// half of every replication. When false, Mean and HalfWidth are not
	// steady-state estimates and must not be reported as such.
	Steady bool `json:"steady"`
	// Valid reports that there was something to estimate: enough fine
	// batches and a positive denominator. When false only Observations,
	// Replications and Note are set.
	Valid bool `json:"valid"`
	// Needed is a projection of the observations (all replications
	// together) the estimate needs to meet the precision of the Settings
	// it was made with: from the half-width by the 1/√n law when steady
	// and independent, at least twice the run otherwise. 0 when met.
	Needed int64 `json:"needed"`
	// Note says in one line what, if anything, is wrong.
	Note string `json:"note,omitempty"`
}

// Precise reports whether the estimate is valid, steady and independent,
// and its half-width meets the precision of s.
func (e *Estimate) precise(s *Settings) bool {
	return e.Valid && e.Steady && e.Independent && e.HalfWidth <= s.target(e.Mean)
}

// repView is one replication's truncated series.
type repView struct {
	s    *Series
	tr   Truncation
	kept int // complete fine batches after the truncation
}

// testGuard is how many times more batches the independence test cuts
// than the interval uses: batches that pass the test at a quarter of the
// interval's batch size have, at the interval's size, about a quarter of
// the lag-1 correlation the test could have missed (for a correlation
// that decays faster than the batch, lag-1 ∝ 1/batch size).
const testGuard = 4

// candidates are the batch counts per replication tried in turn: halving
// from ⌈MaxBatches/R⌉ while R·k ≥ MinBatches, then one batch per
// replication if R ≥ MinBatches.
func candidates(r, kmax, kmin int) []int {
	var ks []int
	k0 := (kmax + r - 1) / r
	for k := k0; k >= 2 && r*k >= kmin; k /= 2 {
		ks = append(ks, k)
	}
	if r >= kmin {
		ks = append(ks, 1)
	}
	if len(ks) == 0 {
		ks = append(ks, max(k0, 2))
	}
	return ks
}

// batchPlan is the batches of one candidate.
type batchPlan struct {
	k        int       // batches per replication
	num, den []float64 // all replications' batch sums, replication by replication
}

// Analyze estimates q's steady-state mean from reps, independent
// replications of the same model (one Series each, with the same
// channels), under the controller's settings. Each replication is
// truncated by MSER (Truncate); the rest of each is cut into k batches of
// consecutive fine batches, the same k for every replication, taken from
// the candidates ⌈MaxBatches/R⌉, halving while R·k ≥ MinBatches, then 1
// per replication when R ≥ MinBatches: the first k whose replications,
// cut into 4k batches, pass the pooled von Neumann test of independence
// (see the package documentation). If none passes, the last candidate is
// used and the estimate is flagged (Independent false). The estimate is
// the ratio R̂ = Σ N_j / Σ D_j over all K batches, with the delta-method
// variance
//
//	Var(R̂) ≈ K/(K−1) · Σ_j (N_j − R̂·D_j)² / (Σ_j D_j)²
//
// (for a mean with equal batches, S²/K of the batch means), Student t
// quantiles with (Σ D_j)²/Σ D_j² − 1 degrees of freedom (K − 1 for equal
// batches; Kish's effective count otherwise) and, unless
// Settings.Symmetric, Willink's skewness correction. It reads the series
// and allocates only O(K + R).
//
// It panics if reps is empty, a quantity reads a channel the series do
// not have, or the series differ in channels.
func (c *Controller) Analyze(q Quantity, reps ...*Series) Estimate {
	if len(reps) == 0 {
		panic("steadystate: Analyze with no series")
	}
	s := &c.s
	e := Estimate{Name: q.Name, Level: s.Level, Replications: len(reps)}
	views := make([]repView, len(reps))
	steady, minKept := true, math.MaxInt
	for _, r := range reps {
		if r.channels != reps[0].channels {
			panic("steadystate: Analyze on series with different channels")
		}
		e.Observations += r.count
	}
	for i, r := range reps {
		tr := Truncate(q, r)
		views[i] = repView{s: r, tr: tr, kept: tr.Of - tr.Batches}
		if tr.Of < minFineForMSER {
			e.Note = fmt.Sprintf("replication %d has %d complete fine batches, fewer than %d", i+1, tr.Of, minFineForMSER)
			e.Needed = 2 * e.Observations
			return e
		}
		steady = steady && tr.Steady
		minKept = min(minKept, views[i].kept)
		e.Warmup += tr.Point
		e.Effective += int64(views[i].kept) * r.size
		if r.count > 0 {
			e.MaxWarmupFraction = max(e.MaxWarmupFraction, float64(tr.Point)/float64(r.count))
		}
	}
	e.Steady = steady
	var sn, sd float64
	for _, v := range views {
		for i := v.tr.Batches; i < v.tr.Of; i++ {
			a, b := q.pair(v.s, i)
			sn += a
			sd += b
		}
	}
	if !(sd > 0) || !param.Finite(sn) {
		e.Note = fmt.Sprintf("nothing to estimate: Σ numerator %v over Σ denominator %v", sn, sd)
		e.Needed = 2 * e.Observations
		return e
	}
	rhat := sn / sd
	ks := candidates(len(reps), s.MaxBatches, s.MinBatches)
	z := distuv.UnitNormal.Quantile(1 - s.TestLevel)
	chosen := 0
	for _, k := range ks {
		if k == 1 {
			chosen, e.Independent, e.Lag1 = 1, true, 0
			break
		}
		if testGuard*k > minKept {
			continue
		}
		cv, sdev := vonNeumann(q, views, testGuard*k, rhat)
		chosen, e.Lag1 = k, cv
		if cv <= z*sdev {
			e.Independent = true
			break
		}
	}
	if chosen == 0 {
		e.Note = fmt.Sprintf("a replication keeps %d fine batches after truncation, fewer than the %d the test needs", minKept, testGuard*ks[len(ks)-1])
		e.Needed = 2 * e.Observations
		return e
	}
	plan := formBatches(q, views, chosen)
	e.Valid = true
	e.Mean = rhat
	e.Batches = len(plan.num)
	e.BatchSize = float64(e.Effective) / float64(e.Batches)
	switch {
	case len(reps) == 1:
		e.Method = BatchMeans
	case plan.k == 1:
		e.Method = ReplicationDeletion
	default:
		e.Method = ReplicatedBatchMeans
	}
	e.Lower, e.Upper, e.DF, e.Skewness = interval(plan.num, plan.den, rhat, s.Level, !s.Symmetric)
	e.HalfWidth = max(e.Upper-e.Mean, e.Mean-e.Lower)
	e.RelHalfWidth = e.HalfWidth / math.Abs(e.Mean)
	e.Needed = c.needed(&e, views)
	switch {
	case !e.Steady:
		worst := 0
		for i, v := range views {
			if !v.tr.Steady && (worst == 0 || v.tr.Batches*views[worst-1].tr.Of > views[worst-1].tr.Batches*v.tr.Of) {
				worst = i + 1
			}
		}
		v := views[worst-1]
		e.Note = fmt.Sprintf("no steady state: MSER truncates %.0f%% of replication %d (more than half)", 100*float64(v.tr.Batches)/float64(v.tr.Of), worst)
	case !e.Independent:
		e.Note = fmt.Sprintf("batch means correlated at the fewest batches tried (%d; von Neumann lag-1 %.3g)", e.Batches, e.Lag1)
	}
	return e
}

// needed projects the observations e needs (see Estimate.Needed).
func (c *Controller) needed(e *Estimate, views []repView) int64 {
	n := float64(e.Observations)
	var want float64
	if !e.Steady {
		// The transient must end within the first half: each replication at
		// least twice its truncation point (a lower bound, as the search
		// stops at 3/4 of the run).
		for _, v := range views {
			want = max(want, 2*float64(v.tr.Point)*float64(len(views)))
		}
		want = max(want, 2*n)
	}
	if !e.Independent {
		want = max(want, 2*n) // batches twice as long
	}
	if h := c.s.target(e.Mean); e.HalfWidth > h {
		if h > 0 {
			r := e.HalfWidth / h
			want = max(want, n*r*r)
		} else {
			want = max(want, 2*n)
		}
	}
	if want <= n {
		return 0
	}
	return int64(min(math.Ceil(want), math.MaxInt64/2))
}

// formBatches cuts each replication's kept fine batches into k batches
// of consecutive fine batches, the first kept%k of them one fine batch
// longer.
func formBatches(q Quantity, views []repView, k int) batchPlan {
	p := batchPlan{k: k, num: make([]float64, 0, k*len(views)), den: make([]float64, 0, k*len(views))}
	for _, v := range views {
		base, extra := v.kept/k, v.kept%k
		i := v.tr.Batches
		for j := range k {
			size := base
			if j < extra {
				size++
			}
			var a, b float64
			for range size {
				x, y := q.pair(v.s, i)
				a += x
				b += y
				i++
			}
			p.num = append(p.num, a)
			p.den = append(p.den, b)
		}
	}
	return p
}

// vonNeumann is the pooled von Neumann statistic of the residuals
// Z_j = N_j − R̂·D_j of each replication cut into k ≥ 3 batches (as
// formBatches cuts them), and its standard deviation under independence.
// In replication r, C_r = 1 − Σ(Z_{j+1} − Z_j)²/(2·Σ(Z_j − Z̄_r)²) estimates
// the lag-1 correlation and has, for independent normal batch means,
// mean ≈ 0 and variance (k−2)/(k²−1) (von Neumann 1941; Young 1941); the
// pooled C is the inverse-variance weighted mean of the C_r. Constant
// batches (Σ dev² = 0) count as uncorrelated. It allocates nothing.
func vonNeumann(q Quantity, views []repView, k int, rhat float64) (c, sd float64) {
	var wsum, wc float64
	for _, v := range views {
		base, extra := v.kept/k, v.kept%k
		// Two passes over the batches: the mean residual, then the sums.
		var zsum float64
		i := v.tr.Batches
		for j := range k {
			size := base
			if j < extra {
				size++
			}
			zsum += batchResidual(q, v.s, i, size, rhat)
			i += size
		}
		zbar := zsum / float64(k)
		var dev, diff, prev float64
		i = v.tr.Batches
		for j := range k {
			size := base
			if j < extra {
				size++
			}
			zj := batchResidual(q, v.s, i, size, rhat)
			i += size
			dev += (zj - zbar) * (zj - zbar)
			if j > 0 {
				diff += (zj - prev) * (zj - prev)
			}
			prev = zj
		}
		cr := 0.0
		if dev > 0 {
			cr = 1 - diff/(2*dev)
		}
		fk := float64(k)
		w := (fk*fk - 1) / (fk - 2)
		wsum += w
		wc += w * cr
	}
	return wc / wsum, 1 / math.Sqrt(wsum)
}

// batchResidual is N − R̂·D of the size fine batches of s from i.
func batchResidual(q Quantity, s *Series, i, size int, rhat float64) float64 {
	var a, b float64
	for range size {
		x, y := q.pair(s, i)
		a += x
		b += y
		i++
	}
	return a - rhat*b
}

// interval is the confidence interval at level of the ratio
// R̂ = Σ num/Σ den from independent batches (num_j, den_j): the
// delta-method standard error
//
//	se = √(K/(K−1) · Σ_j (num_j − R̂·den_j)²) / Σ_j den_j,
//
// Student t with (Σ den)²/Σ den² − 1 degrees of freedom (Kish's effective
// number of batches, K for equal ones, less one), and with skew set
// Willink's correction for the skewness of the residuals. It needs K ≥ 2
// batches and Σ den > 0.
func interval(num, den []float64, rhat, level float64, skew bool) (lower, upper, df, sk float64) {
	var ssz, sd, d2 float64
	for j, n := range num {
		d := den[j]
		r := n - rhat*d
		ssz += r * r
		sd += d
		d2 += d * d
	}
	k := float64(len(num))
	se := math.Sqrt(k/(k-1)*ssz) / sd
	df = max(sd*sd/d2-1, 1)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + level/2)
	gl, gu := tq, -tq
	if skew && len(num) >= 3 {
		sk = skewness(num, den, rhat)
		a := sk / (6 * math.Sqrt(k))
		gl, gu = willink(tq, a), willink(-tq, a)
	}
	return rhat - gl*se, rhat - gu*se, df, sk
}

// skewness is the adjusted sample skewness k/((k−1)(k−2))·Σ r³/S³ of the
// batch residuals r_j = N_j − R̂·D_j (which sum to 0); 0 if they are all 0.
func skewness(num, den []float64, rhat float64) float64 {
	var s2, s3 float64
	for j, n := range num {
		r := n - rhat*den[j]
		s2 += r * r
		s3 += r * r * r
	}
	k := float64(len(num))
	su := math.Sqrt(s2 / (k - 1))
	if !(su > 0) {
		return 0
	}
	return k / ((k - 1) * (k - 2)) * s3 / (su * su * su)
}

// willink is G(ζ) = ((1 + 6a(ζ − a))^{1/3} − 1)/(2a), the quantile of
// Willink's skewness-corrected t statistic (Willink 2005, "A confidence
// interval and test for the mean of an asymmetric distribution"; the form
// Skart uses, Tafazzoli, Steiger & Wilson 2011), with a = skewness/(6√k).
// The interval is [x̄ − G(t)·se, x̄ − G(−t)·se]: for right-skewed batch means
// (a > 0) it reaches further above the mean than below, because a low
// mean then comes with a small standard error.
func willink(z, a float64) float64 {
	if math.Abs(a) < 1e-9 {
		return z
	}
	return (math.Cbrt(1+6*a*(z-a)) - 1) / (2 * a)
}
