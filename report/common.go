package report

// Complex is a complex number in JSON.
type Complex struct {
	Re float64 `json:"re"`
	Im float64 `json:"im"`
}
