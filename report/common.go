package report

// Complex is a complex number in JSON.
type Complex struct {
	Re float64 `json:"re"`
	Im float64 `json:"im"`
}

// Estimate is a simulated mean with the half-widths of its confidence
// intervals: Student t on Samples independent means (replications, or the
// batch means of a single replication), t quantile with Samples−1 degrees
// of freedom. CI95 is always the 95% half-width; HalfWidth is the
// half-width at Level (the run's confidence level, default 0.95, when it
// equals CI95). With one sample there is no interval and both are 0.
type Estimate struct {
	Mean      float64 `json:"mean"`
	CI95      float64 `json:"ci95"`
	HalfWidth float64 `json:"half_width"`
	Level     float64 `json:"level"`
	Samples   int     `json:"samples"`
}
