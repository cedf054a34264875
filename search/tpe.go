package search

// newTPE is goptuna's single-objective Tree-structured Parzen Estimator,
// knob by knob, with the constant liar for pending trials. Several
// objectives need motpe.
func newTPE(b Build) (Sampler, error) {
	m, err := newStudyModel(b)
	if err != nil {
		return nil, err
	}
	return NewGuard(b, lyingStudy{m}), nil
}
