package report

// Sim is the JSON output of `fluid sim`. Estimates are Estimate
// {mean, ci95, half_width, level, samples}: ci95 is the half-width of the
// 95% interval and half_width the one at level (Student t over the
// replications, or over 10 batch means of one replication).
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
	Jobs           int       `json:"jobs"`   // measured jobs per replication
	Warmup         int       `json:"warmup"` // warm-up jobs per replication (not measured)
	Level          float64   `json:"level"`  // confidence level of half_width
	RelPrecision   *float64  `json:"rel_precision"`
	MaxReps        *int      `json:"max_reps"`
	CorrelationAge *float64  `json:"correlation_age"`

	// Status is completed (a fixed number of replications), or with
	// rel_precision converged (the target half-width was reached) or
	// not_converged (max_reps ran first); interrupted when a signal
	// stopped the run (the figures are those of the replications that
	// finished, reps of them).
	Status           string  `json:"status"`
	PrecisionReached *bool   `json:"precision_reached"` // with rel_precision: status == converged (null without)
	Reps             int     `json:"reps"`              // replications run
	Rounds           int     `json:"rounds"`            // rounds of replications (1 without rel_precision)
	Mean             float64 `json:"mean"`              // mean time in system (= sojourn.mean)
	CI95             float64 `json:"ci95"`              // its 95% half-width
	HalfWidth        float64 `json:"half_width"`        // its half-width at level

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
