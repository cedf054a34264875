package search

import (
	"math"
	"slices"
)

// Noise is measured, not assumed: a study spends a budgeted share of its
// trials measuring configs again. Early, it repeats the baseline (a
// quarter of the way in, so the pair spans part of the study and drift
// shows) and the incumbent once it has settled (half-way in). At the end
// it confirms adaptively, as a best-arm identification does: the config
// the report would name (the leader) is measured again if it was
// measured once, and then, while a rival could still be truly better —
// the upper confidence bound of the rival's lead over the leader is
// positive — the rival with the highest such bound or the leader,
// whichever has fewer measurements. When rivals still overlap, the share
// grows by up to half; when the leader is separated, the trials left go
// back to the search. NextConfirm is the one decision; the study turns
// its answer into a trial of origin "noise" or "confirm", which counts
// toward n_trials like any other.

// DefaultConfirmShare is the share of n_trials spent on noise repeats and
// confirmations when the user does not say (servetune run --confirm).
const DefaultConfirmShare = 0.1

// Confirmation constants: a study of fewer than minConfirmTrials trials
// confirms nothing by default; one of more spends at least
// minConfirmBudget trials (a noise pair and a confirmation), and no
// config is measured more than MaxMeasurements times by confirmation.
// confirmZ is the two-sided 95% normal quantile the reports state their
// uncertainty with; noisePriorDF is how many degrees of freedom the
// assumed noise weighs against the measured one (a few repeats of
// heavy-tailed noise, taken close in time, understate it).
const (
	minConfirmTrials = 10
	minConfirmBudget = 2
	MaxMeasurements  = 3
	confirmZ         = 1.96
	noisePriorDF     = 2
)

// ConfirmBudget is how many trials of a study of nTrials go to noise
// repeats and confirmations at the given share, before it grows.
func ConfirmBudget(share float64, nTrials int) int {
	if share <= 0 || nTrials < minConfirmTrials {
		return 0
	}
	return min(nTrials/2, max(minConfirmBudget, int(math.Round(share*float64(nTrials)))))
}

// ConfirmLimit is the most a budget grows to while rivals overlap the
// leader at the end: by half, rounded up.
func ConfirmLimit(budget int) int {
	return budget + (budget+1)/2
}

// Measured is one config as confirmation sees it: its key, the mean of
// its first objective over its measurements, how many there are, and
// whether one of them is still running.
type Measured struct {
	Key     string
	Mean    float64
	N       int
	Running bool
	// Spared: its first measurement ran to the end only because the wave
	// rule spared it (PruneRule.Spared; confirm_spared.go).
	Spared bool
	// Disputed: its two measurements disagree beyond the noise (Disputed;
	// confirm_dispute.go).
	Disputed bool
}

// ConfirmState is what NextConfirm decides from.
type ConfirmState struct {
	// Budget is ConfirmBudget's answer; Used the noise and confirm
	// trials so far (finished or running), SparedUsed how many of them
	// re-measured a spared leader (they come out of their own allowance).
	Budget, Used, SparedUsed int
	// NTrials is the study's n_trials; Done the trials finished or
	// running that count toward it; Remaining how many more it may start
	// (n_trials, and the GPU-time budget at the mean trial's cost).
	NTrials, Done, Remaining int
	// Baseline is the baseline config (nil: none measured yet); Ranked
	// the feasible configs, best first on the first objective; Leader
	// the key of the one the report names now (empty: Ranked[0]) — with
	// several objectives, a front member within noise of the best on the
	// first and better on another.
	Baseline *Measured
	Ranked   []Measured
	Leader   string
	// Minimize is the first objective's direction.
	Minimize bool
	// CV is the measurement noise (relative): measured from CVDF degrees
	// of freedom of repeats, or, with none, AssumedCV.
	CV        float64
	CVDF      int
	AssumedCV float64
}

// Confirm is a config to measure again and why: "noise" (the baseline,
// to measure the noise and drift) or "confirm" (a top candidate).
type Confirm struct {
	Key, Origin string
}

// NextConfirm decides whether the next trial measures a config again.
func NextConfirm(s ConfirmState) (Confirm, bool) {
	if c, ok := s.confirmSpared(); ok {
		return c, true
	}
	s.Used -= min(s.SparedUsed, s.Used)
	if s.Budget <= 0 || s.Used >= ConfirmLimit(s.Budget) {
		return Confirm{}, false
	}
	if c, ok := s.confirmDisputed(); ok {
		return c, true
	}
	if s.Remaining <= s.endTrials() {
		return s.confirmEnd()
	}
	return s.confirmEarly()
}

// confirmEarly spends the smaller half of the budget: the baseline again
// a quarter of the way in, the leader half-way in if measured once.
func (s ConfirmState) confirmEarly() (Confirm, bool) {
	early := s.Budget - (s.Budget+1)/2
	l, ok := s.leader()
	switch {
	case s.Used >= early || 4*s.Done < s.NTrials:
		return Confirm{}, false
	case s.Baseline != nil && s.Baseline.N == 1 && !s.Baseline.Running:
		return Confirm{s.Baseline.Key, "noise"}, true
	case 2*s.Done >= s.NTrials && ok && l.N == 1 && !l.Running:
		return Confirm{l.Key, "confirm"}, true
	}
	return Confirm{}, false
}

