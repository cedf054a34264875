package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// Near the top of a study, the configs measured are mostly near-twins: a
// dozen configs one or two knob values apart, each measured once or twice
// under heavy-tailed, drifting noise. Ranked by their own means, the
// luckiest of them wins (the winner's curse), and a config 3% below the
// best is named over it as often as not. Their measurements say more
// together than apart: a knob value's effect shows in every config that
// has it. PooledMeans estimates each config's true value from its own
// mean and what an additive model of its similar configs predicts for it,
// each weighted by its precision (empirical Bayes): its measurements by
// n/CV², the model by 1/τ², τ² the model's misfit beyond the noise, at
// least (CV/2)² so the model never counts for more than poolMaxWeight
// measurements. The report's one-objective pick (PickBest) lets these
// estimates move it from the best mean only to a config measured more
// often; the pick is still a measured config, stated with its own
// measurements' mean and uncertainty, and confirmation decides on the
// means.

// Arm is one measured config as the pick sees it: its knobs, the mean of
// its first objective over its measurements, and how many there are.
type Arm struct {
	Config space.Config
	Mean   float64
	N      int
}

// Pooling constants: the model is fitted on the configs whose mean is
// within poolRegion (log ratio, ~10%) of the best mean, when there are at
// least poolMinArms of them; each knob value's effect is shrunk as if
// poolRidge more measurements sat at no effect (the residual's shrink);
// poolRounds of backfitting converge on the few configs involved; the
// model weighs at most poolMaxWeight measurements.
const (
	poolRegion    = 0.1
	poolMinArms   = 3
	poolRidge     = 2.0
	poolRounds    = 30
	poolMaxWeight = 4.0
)

// PooledMeans returns each arm's estimated true value of the first
// objective: its mean when the noise is zero or unknown, when it is far
// from the top or when too few configs are near it; otherwise its mean
// pulled toward the near-top configs' additive model.
func PooledMeans(arms []Arm, cv float64, minimize bool) []float64 {
	out := make([]float64, len(arms))
	for i, a := range arms {
		out[i] = a.Mean
	}
	near := nearTop(arms, minimize)
	if cv <= 0 || len(near) < poolMinArms {
		return out
	}
	sign := 1.0
	if minimize {
		sign = -1
	}
	y := make([]float64, len(near))
	for j, i := range near {
		y[j] = sign * math.Log(arms[i].Mean)
	}
	pred := fitAdditive(arms, near, y)
	tau2 := misfit(arms, near, y, pred, cv)
	for j, i := range near {
		own := float64(arms[i].N) / (cv * cv)
		post := (own*y[j] + pred[j]/tau2) / (own + 1/tau2)
		out[i] = math.Exp(sign * post)
	}
	return out
}

// PickBest is the config the report names: the best mean (the first on a
// tie; -1 when there is none), unless the config with the best
// PooledMeans estimate was measured more often — then that one. The pooled
// estimate corrects the winner's curse of a config with fewer
// measurements than a rival; between configs measured alike the model
// does not outvote their own evidence (on the Qwen3 family it would flip
// near-ties of configs truly 16% apart, whose knobs interact).
func PickBest(arms []Arm, cv float64, minimize bool) int {
	better := func(a, b float64) bool { return (minimize && a < b) || (!minimize && a > b) }
	m := -1
	for i, a := range arms {
		if !math.IsNaN(a.Mean) && (m < 0 || better(a.Mean, arms[m].Mean)) {
			m = i
		}
	}
	if m < 0 {
		return -1
	}
	est := PooledMeans(arms, cv, minimize)
	p := m
	for i, v := range est {
		if !math.IsNaN(v) && better(v, est[p]) {
			p = i
		}
	}
	if arms[p].N > arms[m].N {
		return p
	}
	return m
}

// nearTop are the indices of the arms within poolRegion of the best mean
// (positive means only: the model is of log values).
func nearTop(arms []Arm, minimize bool) []int {
	best := math.NaN()
	for _, a := range arms {
		if a.Mean > 0 && a.N > 0 && (math.IsNaN(best) || (minimize && a.Mean < best) || (!minimize && a.Mean > best)) {
			best = a.Mean
		}
	}
	var out []int
	for i, a := range arms {
		if a.Mean > 0 && a.N > 0 && math.Abs(math.Log(a.Mean/best)) <= poolRegion {
			out = append(out, i)
		}
	}
	return out
}

// fitAdditive fits y (one per arm of near) as a weighted mean plus one
// ridge-shrunk effect per knob value, by backfitting, and returns its
// predictions. The knob values are numbered once (knobIDs) so that each
// of the rounds' many reads of an effect is a slice index, not a string
// hash: a long study fits this at many of its picks. The sums are the
// same, in the same order, as keyed by name.
func fitAdditive(arms []Arm, near []int, y []float64) []float64 {
	keys := make([][]string, len(near))
	mu, wsum := 0.0, 0.0
	for j, i := range near {
		keys[j] = KnobKeys(arms[i].Config)
		mu += float64(arms[i].N) * y[j]
		wsum += float64(arms[i].N)
	}
	mu /= wsum
	ids, with := knobIDs(keys)
	effect := make([]float64, len(with))
	pred := func(j int) float64 {
		p := mu
		for _, v := range ids[j] {
			p += effect[v]
		}
		return p
	}
	for range poolRounds {
		for v, js := range with {
			num, den := 0.0, poolRidge
			for _, j := range js {
				w := float64(arms[near[j]].N)
				num += w * (y[j] - pred(j) + effect[v])
				den += w
			}
			effect[v] = num / den
		}
	}
	out := make([]float64, len(near))
	for j := range near {
		out[j] = pred(j)
	}
	return out
}

// knobIDs numbers the distinct knob=value keys in first-seen order (the
// order a round of backfitting visits them) and gives each arm's keys as
// those numbers, and for each number the arms (indices into keys) that
// have it, in order (knobValues).
func knobIDs(keys [][]string) ([][]int, [][]int) {
	values, with := knobValues(keys)
	id := make(map[string]int, len(values))
	byID := make([][]int, len(values))
	for v, k := range values {
		id[k], byID[v] = v, with[k]
	}
	ids := make([][]int, len(keys))
	for j, ks := range keys {
		ids[j] = make([]int, len(ks))
		for t, k := range ks {
			ids[j][t] = id[k]
		}
	}
	return ids, byID
}

// misfit is τ²: the model's mean squared miss beyond what the noise
// explains, at least (cv/2)².
func misfit(arms []Arm, near []int, y, pred []float64, cv float64) float64 {
	ss := 0.0
	for j, i := range near {
		d := y[j] - pred[j]
		ss += d*d - cv*cv/float64(arms[i].N)
	}
	return max(ss/float64(len(near)), cv*cv/poolMaxWeight)
}

// knobValues are the distinct knob=value keys, in first-seen order, and
// for each the arms (indices into keys) that have it, in order: a round
// of backfitting visits each arm once per knob, not once per knob value.
func knobValues(keys [][]string) ([]string, map[string][]int) {
	var out []string
	with := map[string][]int{}
	for j, ks := range keys {
		for _, k := range ks {
			if _, seen := with[k]; !seen {
				out = append(out, k)
			}
			if w := with[k]; len(w) == 0 || w[len(w)-1] != j {
				with[k] = append(w, j)
			}
		}
	}
	return out, with
}
