package staleboard

// tallySpace is the work space of the tally evolution of best of d.
type tallySpace struct{}

func (m *Map) applyTallyBestd(p []float64, top int, mass float64, res *MapResult) {
	panic("not yet")
}
