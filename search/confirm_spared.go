package search

// A trial the wave rule spared (PruneRule.Spared: the rule reading each
// step as it stands would have stopped it) ran to the end where it used
// to be cut short, so its one measurement, lucky or not, now competes for
// the report. Near-twins a few percent below the incumbent are spared as
// often as wave-shaped winners, and with heavy-tailed noise one of them
// reads above the incumbent on a lucky draw often enough to be reported
// (h200-extreme, the wave rule alone: four seeds of twenty named a config
// 6–8% below the best at 10 trials). So a leader that was spared and
// measured once is measured again at once, before the report can name it
// for long, from an allowance of its own: the noise repeats and the end's
// confirmations keep theirs, and a study where nothing was spared spends
// its budget as before.

// sparedAllowance is how many re-measurements of spared leaders a budget
// allows: half of it, rounded up (2 of 40 trials at the default share).
func sparedAllowance(budget int) int { return (budget + 1) / 2 }

// confirmSpared is the re-measurement of a spared leader measured once,
// while its allowance lasts.
func (s ConfirmState) confirmSpared() (Confirm, bool) {
	l, ok := s.leader()
	if !ok || !l.Spared || l.N != 1 || l.Running || s.Budget <= 0 || s.SparedUsed >= sparedAllowance(s.Budget) {
		return Confirm{}, false
	}
	return Confirm{l.Key, "confirm"}, true
}
