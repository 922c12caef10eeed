package report

// Refusal is the JSON document of a command that shows no answer: it was
// interrupted before any of its work finished (status interrupted), or
// its result failed the invariant guard (status invalid_result, with the
// violations as the evidence). The exit status says the same: 128 + the
// signal, or 1.
type Refusal struct {
	Header
	Status     string      `json:"status"` // interrupted or invalid_result
	Reason     string      `json:"reason"` // in words
	Violations []Violation `json:"violations,omitempty"`
}

// Violation is one invariant a result failed.
type Violation struct {
	Path      string `json:"path"`      // where the value stands ("rows[2].sojourn")
	Invariant string `json:"invariant"` // what should hold ("in [0, 1]")
	Values    string `json:"values"`    // the evidence ("blocking = 1.2")
}
