package report

// Validate is the JSON output of `fluid validate`: the checks of
// validate.Report with the inputs that chose them.
type Validate struct {
	Header
	Seed    uint64  `json:"seed"`   // base random seed
	Filter  string  `json:"filter"` // regular expression choosing the cases ("" = all)
	Checks  []Check `json:"checks"`
	Cases   int     `json:"cases"`
	Failed  int     `json:"failed"` // failed checks
	Seconds float64 `json:"seconds"`
	Quick   bool    `json:"quick"`
	// Interrupted: a signal ended the run; Checks are those of the
	// cases that finished, Done of Cases.
	Interrupted bool `json:"interrupted"`
	Done        int  `json:"done"` // cases finished
}

// Check is one theory value against one simulated estimate.
type Check struct {
	Case     string `json:"case"`
	Source   string `json:"source"`   // the published result or closed form checked
	Quantity string `json:"quantity"` // what is compared
	N        int    `json:"servers"`
	// Theory is the prediction.
	Theory float64 `json:"theory"`
	// Allow is the stated finite-N allowance added to the interval.
	Allow float64 `json:"allow"`
	// Sim is the simulated mean with its 95% half-width.
	Sim Estimate `json:"sim"`
	// Half is the half-width of the verdict's interval: the 99.9% Student t
	// interval of Sim (see validate.Verdict).
	Half    float64 `json:"half_width_999"`
	Pass    bool    `json:"pass"`
	Seconds float64 `json:"seconds"` // the case's wall time
}
