package search

// newTPE is goptuna's single-objective Tree-structured Parzen Estimator,
// knob by knob. Several objectives need motpe.
func newTPE(b build) (Sampler, error) {
	m, err := newStudyModel(b)
	if err != nil {
		return nil, err
	}
	return newGuard(b, m), nil
}
