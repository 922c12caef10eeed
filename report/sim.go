package report

// Sim is the JSON output of `fluid sim`. Estimates are Estimate: the
// interval [lower, upper] at level, its longer side half_width (ci95 at
// 95%), how it was formed (method, samples batches of batch_size jobs,
// warmup jobs deleted as the transient, effective_jobs used) and whether
// it is a steady-state estimate (steady) whose batches passed their
// independence test (independent). The top-level method, batches,
// batch_size, warmup and effective_jobs are those of the mean time in
// system.
//
// Under FCFS, mean_wait and prob_wait are the wait before service starts
// and the probability that it is positive; under PS no job waits for
// service, so both are null and mean_delay (E[time in system − size]) and
// busy_at_arrival (P(the job's server held a job when it arrived)) say
// what the shared server costs. slowdown, E[time in system / size], is
// null where it is infinite (FCFS with sizes of density positive at 0:
// exponential, H2), with slowdown_note saying why.
type Sim struct {
	Header
	Config string `json:"config"` // one-line description of the inputs
	// Inputs, as used.
	Seed           uint64    `json:"seed"`
	Servers        int       `json:"servers"`
	Load           float64   `json:"load"`
	Dispatchers    int       `json:"dispatchers"`
	Alpha          []float64 `json:"alpha"` // arrival shares (null: equal)
	Policy         string    `json:"policy"`
	Replacement    bool      `json:"replacement"` // best of d samples with replacement
	Discipline     string    `json:"discipline"`
	Sizes          string    `json:"sizes"`
	Period         *float64  `json:"period"`   // board refresh period (null: no board)
	Beta           []float64 `json:"beta"`     // JIQ token allotment as used (null for other policies)
	Exchange       *float64  `json:"exchange"` // JIQ token exchange rate (null for other policies)
	Start          string    `json:"start"`
	Jobs           int       `json:"jobs"`            // observed jobs per replication of a fixed run (0: run to the precision)
	Deleted        int       `json:"deleted"`         // jobs per replication deleted before any analysis (--warmup)
	Level          float64   `json:"level"`           // confidence level of half_width
	RelPrecision   float64   `json:"rel_precision"`   // relative error of the mean time in system aimed at
	Budget         *int64    `json:"budget"`          // most jobs of a run to the precision (null for a fixed run)
	Transient      bool      `json:"transient"`       // measured as a transient from the start, not a steady state
	RelaxationTime *float64  `json:"relaxation_time"` // the planner's relaxation time of a server's queue (null: no plan)
	CorrelationAge *float64  `json:"correlation_age"`

	// Status is precision_reached (a steady state was found and the mean
	// time in system is known to rel_precision), budget_reached
	// (steady-state estimates, but the budget or the fixed jobs ran out
	// first), not_steady (no steady state inside the run: the estimates
	// are not steady-state estimates; needed_jobs says how long a run
	// would have to be at least), completed (a transient run), or
	// interrupted when a signal stopped the run (the figures are those of
	// the work that finished).
	Status           string   `json:"status"`
	PrecisionReached bool     `json:"precision_reached"` // status == precision_reached
	Reps             int      `json:"reps"`              // replications run
	Analyses         int      `json:"analyses"`          // times the sequential procedure analysed the replications
	NeededJobs       int64    `json:"needed_jobs"`       // about the jobs in all that would reach the precision (0 when reached)
	Method           string   `json:"method"`            // interval method of the mean time in system
	Batches          int      `json:"batches"`           // its batch means (= sojourn.samples)
	BatchSize        float64  `json:"batch_size"`        // jobs per batch
	Warmup           int64    `json:"warmup"`            // jobs deleted as the initial transient (MSER-5), all replications
	EffectiveJobs    int64    `json:"effective_jobs"`    // jobs the estimate uses
	Warnings         []string `json:"warnings"`          // the planner's warnings
	Mean             float64  `json:"mean"`              // mean time in system (= sojourn.mean)
	CI95             float64  `json:"ci95"`              // its 95% half-width
	HalfWidth        float64  `json:"half_width"`        // its half-width at level

	Sojourn        Estimate  `json:"sojourn"`
	Slowdown       *Estimate `json:"slowdown"`              // E[T/S]; null where infinite
	SlowdownNote   *string   `json:"slowdown_note"`         // why slowdown is null
	SlowdownOver10 Estimate  `json:"prob_slowdown_over_10"` // P(T > 10·S)
	MeanWait       *Estimate `json:"mean_wait"`             // FCFS: wait before service; null under PS
	ProbWait       *Estimate `json:"prob_wait"`             // FCFS: P(wait > 0); null under PS
	MeanDelay      Estimate  `json:"mean_delay"`            // E[T − S]
	BusyAtArrival  Estimate  `json:"busy_at_arrival"`       // P(the job's server held a job when it arrived)
	Blocking       *Estimate `json:"blocking"`              // JIQ blocking (null for other policies)
	FractionRandom *Estimate `json:"fraction_random"`       // JIQ queueing: sent without a token (null for other policies)
	BoardMean      *Estimate `json:"board_mean"`            // mean board at the refreshes (null without a board)
	BoardRange     *Estimate `json:"board_range"`           // mean longest less shortest queue on the board at the refreshes (null without a board)
	Correlation    *Estimate `json:"correlation"`           // null without correlation_age
	Tipped         *int      `json:"tipped"`                // replications that tipped into the herd (board runs)

	JobsMeasured    int64       `json:"jobs_measured"` // measured jobs, all replications
	Events          int64       `json:"events"`
	Seconds         float64     `json:"seconds"`
	EventsPerSecond float64     `json:"events_per_second"`
	Series          [][]float64 `json:"series"` // with series: per replication, the board mean at each refresh (null without)
}
