package search

import (
	"math"
	"slices"
)

// Noise is measured, not assumed: a study spends a budgeted share of its
// trials measuring configs again. Early, it repeats the baseline (a
// quarter of the way in, so the pair spans part of the study and drift
// shows) and the incumbent once it has settled (half-way in); at the
// end, the reserved half of the share confirms the top candidates — the
// best, the runner-up and any other within noise of the best — fewest
// measurements first, so the study reports a best that was measured more
// than once, with an uncertainty. NextConfirm is the one decision; the
// study turns its answer into a trial of origin "noise" or "confirm",
// which counts toward n_trials like any other.

// DefaultConfirmShare is the share of n_trials spent on noise repeats and
// confirmations when the user does not say (servetune run --confirm).
const DefaultConfirmShare = 0.1

// Confirmation constants: a study of fewer than minConfirmTrials trials
// confirms nothing by default; one of more spends at least
// minConfirmBudget trials (a noise pair and a confirmation), and no
// config is measured more than MaxMeasurements times by confirmation;
// confirmContenders bounds the top candidates confirmed.
const (
	minConfirmTrials  = 10
	minConfirmBudget  = 2
	MaxMeasurements   = 3
	confirmContenders = 3
)

// ConfirmBudget is how many trials of a study of nTrials go to noise
// repeats and confirmations at the given share.
func ConfirmBudget(share float64, nTrials int) int {
	if share <= 0 || nTrials < minConfirmTrials {
		return 0
	}
	return min(nTrials/2, max(minConfirmBudget, int(math.Round(share*float64(nTrials)))))
}

// Measured is one config as confirmation sees it: its key, the mean of
// its first objective over its measurements, how many there are, and
// whether one of them is still running.
type Measured struct {
	Key     string
	Mean    float64
	N       int
	Running bool
}

// ConfirmState is what NextConfirm decides from.
type ConfirmState struct {
	// Budget is ConfirmBudget's answer; Used the noise and confirm
	// trials so far (finished or running).
	Budget, Used int
	// NTrials is the study's n_trials; Done the trials finished or
	// running that count toward it; Remaining how many more it may start
	// (n_trials, and the GPU-time budget at the mean trial's cost).
	NTrials, Done, Remaining int
	// Baseline is the baseline config (nil: none measured yet); Ranked
	// the feasible configs, best first.
	Baseline *Measured
	Ranked   []Measured
	// CV is the measurement noise (relative) that decides which
	// candidates are within noise of the best.
	CV float64
}

// Confirm is a config to measure again and why: "noise" (the baseline,
// to measure the noise and drift) or "confirm" (a top candidate).
type Confirm struct {
	Key, Origin string
}

// NextConfirm decides whether the next trial measures a config again.
func NextConfirm(s ConfirmState) (Confirm, bool) {
	if s.Used >= s.Budget {
		return Confirm{}, false
	}
	if s.Remaining <= s.Budget-s.Used {
		return confirmTop(s)
	}
	early := s.Budget - (s.Budget+1)/2 // the larger half is kept for the end
	switch {
	case s.Used >= early || 4*s.Done < s.NTrials:
		return Confirm{}, false
	case s.Baseline != nil && s.Baseline.N == 1 && !s.Baseline.Running:
		return Confirm{s.Baseline.Key, "noise"}, true
	case 2*s.Done >= s.NTrials && len(s.Ranked) > 0 && s.Ranked[0].N == 1 && !s.Ranked[0].Running:
		return Confirm{s.Ranked[0].Key, "confirm"}, true
	}
	return Confirm{}, false
}

// confirmTop picks, among the contenders, the one measured fewest times
// (the better on a tie), until each has MaxMeasurements.
func confirmTop(s ConfirmState) (Confirm, bool) {
	pick := -1
	cs := contenders(s.Ranked, s.CV)
	for i, m := range cs {
		if !m.Running && m.N < MaxMeasurements && (pick < 0 || m.N < cs[pick].N) {
			pick = i
		}
	}
	if pick < 0 {
		return Confirm{}, false
	}
	return Confirm{cs[pick].Key, "confirm"}, true
}

// contenders are the best config, the runner-up, and the others among
// the first confirmContenders within noise of the best: two measurements
// apart by less than 2·√2·CV of the best's value.
func contenders(ranked []Measured, cv float64) []Measured {
	var out []Measured
	for i, m := range ranked[:min(len(ranked), confirmContenders)] {
		if i < 2 || math.Abs(m.Mean-ranked[0].Mean) <= 2*math.Sqrt2*cv*math.Abs(ranked[0].Mean) {
			out = append(out, m)
		}
	}
	return out
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
