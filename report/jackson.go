package report

// Jackson is the JSON output of `fluid jackson`.
type Jackson struct {
	Header
	Load     float64   `json:"load"`
	Alpha    []float64 `json:"alpha"`
	Beta     []float64 `json:"beta"`     // as used (uniform 1/R if not given)
	Exchange float64   `json:"exchange"` // always 0: exchange breaks the product form
	// Status is exact: every row is the product form, computed without
	// iteration or truncation.
	Status string       `json:"status"`
	Limit  float64      `json:"limit"` // N → ∞ blocking (Theorem 1 / its β extension)
	Rows   []JacksonRow `json:"rows"`
}

// JacksonRow is the exact result at one N.
type JacksonRow struct {
	Servers   int       `json:"servers"`
	Blocking  float64   `json:"blocking"`   // exact blocking probability B
	NoTokens  []float64 `json:"no_tokens"`  // P(dispatcher r holds no token)
	Busy      float64   `json:"busy"`       // mean fraction of busy servers
	Tokens    []float64 `json:"tokens"`     // mean tokens at dispatcher r per server
	LimitDiff float64   `json:"limit_diff"` // B − limit
	Seconds   float64   `json:"seconds"`    // time to solve
}