// endTrials is how many of the last trials confirmation takes: what is
// left of the budget, or as many as the leader and its rivals measured
// once still want (one more when a rival overlaps), up to the limit.
func (s ConfirmState) endTrials() int {
	left := s.Budget - s.Used
	l, ok := s.leader()
	if !ok {
		return left
	}
	want := 0
	if l.N < 2 {
		want++
	}
	threatened := false
	for _, r := range s.Ranked {
		if r.Key != l.Key && s.lead(r, l) > 0 {
			threatened = true
			if r.N < 2 {
				want++
			}
		}
	}
	if threatened {
		want++
	}
	return max(left, min(want, ConfirmLimit(s.Budget)-s.Used))
}

// confirmEnd measures the leader again if it was measured once; then,
// while a rival could be truly better, whichever of the leader and the
// most threatening rival has fewer measurements (the leader on a tie).
// A separated leader confirms nothing: the trial goes to the search.
func (s ConfirmState) confirmEnd() (Confirm, bool) {
	l, ok := s.leader()
	if !ok {
		return Confirm{}, false
	}
	free := !l.Running && l.N < MaxMeasurements
	if free && l.N < 2 {
		return Confirm{l.Key, "confirm"}, true
	}
	r, lead := s.rival(l)
	switch {
	case lead <= 0:
		return Confirm{}, false
	case free && (l.N <= r.N || r.Key == ""):
		return Confirm{l.Key, "confirm"}, true
	case r.Key != "":
		return Confirm{r.Key, "confirm"}, true
	}
	return Confirm{}, false
}

// leader is the config the report names now.
func (s ConfirmState) leader() (Measured, bool) {
	for _, m := range s.Ranked {
		if m.Key == s.Leader {
			return m, true
		}
	}
	if len(s.Ranked) == 0 {
		return Measured{}, false
	}
	return s.Ranked[0], true
}

// rival is the rival that can be measured again with the highest upper
// confidence bound on its lead over the leader, and that bound (-Inf:
// none). A rival that cannot be measured again still counts as a
// threat (lead > 0) so the leader is measured instead.
func (s ConfirmState) rival(l Measured) (Measured, float64) {
	var best Measured
	lead, blocked := math.Inf(-1), false
	for _, r := range s.Ranked {
		if r.Key == l.Key {
			continue
		}
		d := s.lead(r, l)
		if r.Running || r.N >= MaxMeasurements {
			blocked = blocked || d > 0
			continue
		}
		if d > lead {
			best, lead = r, d
		}
	}
	if lead <= 0 && blocked {
		return Measured{}, math.SmallestNonzeroFloat64
	}
	return best, lead
}

// lead is the upper confidence bound of how much better r truly is than
// l, in the first objective's units: their difference plus confirmZ
// standard errors of it.
func (s ConfirmState) lead(r, l Measured) float64 {
	d := r.Mean - l.Mean
	if s.Minimize {
		d = -d
	}
	cv := PriorCV(s.CV, s.CVDF, s.AssumedCV)
	se := cv * math.Sqrt(r.Mean*r.Mean/float64(max(1, r.N))+l.Mean*l.Mean/float64(max(1, l.N)))
	return d + confirmZ*se
}

// Drift is what the repeated measurements say about a machine whose
// performance moves during the study: Pairs repeats of a config compared
// with its first measurement, MeanPct their mean change (later against
// first, %), Detected when the change is consistent — every pair moved
// the same way, by more than twice the standard error of the mean and by
// more than minDrift.
type Drift struct {
	Pairs    int     `json:"pairs"`
	MeanPct  float64 `json:"mean_pct"`
	Detected bool    `json:"detected"`
}

// minDrift is the smallest mean change (log ratio) called drift.
const minDrift = 0.02

// DetectDrift judges the log ratios log(later / first) of repeated
// measurements, one per repeat.
func DetectDrift(ratios []float64) Drift {
	ratios = slices.DeleteFunc(slices.Clone(ratios), func(r float64) bool { return math.IsNaN(r) || math.IsInf(r, 0) })
	n := len(ratios)
	if n == 0 {
		return Drift{}
	}
	mean, pos := 0.0, 0
	for _, r := range ratios {
		mean += r
		if r > 0 {
			pos++
		}
	}
	mean /= float64(n)
	d := Drift{Pairs: n, MeanPct: (math.Exp(mean) - 1) * 100}
	if n < 2 || (pos != 0 && pos != n) || math.Abs(mean) < minDrift {
		return d
	}
	ss := 0.0
	for _, r := range ratios {
		ss += (r - mean) * (r - mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	d.Detected = math.Abs(mean) > 2*se
	return d
}
