package report

import "github.com/fluidlb/fluid/validate"

// Validate is the JSON output of `fluid validate`: the checks of
// validate.Report with the inputs that chose them.
type Validate struct {
	Header
	Seed   uint64 `json:"seed"`   // base random seed
	Filter string `json:"filter"` // regular expression choosing the cases ("" = all)
	*validate.Report
}
