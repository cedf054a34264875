package studies

import (
	"maps"
	"math"
	"slices"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// groupIndex is configGroups kept as the trial index records complete
// measurements, so confirmation's state at each pick costs the configs
// that changed since the last, not every trial: a config's group is
// rebuilt from its own runs when one of them changes (dirty), the
// disputed verdicts from the configs measured more than once (a config
// measured once is never disputed and adds nothing to the noise it is
// judged by), and the groups are kept in configGroups' order and in
// groups.feasible's (ranked). A changed baseline changes every group's
// violation: then all are rebuilt, once.
type groupIndex struct {
	of     map[string]*configGroup
	runs   map[string][]int // positions of complete measurements, by config key
	dirty  map[string]bool
	multi  map[string]bool // configs measured more than once
	stale  bool
	order  groups // by first measurement (configGroups' order)
	ranked groups // feasible, best first (groups.feasible's order)
	at     map[*configGroup]groupAt
}

// groupAt is where a group sits in order and ranked: its first run, and
// its first objective's value when ranked.
type groupAt struct {
	first  int
	mean   float64
	ranked bool
}

func newGroupIndex() groupIndex {
	return groupIndex{of: map[string]*configGroup{}, runs: map[string][]int{}, dirty: map[string]bool{},
		multi: map[string]bool{}, at: map[*configGroup]groupAt{}}
}

// measured adds (d = 1) or takes out (d = -1) the complete measurement at
// position i of config key.
func (gx *groupIndex) measured(key string, i, d int) {
	gx.runs[key] = positions(gx.runs[key], i, d)
	gx.dirty[key] = true
}

// groups are the groups (configGroups' order) and the feasible ones
// ranked (groups.feasible's), brought up to date.
func (gx *groupIndex) groups(sp *space.Space, ts []store.Trial, base *store.Trial) (groups, groups) {
	if gx.stale {
		gx.stale, gx.order, gx.ranked = false, nil, nil
		clear(gx.of)
		clear(gx.at)
		clear(gx.multi)
		for k := range gx.runs {
			gx.dirty[k] = true
		}
	}
	if len(gx.dirty) == 0 {
		return gx.order, gx.ranked
	}
	for _, k := range slices.Sorted(maps.Keys(gx.dirty)) {
		gx.rebuild(sp, ts, base, k)
	}
	gx.dispute(sp)
	clear(gx.dirty)
	return gx.order, gx.ranked
}

// rebuild makes config key's group again from its runs (values and
// violation; its means wait for dispute).
func (gx *groupIndex) rebuild(sp *space.Space, ts []store.Trial, base *store.Trial, key string) {
	if g := gx.of[key]; g != nil {
		gx.unplace(sp, g)
		delete(gx.of, key)
	}
	runs := gx.runs[key]
	delete(gx.multi, key)
	if len(runs) == 0 {
		delete(gx.runs, key)
		return
	}
	g := &configGroup{key: key, runs: slices.Clone(runs), mean: make([]float64, len(sp.Objectives)),
		vals: make([][]float64, len(sp.Objectives))}
	for n, i := range runs {
		for j, v := range Values(sp, ts[i]) {
			g.vals[j] = append(g.vals[j], v)
		}
		g.violation = (g.violation*float64(n) + Violation(sp, ts[i], base)) / float64(n+1)
	}
	gx.of[key] = g
	if len(runs) > 1 {
		gx.multi[key] = true
	}
	at, _ := slices.BinarySearchFunc(gx.order, runs[0], func(h *configGroup, first int) int { return gx.at[h].first - first })
	gx.order = slices.Insert(gx.order, at, g)
	gx.at[g] = groupAt{first: runs[0]}
}

// dispute judges the configs measured more than once (DisputedConfigs,
// as groupsByKey does) and sets the means of those and of the rebuilt
// groups, placing each in the ranking.
func (gx *groupIndex) dispute(sp *space.Space) {
	first := map[string][]float64{}
	for k := range gx.multi {
		first[k] = slices.DeleteFunc(slices.Clone(gx.of[k].vals[0]), math.IsNaN)
	}
	disputed := DisputedConfigs(first)
	for _, k := range slices.Sorted(maps.Keys(gx.multi)) {
		if g := gx.of[k]; g.disputed != disputed[k] || gx.dirty[k] {
			gx.setMeans(sp, g, disputed[k])
		}
	}
	for k := range gx.dirty {
		if g := gx.of[k]; g != nil && !gx.multi[k] {
			gx.setMeans(sp, g, false)
		}
	}
}

func (gx *groupIndex) setMeans(sp *space.Space, g *configGroup, disputed bool) {
	gx.unrank(sp, g)
	g.disputed = disputed
	for j := range g.mean {
		g.mean[j] = search.Central(g.vals[j], disputed)
	}
	if g.violation == 0 && !math.IsNaN(g.mean[0]) {
		at := gx.at[g]
		at.mean, at.ranked = g.mean[0], true
		gx.at[g] = at
		i, _ := slices.BinarySearchFunc(gx.ranked, at, rankOrder(sp, gx.at))
		gx.ranked = slices.Insert(gx.ranked, i, g)
	}
}

// rankOrder is groups.feasible's order: better first on the first
// objective, then the first measured.
func rankOrder(sp *space.Space, at map[*configGroup]groupAt) func(*configGroup, groupAt) int {
	o := sp.Objectives[0]
	return func(h *configGroup, b groupAt) int {
		a := at[h]
		switch {
		case o.Better(a.mean, b.mean):
			return -1
		case o.Better(b.mean, a.mean):
			return 1
		}
		return a.first - b.first
	}
}

// unrank takes g out of the ranking, unplace out of both orders.
func (gx *groupIndex) unrank(sp *space.Space, g *configGroup) {
	at := gx.at[g]
	if !at.ranked {
		return
	}
	if i, ok := slices.BinarySearchFunc(gx.ranked, at, rankOrder(sp, gx.at)); ok {
		gx.ranked = slices.Delete(gx.ranked, i, i+1)
	}
	at.ranked = false
	gx.at[g] = at
}

func (gx *groupIndex) unplace(sp *space.Space, g *configGroup) {
	gx.unrank(sp, g)
	if i, ok := slices.BinarySearchFunc(gx.order, gx.at[g].first, func(h *configGroup, first int) int { return gx.at[h].first - first }); ok {
		gx.order = slices.Delete(gx.order, i, i+1)
	}
	delete(gx.at, g)
}

// lookup is the group of config key (nil: none), as groups.of finds it
// in the list.
func (gx *groupIndex) lookup(key string) *configGroup {
	return gx.of[key]
}
