package report

// Map is the JSON output of `fluid map`.
type Map struct {
	Header
	Dispatchers    int       `json:"dispatchers"`
	Tally          string    `json:"tally"`           // own, shared or partitioned
	Policy         string    `json:"policy"`          // the simulator's word: tally, shared-tally or partitioned
	Sizes          string    `json:"sizes"`           // exp or h2:SCV
	Discipline     string    `json:"discipline"`      // fcfs or ps
	Alpha          []float64 `json:"alpha"`           // the dispatchers' shares; null: equal
	MapDispatchers int       `json:"map_dispatchers"` // k of the map computed (1 unless own)
	Load           float64   `json:"load"`
	Period         float64   `json:"period"`
	Start          string    `json:"start"`
	Tol            float64   `json:"tol"`            // ‖·‖₁ distance between boards that counts as settled
	MaxIterations  int       `json:"max_iterations"` // most refresh periods iterated
	Attractor      string    `json:"attractor"`      // fixed_point, cycle or not_settled
	Cycle          *int      `json:"cycle_period"`   // 1 for a fixed point; null when not settled
	BoardMean      float64   `json:"board_mean"`     // mean board value at a refresh (over the cycle)
	Sojourn        float64   `json:"sojourn"`        // mean time in system (over the cycle; not settled: last 100 periods)
	Points         []float64 `json:"sojourn_points"`
	// Branch is the pass in progress at T (fixed point only).
	Branch     *int     `json:"branch"`
	Leading    *Complex `json:"leading"` // leading eigenvalue (fixed point only)
	Radius     *float64 `json:"radius"`
	Iterations int      `json:"iterations"`
	Lost       float64  `json:"lost"` // largest mass lost to truncation in one period
	// Status is converged (a fixed point or a cycle), not_settled, or
	// iteration_limit when the work bound stopped the iteration (a board
	// that grows every period).
	Status string `json:"status"`
	// Phases are the stretches of steady mean time in system the
	// iteration went through (a long plateau before the attractor is a
	// transient); Transient is the number of periods before the last one.
	Phases    []Phase `json:"phases"`
	Transient int     `json:"transient"`
	// Refined is the finite-N mean of the fixed point (--servers); null
	// without it.
	Refined *MapRefined `json:"refined"`
}

// MapRefined is the refined (1/N) mean of the balanced fixed point at N
// servers.
type MapRefined struct {
	Servers     int     `json:"servers"`      // N, the whole farm
	PartServers int     `json:"part_servers"` // servers of the map's farm: N/k partitioned, N otherwise
	Sojourn     float64 `json:"sojourn"`      // mean time in system at N = ∞ (the fixed point)
	// SojournRefined is the refined mean time in system at N (the clock's
	// stretch averaged over its spread at N); SojournCoef is c of the
	// asymptotic Sojourn + c/N.
	SojournRefined float64 `json:"sojourn_refined"`
	SojournCoef    float64 `json:"sojourn_coef"`
	StepError      float64 `json:"step_error"` // change of sojourn_coef when the finite-difference steps are halved
	BoardMean      float64 `json:"board_mean"` // mean board at N = ∞
	// BoardMeanRefined is the refined stationary board mean at N.
	BoardMeanRefined float64 `json:"board_mean_refined"`
	// BorderGap is the distance of the nearest pass boundary to T at the
	// fixed point, BorderSpread the standard deviation of the cut
	// t_{V+1} − T at N (both in mean service times).
	BorderGap    float64 `json:"border_gap"`
	BorderSpread float64 `json:"border_spread"`
	Method       string  `json:"method"` // refined_1_over_n
}

// Phase is one phase: periods [from, to) after the start, the mean
// time in system over them with its standard error, and the spread of the
// per-period values.
type Phase struct {
	From    int     `json:"from"`
	To      int     `json:"to"`
	Sojourn float64 `json:"sojourn"`
	StdErr  float64 `json:"stderr"`
	StdDev  float64 `json:"stddev"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}
