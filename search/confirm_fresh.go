package search

// With one objective the report does not name a config measured once
// over a confirmed one within noise of it (singleGuard), so a config that
// takes the best mean on one measurement must be measured again before
// the report can name it: from half-way in — when the early share has
// confirmed a leader, so a single has something to be held against — the
// best mean measured once is measured again at the next trial, within the
// grown budget (ConfirmLimit). Confirming the best mean, not the leader
// the report names: the guard keeps the single from being the leader, and
// confirming only leaders would never confirm it (the endgame2 pass of
// issue 46 met exactly that). Several objectives keep the confirmation
// as it was: their report names a front, not one config.

// confirmFresh is the re-measurement of the best mean measured once, with
// one objective, from half-way in.
func (s ConfirmState) confirmFresh() (Confirm, bool) {
	if !s.OneObjective || len(s.Ranked) == 0 || 2*s.Done < s.NTrials {
		return Confirm{}, false
	}
	b := s.Ranked[0]
	if b.N != 1 || b.Running {
		return Confirm{}, false
	}
	return Confirm{b.Key, "confirm"}, true
}
