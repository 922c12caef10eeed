package report

// Edge is the JSON output of `fluid edge`: one row per (k, λ, N).
type Edge struct {
	Header
	Policy     string    `json:"policy"`     // the simulator's word: tally, shared-tally or partitioned
	Sizes      string    `json:"sizes"`      // exp or h2:SCV
	Discipline string    `json:"discipline"` // fcfs or ps
	Alpha      []float64 `json:"alpha"`      // the dispatchers' shares; null: equal
	Confirm    bool      `json:"confirm"`    // rows carry a dynamic confirmation
	Simulate   bool      `json:"simulate"`   // finite-N rows carry a simulated edge
	Reps       *int      `json:"reps"`       // simulate: runs per simulated period (null without)
	Seed       *uint64   `json:"seed"`       // simulate: the random seed (null without)
	Rows       []EdgeRow `json:"rows"`
	// Status is completed when every entry (and every simulated edge)
	// finished, interrupted when a signal stopped the table: Rows then
	// hold the entries that finished.
	Status  string  `json:"status"`
	Seconds float64 `json:"seconds"` // wall time of the whole table
}

// EdgeRow is one (k, λ) entry. Fields about the edge are null when there
// is none down to the floor.
//
// Status is edge (the edge lies in Bracket), no_edge (the balanced state
// survives down to Floor) or, for finite N, above_range (the system tips
// even at the top of the search range, Bracket[0]).
type EdgeRow struct {
	Dispatchers int       `json:"dispatchers"`
	Load        float64   `json:"load"`
	Status      string    `json:"status"`    // edge, no_edge or (finite N) above_range
	Period      *float64  `json:"period"`    // T*
	Scaled      *float64  `json:"scaled"`    // T*(1−λ)²
	Bracket     []float64 `json:"bracket"`   // [lo, hi] in T: balanced at hi, not reachable at lo
	Collision   *float64  `json:"collision"` // T where t_{V+1} − T extrapolates to 0
	Branch      *int      `json:"branch"`    // V, the pass in progress at T* on the ending branch
	Mechanism   *string   `json:"mechanism"` // "border collision", "eigenvalue crossing", "escape within the horizon" (null without an edge)

	Leading   *Complex `json:"leading"`    // leading eigenvalue at the last stable fixed point (N = ∞ only)
	Radius    *float64 `json:"radius"`     // its modulus (N = ∞ only)
	BoardMean *float64 `json:"board_mean"` // mean board at the last balanced fixed point (N = ∞ only)
	Sojourn   *float64 `json:"sojourn"`    // mean time in system at the last balanced fixed point (N = ∞ only)

	Line    float64       `json:"line"`  // the reference line 0.9(k − 2)
	Ratio   *float64      `json:"ratio"` // scaled / line
	Floor   float64       `json:"floor"` // lowest T(1−λ)² searched
	Confirm *Confirmation `json:"confirmation,omitempty"`
	Evals   int           `json:"evaluations"` // map evaluations
	// Method is how the N = ∞ edge was located: root (border collisions
	// solved as fixed points), search (continuation and bisection) or
	// fallback (the root path gave way to the search, Fallback says why);
	// null on finite-N rows.
	Method     *string `json:"method"`
	Fallback   *string `json:"fallback"`
	RowSeconds float64 `json:"seconds"`
	// Finite-N rows: Servers is N and Horizon H (null on the N = ∞ row),
	// Scaled the finite-N edge T*(N, H)(1−λ)², InfiniteScaled the N = ∞
	// edge it lies above; Simulated the simulated edge (with --simulate).
	Servers        *int           `json:"servers"`
	Horizon        *int           `json:"horizon"`
	InfiniteScaled *float64       `json:"infinite_scaled,omitempty"`
	Simulated      *SimulatedEdge `json:"simulated,omitempty"`
	// Finite-N rows: the theory that computed the edge (escape or
	// noisy-map), and with the noisy map its tipping curve and the mean
	// time to tip at the edge, in refresh periods.
	FiniteTheory  *string    `json:"finite_theory,omitempty"`
	MeanTimeToTip *float64   `json:"mean_time_to_tip,omitempty"`
	Curve         []TipPoint `json:"curve,omitempty"`
}

// TipPoint is the theory's tipping probability at one period.
type TipPoint struct {
	Scaled        float64  `json:"scaled"`
	Probability   float64  `json:"probability"`      // monotone in T (the isotonic fit)
	Fraction      float64  `json:"fraction"`         // fraction of the runs that tipped
	Reps          int      `json:"reps"`             // runs
	MeanTimeToTip *float64 `json:"mean_time_to_tip"` // periods watched per tip (null: none tipped)
}

// SimulatedEdge is the finite-N edge measured by simulation.
type SimulatedEdge struct {
	Scaled *float64         `json:"scaled"` // where the fitted tipping probability crosses ½ (null unless converged)
	CI95   *[2]float64      `json:"ci95"`   // its 95% interval (null unless converged)
	Status string           `json:"status"` // converged, or not_settled when the curve does not cross ½ with a bounded interval
	Reps   int              `json:"reps"`   // runs per period
	Points []SimulatedPoint `json:"points"`
}

// SimulatedPoint is the simulated tipping frequency at one period.
type SimulatedPoint struct {
	Scaled   float64    `json:"scaled"`
	Tipped   int        `json:"tipped"`
	Reps     int        `json:"reps"`
	Fraction float64    `json:"fraction"`
	CI95     [2]float64 `json:"ci95"` // Wilson score interval
}

// Confirmation is the dynamic confirmation (--confirm).
type Confirmation struct {
	Above        float64 `json:"above"`       // period just above T*
	AboveDecay   float64 `json:"above_decay"` // perturbation after 100 periods / at start
	AboveOK      bool    `json:"above_ok"`
	Below        float64 `json:"below"` // 0.99·T*
	BelowTipped  bool    `json:"below_tipped"`
	BelowPeriods int     `json:"below_periods"` // refresh periods until the board tipped (farm.TipWatch: its two groups' gap above max((1−λ)·T, 3/(1−λ)) twice in a row)
	BelowSojourn float64 `json:"below_sojourn"` // the herd's mean time in system there
}
