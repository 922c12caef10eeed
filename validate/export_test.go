package validate

// RunBroken is Run with the theory values of the cases for which broken
// returns true deliberately broken (multiplied by 1.25 and raised by 0.05;
// a tipped-or-not expectation flipped), so that a test can show those
// cases then fail.
func RunBroken(s *Settings, broken func(caseName string) bool) (*Report, error) {
	return run(s, broken)
}
