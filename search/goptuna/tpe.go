package goptuna

import "github.com/servetune/servetune/search"

// NewTPE is goptuna's single-objective Tree-structured Parzen Estimator,
// knob by knob, with the constant liar for pending trials. Several
// objectives need motpe.
func NewTPE(b search.Build) (search.Sampler, error) {
	m, err := newStudyModel(b)
	if err != nil {
		return nil, err
	}
	return search.NewGuard(b, lyingStudy{m}), nil
}
