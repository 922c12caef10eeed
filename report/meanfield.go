package report

// Meanfield is the JSON output of `fluid meanfield`.
type Meanfield struct {
	Header
	Policy        string   `json:"policy"`
	Discipline    string   `json:"discipline"`
	Sizes         string   `json:"sizes"`
	Load          float64  `json:"load"`
	Period        *float64 `json:"period"`         // board policies (null for live ones)
	MaxIterations *int     `json:"max_iterations"` // board policies: most refresh periods iterated
	// Sojourn is the mean time in system (N → ∞); MeanQueue the mean count.
	Sojourn   float64 `json:"sojourn"`
	MeanQueue float64 `json:"mean_queue"`
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
	// Abscissa is the largest real part of the ODE Jacobian's eigenvalues
	// at the fixed point (live jsqd): negative means stable.
	Abscissa *float64 `json:"abscissa"`
	// Lost is the truncated mass (live) or the fraction of arrivals lost to
	// the truncation (board).
	Lost   float64 `json:"lost"`
	States int     `json:"states"`
	// Status is converged, or how the solve ended (not_settled: the board
	// policies' period map found no fixed point or cycle).
	Status string `json:"status"`
	// Refined: mean time in system at each --servers N.
	Refined []RefinedRow `json:"refined"`
	Seconds float64      `json:"seconds"`
}

// RefinedRow is the refined mean-field value at one N.
type RefinedRow struct {
	N       int     `json:"servers"`
	Sojourn float64 `json:"sojourn"`
}
