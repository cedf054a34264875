package search

// With one objective a lesser config's lucky draw can lead while the best
// config, measured once on a low draw, sits just behind it within the
// noise (built-in reality seeds 31–38, h200-extreme seed 24: 5.5–13.4%
// below from trial 4–10 until the end's race at 35–40). Re-measuring a
// leader that is measured twice already tells the report little; the
// rival measured once is the draw in doubt. So the half-way turn, when
// the leader has two measurements or more, measures the strongest rival
// that overlaps it and was measured once. With several objectives the
// leader is a front member and the rule does not apply.

// onceRival is the rival measured once, not running, with the highest
// upper confidence bound on its lead over l, if that bound is positive.
func (s ConfirmState) onceRival(l Measured) (Measured, bool) {
	var best Measured
	found := false
	for _, r := range s.Ranked {
		if r.Key == l.Key || r.N != 1 || r.Running || s.lead(r, l) <= 0 {
			continue
		}
		if !found || s.lead(r, l) > s.lead(best, l) {
			best, found = r, true
		}
	}
	return best, found
}
