package report

// TrapDoor is the JSON output of `fluid trapdoor`: the critical push b*
// of a family of disturbances at each refresh period, with the
// mechanism's numbers at the balanced state there.
type TrapDoor struct {
	Header
	Dispatchers int           `json:"dispatchers"`
	Load        float64       `json:"load"`
	Push        string        `json:"push"`            // the push family searched (its size is what varies)
	Start       string        `json:"start"`           // the farm's state before the push
	OnBalanced  bool          `json:"on_balanced"`     // the push lands on the balanced fixed point itself
	Servers     int           `json:"servers"`         // N: of the hot server's farm, and of the board range
	Difference  float64       `json:"half_difference"` // the difference d whose one-refresh response is reported
	RelTol      float64       `json:"rtol"`            // relative width of each bracket
	Seconds     float64       `json:"seconds"`
	Rows        []TrapDoorRow `json:"rows"`
}

// TrapDoorRow is the critical push at one refresh period.
type TrapDoorRow struct {
	Period float64 `json:"period"`
	Scaled float64 `json:"scaled"` // T(1−λ)²
	// Critical is b*, in jobs per server hit, CriticalScaled b*/T;
	// PushBracket the largest push found to recover and the smallest found
	// to tip. Above the range (no push tipped) Critical is the largest
	// push tried, which recovered, and PushBracket is null; with no
	// balanced state (below the edge) both are 0 and null.
	Critical       float64    `json:"critical"`
	CriticalScaled float64    `json:"critical_scaled"`
	PushBracket    []float64  `json:"push_bracket"`
	Status         string     `json:"status"`     // converged, above_range, no_edge (no balanced state), not_settled, interrupted
	BoardMean      float64    `json:"board_mean"` // the balanced fixed point's
	Orbits         int        `json:"orbits"`
	TipPeriods     int        `json:"tip_periods"`     // periods the orbit at the bracket's top took to tip
	RecoverPeriods int        `json:"recover_periods"` // periods the orbit at its bottom took to recover
	Evaluations    int        `json:"evaluations"`
	Mechanism      *Mechanism `json:"mechanism"` // at the balanced fixed point (null without one)
	Seconds        float64    `json:"seconds"`
}

// Mechanism is the mechanism of the trap door at a board: its spread and
// how a difference comes back one refresh later.
type Mechanism struct {
	Quantiles      []int   `json:"quantiles"`       // the board's 5%, 25%, 50%, 75% and 95% points
	Gap            float64 `json:"gap"`             // between the board's two groups (the tipping definition's)
	BoardRange     float64 `json:"board_range"`     // E[max − min] of N servers drawn from the board
	ScaledRange    float64 `json:"scaled_range"`    // board_range·(1 − λ)
	Response       float64 `json:"response"`        // the difference d on half the servers, one refresh later
	ResponseFactor float64 `json:"response_factor"` // response/d
	TopUp          float64 `json:"top_up"`          // −(k − 1): the factor of the top-up alone
	Drained        float64 `json:"drained"`         // 1 − response_factor/top_up: the share of the overshoot drained
}
