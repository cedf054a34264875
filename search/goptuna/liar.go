package goptuna

import (
	"github.com/c-bata/goptuna"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// lyingStudy is the model of the goptuna samplers, tpe and cmaes, told
// the trials still running as provisional observations while it
// proposes.
//
// goptuna's TPE learns from every completed trial of the study, lies
// included. goptuna's CMA-ES does not see them: it takes as a generation
// only the trials it sampled itself (tagged with the generation), and
// folds a full generation into its mean and covariance irreversibly — a
// lie it took would corrupt that update from a point it did not draw and
// an invented value, and no retraction could undo it. So cmaes lies only
// to the TPE that samples its categorical and conditional knobs; its
// numeric knobs keep CMA-ES's own batch behaviour (the members of a
// generation are independent draws; pending ones are members awaiting
// their result) plus exclusion.
type lyingStudy struct{ *studyModel }

// Lie tells goptuna's TPE each pending config as a completed trial with
// the worst value measured so far — the pessimistic constant liar, as
// motpe's: the lie sorts into TPE's bad set, so proposals move away from
// what peers are measuring, and no invented value ever joins the good
// set. The undo retracts the lies from the storage; the real result is
// told when the trial ends. Nothing is lied during the random start-up,
// where TPE is not asked.
func (m lyingStudy) Lie(pending []space.Config) func() {
	if len(pending) == 0 || len(m.told) < search.StartupTrials || !m.hasWorst {
		return func() {}
	}
	var ids []int
	for _, c := range pending {
		id, err := m.record(c)
		if err != nil {
			continue // a knob goptuna cannot hold: that config is not lied
		}
		ids = append(ids, id)
		if m.study.Storage.SetTrialValue(id, m.worst()) == nil {
			_ = m.study.Storage.SetTrialState(id, goptuna.TrialStateComplete)
		}
	}
	return func() { m.store.retract(ids) }
}

// worst is the worst value measured so far.
func (m lyingStudy) worst() float64 {
	if m.sp.Objectives[0].Direction == space.Minimize {
		return m.hi
	}
	return m.lo
}

// retractable is goptuna's in-memory storage with trials that can be
// taken back: goptuna can neither delete a trial nor change a finished
// one, so a retracted lie stays stored and is hidden from every reader
// of the study's trials (TPE reads them all each time it samples).
type retractable struct {
	*goptuna.InMemoryStorage
	retracted map[int]bool
}

func newRetractable() *retractable {
	return &retractable{InMemoryStorage: goptuna.NewInMemoryStorage(), retracted: map[int]bool{}}
}

func (s *retractable) retract(ids []int) {
	for _, id := range ids {
		s.retracted[id] = true
	}
}

// GetAllTrials is the study's trials without the retracted ones.
func (s *retractable) GetAllTrials(studyID int) ([]goptuna.FrozenTrial, error) {
	all, err := s.InMemoryStorage.GetAllTrials(studyID)
	if err != nil || len(s.retracted) == 0 {
		return all, err
	}
	kept := all[:0:0]
	for _, t := range all {
		if !s.retracted[t.ID] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}
