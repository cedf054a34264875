package search

import (
	"github.com/c-bata/goptuna"

	"github.com/servetune/servetune/space"
)

// tpeModel is the tpe sampler's model: goptuna's TPE, told the trials
// still running as provisional observations while it proposes.
//
// cmaes keeps the plain studyModel (exclusion only): its CMA-ES folds a
// generation's completed trials into the mean and covariance once the
// generation is full, irreversibly, and it takes only the trials it
// sampled from the current distribution. A lie either never reaches it
// (not of the generation) or, tagged as one, updates the covariance
// from an invented value and a point it did not draw — an update no
// retraction can undo.
type tpeModel struct{ *studyModel }

// lie tells goptuna's TPE each pending config as a completed trial with
// the worst value measured so far — the pessimistic constant liar, as
// motpe's: the lie sorts into TPE's bad set, so proposals move away from
// what peers are measuring, and no invented value ever joins the good
// set. The undo retracts the lies from the storage; the real result is
// told when the trial ends. Nothing is lied during the random start-up,
// where TPE is not asked.
func (m tpeModel) lie(pending []space.Config) func() {
	if len(pending) == 0 || len(m.told) < startupTrials || !m.hasWorst {
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
func (m tpeModel) worst() float64 {
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
