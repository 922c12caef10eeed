package report

// Meanfield is the JSON output of `fluid meanfield`. Which fields are
// filled depends on the mode: a mean field on live counts (jsqd:D), a
// policy on a board (board-jsqd:D, board-jsq), finite farms (random, rr,
// least-work, jsq: Rows), the correlation of a server's count
// (Correlations), a crossing of two policies' curves (Points), or the
// staleness tables of a simulation study (Staleness); the others are null.
type Meanfield struct {
	Header
	Policy     string  `json:"policy"`
	Discipline string  `json:"discipline"`
	Sizes      string  `json:"sizes"`
	Load       float64 `json:"load"`
	// Method says how the numbers were computed.
	Method        string   `json:"method"`
	Period        *float64 `json:"period"`         // board policies; the crossing T* (null for the others)
	MaxIterations *int     `json:"max_iterations"` // board policies: most refresh periods iterated
	// Sojourn is the mean time in system (N → ∞ for the mean fields; at
	// T* for a crossing); MeanQueue the mean count. Null where Rows carry
	// them.
	Sojourn   *float64 `json:"sojourn"`
	MeanQueue *float64 `json:"mean_queue"`
	// Tail is P(count ≥ n), n = 0, 1, … (live jsqd; the board distribution
	// P(B = n) for board policies is in Board).
	Tail  []float64 `json:"tail"`
	Board []float64 `json:"board"`
	// BoardMean is the mean board value at a refresh (board policies).
	BoardMean *float64 `json:"board_mean"`
	// Attractor: fixed_point, cycle or not_settled (board policies; null
	// for live ones), Cycle its period (1 for a fixed point).
	Attractor *string `json:"attractor"`
	Cycle     *int    `json:"cycle_period"`
	// Averaged is the number of refresh periods averaged (board policies:
	// 1 for a fixed point, the cycle, or the last periods of an orbit that
	// did not settle); Spread, Min and Max describe the mean time in
	// system of each of them.
	Averaged *int     `json:"averaged"`
	Spread   *float64 `json:"stddev"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	// Work is the state updates the board's attractor took, WorkEstimate
	// the estimate it was admitted on.
	Work         *float64 `json:"work"`
	WorkEstimate *float64 `json:"work_estimate"`
	// Abscissa is the largest real part of the ODE Jacobian's eigenvalues
	// at the fixed point (live jsqd): negative means stable.
	Abscissa *float64 `json:"abscissa"`
	// Lost is the truncated mass (live) or the fraction of arrivals lost to
	// the truncation (board); with Rows, the largest of the rows' Lost, and
	// States the largest of their States.
	Lost   float64 `json:"lost"`
	States int     `json:"states"`
	// Status is converged, or how the solve ended (not_settled: the board
	// policies' period map found no fixed point or cycle).
	Status string `json:"status"`
	// Refined: mean time in system at each --servers N.
	Refined []RefinedRow `json:"refined"`
	// Rows: a finite farm at each --servers N.
	Rows []FarmRow `json:"rows"`
	// Correlations: ρ(τ) at each --correlation-age τ.
	Correlations []CorrelationRow `json:"correlations"`
	// Crossing: the policy compared against (Versus), the range of T
	// searched, the bracket of T* and the other policy's mean time in
	// system there, and the points evaluated.
	Versus        *string         `json:"versus_policy"`
	Range         []float64       `json:"range"`
	Bracket       []float64       `json:"bracket"`
	VersusSojourn *float64        `json:"versus_sojourn"`
	Points        []CrossingPoint `json:"points"`
	// Staleness: the study's crossings computed from theory.
	Staleness []StalenessRow `json:"staleness"`
	Seconds   float64        `json:"seconds"`
}

// RefinedRow is the refined mean-field value at one N.
type RefinedRow struct {
	N       int     `json:"servers"`
	Sojourn float64 `json:"sojourn"`
}

// FarmRow is a finite farm of N servers under one policy.
type FarmRow struct {
	N         int     `json:"servers"`
	Sojourn   float64 `json:"sojourn"`
	MeanQueue float64 `json:"mean_queue"`
	// Delay is E[T] − 1 (under FCFS the mean wait); BusyAtArrival the
	// probability that a job's server held a job when it arrived.
	Delay         float64 `json:"mean_delay"`
	BusyAtArrival float64 `json:"busy_at_arrival"`
	// Slowdown is E[T/S] where it is computed (null otherwise, and
	// SlowdownNote says why).
	Slowdown     *float64 `json:"slowdown"`
	SlowdownNote string   `json:"slowdown_note"`
	// Method is how the row was computed; Approximate marks an
	// approximation, whose accuracy Note states.
	Method      string  `json:"method"`
	Approximate bool    `json:"approximate"`
	Note        string  `json:"note"`
	Lost        float64 `json:"lost"`
	States      int     `json:"states"`
	Status      string  `json:"status"`
}

// CorrelationRow is the correlation of a server's count with its count a
// lag τ later.
type CorrelationRow struct {
	Age         float64 `json:"correlation_age"`
	Correlation float64 `json:"correlation"`
}

// CrossingPoint is one refresh period at which both curves were
// evaluated.
type CrossingPoint struct {
	Period        float64 `json:"period"`
	Sojourn       float64 `json:"sojourn"`
	VersusSojourn float64 `json:"versus_sojourn"`
	Difference    float64 `json:"difference"`
	// Attractor is how the board policy's value was found (fixed_point,
	// cycle, or not_settled: an average over its last periods, whose
	// spread is Spread).
	Attractor string   `json:"attractor"`
	Spread    *float64 `json:"stddev"`
}

// StalenessRow is one cell of the study's staleness tables: the refresh
// period from which Policy on a board does worse than Versus.
type StalenessRow struct {
	Sizes   string    `json:"sizes"`
	Policy  string    `json:"policy"`
	Versus  string    `json:"versus_policy"`
	Period  float64   `json:"period"`
	Bracket []float64 `json:"bracket"`
	Status  string    `json:"status"`
	// Published is the study's grid cell [lo, hi]; Inside whether the
	// theory's crossing lies in it.
	Published   []float64 `json:"published_range"`
	Inside      bool      `json:"inside"`
	Evaluations int       `json:"evaluations"`
	Seconds     float64   `json:"seconds"`
}
