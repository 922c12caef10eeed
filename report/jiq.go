package report

// JIQ is the JSON output of `fluid jiq` (the limit). Fields that do
// not apply to the scenario are null. Per-dispatcher arrays are in the
// order of --alpha.
type JIQ struct {
	Header
	Scenario string    `json:"scenario"` // "blocking" or "queueing"
	Load     float64   `json:"load"`     // λ
	Alpha    []float64 `json:"alpha"`
	Beta     []float64 `json:"beta"`     // as used (uniform if not given)
	Exchange float64   `json:"exchange"` // ν

	Blocking       *float64 `json:"blocking"`        // blocking probability (blocking)
	MeanWait       *float64 `json:"mean_wait"`       // E[W] (queueing)
	ProbWait       *float64 `json:"prob_wait"`       // P(W > 0) (queueing)
	FractionRandom *float64 `json:"fraction_random"` // fraction of jobs sent at random (queueing)
	Sojourn        *float64 `json:"sojourn"`         // mean time in system 1 + E[W] (queueing)
	Busy           float64  `json:"busy"`            // fraction of busy servers

	Tokens           []float64 `json:"tokens"`            // tokens per server at each dispatcher, x_r
	TokenShares      []float64 `json:"token_shares"`      // x_r / Σx (null if no tokens are held)
	EmptyPools       []bool    `json:"empty_pools"`       // dispatchers whose token pool is empty
	TokensDetermined bool      `json:"tokens_determined"` // false: the split depends on the initial state

	NuStar    *float64 `json:"nu_star"`    // ν*: zero blocking/wait from this exchange rate (null: none, λ ≥ 1)
	ZeroLimit bool     `json:"zero_limit"` // zero blocking (blocking) or zero wait (queueing) in the limit

	IMax          *int     `json:"imax"`           // queueing truncation
	TailTol       *float64 `json:"tail_tol"`       // queueing: largest stationary mass allowed above imax when imax is chosen
	TruncatedMass *float64 `json:"truncated_mass"` // stationary mass above imax (queueing)

	Stability Stability `json:"stability"`
	ODE       *ODECheck `json:"ode_check,omitempty"` // with --verify
	Status    string    `json:"status"`              // converged (closed forms)
}

// Stability is the stability of the fixed point.
type Stability struct {
	Verdict     string    `json:"verdict"`     // stable, neutral, unstable or not computed
	Abscissa    *float64  `json:"abscissa"`    // largest real part of the eigenvalues (null if none)
	Eigenvalues []Complex `json:"eigenvalues"` // of the smooth regime's Jacobian, by decreasing real part
	Margins     []float64 `json:"margins"`     // α_r·λ − token inflow, for empty pools (0 otherwise)
	Note        string    `json:"note,omitempty"`
}

// ODECheck compares the limit with the fluid ODE's long-time limit.
type ODECheck struct {
	T        float64 `json:"t"`        // time integrated
	Residual float64 `json:"residual"` // largest |dy/dt| at the end
	Steps    int     `json:"steps"`
	MaxDiff  float64 `json:"max_diff"` // largest difference in busy, blocking/λ₂ and (if determined) tokens
}

// JIQTrajectory is the JSON output of `fluid jiq --trajectory`.
type JIQTrajectory struct {
	Header
	Until             float64     `json:"until"` // end time
	Every             float64     `json:"every"` // output interval
	RTol              float64     `json:"rtol"`  // the integrator's relative tolerance
	Scenario          string      `json:"scenario"`
	Load              float64     `json:"load"`
	Alpha             []float64   `json:"alpha"`
	Beta              []float64   `json:"beta"`
	Exchange          float64     `json:"exchange"`
	IMax              *int        `json:"imax"` // queueing truncation
	Points            []JIQPoint  `json:"points"`
	Switches          []JIQSwitch `json:"switches"`           // token pools emptying or refilling
	ConservationError float64     `json:"conservation_error"` // largest violation of the conservation laws
	BoundaryMass      *float64    `json:"boundary_mass"`      // largest y_imax seen (queueing)
	Steps             int         `json:"steps"`              // integrator steps
	// Status is converged (the integration reached until), interrupted
	// (the points are those written before a signal) or how the
	// integrator stopped (step_limit, step_size_underflow, …).
	Status string `json:"status"`
}

// JIQPoint is one point of a trajectory.
type JIQPoint struct {
	T          float64   `json:"t"`
	Busy       float64   `json:"busy"`        // x0 (blocking) or 1 − y0 (queueing)
	Tokens     []float64 `json:"tokens"`      // x_r
	Occupancy  []float64 `json:"occupancy"`   // y_0..y_imax (queueing)
	Blocking   *float64  `json:"blocking"`    // instantaneous blocking probability (blocking)
	RandomRate *float64  `json:"random_rate"` // λ₂(t) (queueing)
	MeanQueue  *float64  `json:"mean_queue"`  // Σ i·y_i (queueing)
}

// JIQSwitch records a token pool emptying or refilling.
type JIQSwitch struct {
	T          float64 `json:"t"`
	Dispatcher int     `json:"dispatcher"` // 1-based, in the order of --alpha
	Empty      bool    `json:"empty"`      // true: the pool emptied
}
