package studies

import (
	"slices"

	"github.com/servetune/servetune/studies/store"
)

// repeatIndex answers --repeat's question before each trial (repeatNext:
// the first complete measurement, in trial order, of a config measured
// or running fewer than Repeat times) without walking the list: the
// answer is the earliest first measurement among the configs short of
// their repeats, so it keeps those first measurements' positions, sorted,
// and re-judges only the configs whose counts changed since it was last
// asked (dirty). It starts keeping them the first time it is asked.
type repeatIndex struct {
	repeat int
	dirty  map[string]bool
	short  []int          // sorted positions of the short configs' first measurements
	at     map[string]int // config key → its position in short
	// byReuse are the config keys sharing a reuse key: a measurement
	// counts for all of them.
	byReuse map[string][]string
}

// touched marks config key's counts changed (reuse: its reuse key, when
// its measurements changed).
func (r *repeatIndex) touched(key, reuse string) {
	if r.repeat == 0 {
		return
	}
	if !slices.Contains(r.byReuse[reuse], key) {
		r.byReuse[reuse] = append(r.byReuse[reuse], key)
	}
	for _, k := range r.byReuse[reuse] {
		r.dirty[k] = true
	}
}

// shortOf is the position repeatNext answers with, or -1.
func (x *trialIndex) shortOf(ts []store.Trial, repeat int) int {
	r := &x.repeats
	if r.repeat != repeat {
		*r = repeatIndex{repeat: repeat, dirty: map[string]bool{}, at: map[string]int{}, byReuse: map[string][]string{}}
		for k, runs := range x.groups.runs {
			r.touched(k, x.reuseKey(ts[runs[0]].Config, k))
		}
	}
	for k := range r.dirty {
		if p, ok := r.at[k]; ok {
			r.short = positions(r.short, p, -1)
			delete(r.at, k)
		}
		runs := x.groups.runs[k]
		if len(runs) == 0 {
			continue
		}
		c := ts[runs[0]].Config
		if len(x.measured[x.reuseKey(c, k)])+x.runningOf[k] < repeat {
			r.short = positions(r.short, runs[0], 1)
			r.at[k] = runs[0]
		}
	}
	clear(r.dirty)
	if len(r.short) == 0 {
		return -1
	}
	return r.short[0]
}
