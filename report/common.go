package report

// Complex is a complex number in JSON.
type Complex struct {
	Re float64 `json:"re"`
	Im float64 `json:"im"`
}

// Estimate is a simulated mean with its confidence interval [lower,
// upper] at level. A steady-state estimate (method batch_means,
// replicated_batch_means or replication_deletion) deletes each
// replication's initial transient as MSER-5 finds it (warmup jobs in all),
// and forms samples batch means of about batch_size jobs (effective_jobs
// in all) that passed a lag-1 independence test (independent), with a
// Student-t interval corrected for their skewness: half_width and ci95 are
// the longer sides of the intervals at level and at 95%. steady false: no
// steady state was found, and the numbers are not steady-state estimates.
// A transient estimate (method transient) is Student t over samples
// replication means. With one sample there is no interval.
type Estimate struct {
	Mean          float64 `json:"mean"`
	CI95          float64 `json:"ci95"`
	HalfWidth     float64 `json:"half_width"`
	Level         float64 `json:"level"`
	Samples       int     `json:"samples"`
	Lower         float64 `json:"lower"`
	Upper         float64 `json:"upper"`
	Method        string  `json:"method"`
	BatchSize     float64 `json:"batch_size"`
	Warmup        int64   `json:"warmup"`
	EffectiveJobs int64   `json:"effective_jobs"`
	Steady        bool    `json:"steady"`
	Independent   bool    `json:"independent"`
	Note          string  `json:"note"`
}
