package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// A study of thousands of trials asks at every pick which config the
// report names and whether a rival still threatens it, and the answers
// depend on a few configs at the top of the ranking only. Reading all of
// them per pick made the loop's cost per trial grow with the study. The
// two cuts below say how far down a ranking the answers can reach; each
// is proved, not guessed, so a caller that reads only that far decides
// exactly as it would from the whole ranking (confirm_reach_test.go holds
// both to the whole ranking on random ones).

// Slack on each cut, relative, so that rounding cannot move a row across
// it: a row is cut only when it is past the bound by more than this, and
// the bounds below it are further past it still.
const (
	contenderSlack = 1e-9
	reachSlack     = 1e-9
	// maxReachZCV is the largest confirmZ·CV at which a rival's
	// optimistic lead shrinks as its mean worsens (see outOfReach); past
	// it Reach reads every row.
	maxReachZCV = 0.9
)

// Contenders is how many of n arms, ranked best first by mean (as the
// report ranks the feasible configs; arm(i) is the i-th), PickBest needs
// to pick as it would from all n: the arms up to the first past the
// near-top region (nearTop), that one included. The region's reference is
// the first arm with a positive mean (the best positive mean of a ranked
// list) and it is contiguous below it, so every arm PooledMeans fits is
// read, in the same order; an arm below the cut has its own mean as its
// estimate, no better than the cut arm's, which comes first and wins a
// tie. n when the ranking holds a NaN mean or an arm never measured (no
// such ranking is cut).
func Contenders(n int, arm func(int) Arm) int {
	best := math.NaN()
	for i := range n {
		a := arm(i)
		if math.IsNaN(a.Mean) || a.N <= 0 {
			return n
		}
		if math.IsNaN(best) {
			if a.Mean > 0 {
				best = a.Mean
			}
			continue
		}
		if !(a.Mean > 0) || math.Abs(math.Log(a.Mean/best)) > poolRegion+contenderSlack {
			return i + 1
		}
	}
	return n
}

// Reach is how many of the n ranked configs (row(i) the i-th, best first
// on the first objective, as Ranked is) NextConfirm needs in Ranked to
// decide as it would from all n: the rows down to the leader (s.Leader,
// or the first), then down to the first row that, like every row below
// it, cannot threaten the leader (outOfReach), that row left out. Only a
// row's Key, Mean and N are read. n when the leader is not among them.
func (s ConfirmState) Reach(n int, row func(int) Measured) int {
	lead := -1
	var l Measured
	for i := range n {
		r := row(i)
		if lead < 0 {
			if s.Leader == "" || r.Key == s.Leader {
				lead, l = i, r
			}
			continue
		}
		if s.outOfReach(r, l) {
			return i
		}
	}
	return n
}

// outOfReach reports whether neither r nor any config ranked below it
// can have a positive lead over the leader l (lead's upper bound), so
// none of them is a rival NextConfirm measures or counts.
//
// The proof: write u for a config's mean signed so that higher is better
// (−mean when minimising) and L for the leader's. Its lead is
// u − L + z·cv·√(mean²/N + L²/N_l) ≤ g(u) = u − L + z·cv·√(u² + L²/N_l),
// and g'(u) = 1 + z·cv·u/√(u² + L²/N_l) ≥ 1 − z·cv > 0 while z·cv <
// 1: g grows with u. Rows below r have u' ≤ u, so their lead is at most
// g(u') ≤ g(u) − (1 − z·cv)(u − u'); once g(u) is below zero by more
// than the slack, so is every lead below (the slack and the 1 − z·cv
// per unit of u absorb rounding, a few ulps of |u'| + |L|). A non-finite
// mean or noise cuts nothing.
func (s ConfirmState) outOfReach(r, l Measured) bool {
	zcv := confirmZ * PriorCV(s.CV, s.CVDF, s.AssumedCV)
	scale := math.Abs(r.Mean) + math.Abs(l.Mean)
	if !(zcv >= 0 && zcv <= maxReachZCV) || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return false
	}
	d := r.Mean - l.Mean
	if s.Minimize {
		d = -d
	}
	g := d + zcv*math.Sqrt(r.Mean*r.Mean+l.Mean*l.Mean/float64(max(1, l.N)))
	return g < -reachSlack*scale
}

// PickMemo is PickBest remembered: a study asks for its pick at every
// trial, and most trials (pruned, or measured far below the top) change
// none of the arms the pick reads, while the additive model PooledMeans
// fits costs the near-top region's size times its rounds. It answers
// from memory when given the same arms (by config key, mean and count,
// bit for bit, in the same order), noise and direction as last time.
// The zero value is ready; it is not safe for concurrent use.
type PickMemo struct {
	// front keeps the front of a study with several objectives, whose
	// leader is the front of every config's means.
	front    FrontMemo
	keys     []string
	arms     []Arm
	cv       float64
	minimize bool
	best     int
	set      bool
}

// PickBest is PickBest(arms, cv, minimize); keys[i] is arms[i]'s config
// key.
func (m *PickMemo) PickBest(keys []string, arms []Arm, cv float64, minimize bool) int {
	if m.set && m.same(keys, arms, cv, minimize) {
		return m.best
	}
	m.best = PickBest(arms, cv, minimize)
	m.keys, m.cv, m.minimize, m.set = append(m.keys[:0], keys...), cv, minimize, true
	m.arms = append(m.arms[:0], arms...)
	return m.best
}

func (m *PickMemo) same(keys []string, arms []Arm, cv float64, minimize bool) bool {
	if len(keys) != len(m.keys) || len(arms) != len(m.arms) || minimize != m.minimize || !sameBits(cv, m.cv) {
		return false
	}
	for i, a := range arms {
		if keys[i] != m.keys[i] || a.N != m.arms[i].N || !sameBits(a.Mean, m.arms[i].Mean) {
			return false
		}
	}
	return true
}

// Front is Front(pts, objs), remembered from the last call
// (FrontMemo).
func (m *PickMemo) Front(pts []Point, objs []space.Objective) []int {
	return m.front.Front(pts, objs)
}

// sameBits is equality bit for bit (NaN equals NaN: the same input).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
