package optunadb

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Optuna's trial states (optuna.trial.TrialState names).
const (
	stateRunning  = "RUNNING"
	stateComplete = "COMPLETE"
	statePruned   = "PRUNED"
	stateFail     = "FAIL"
)

// trialRow is one servetune trial as Optuna's tables hold it.
type trialRow struct {
	Number     int
	State      string
	Start, End time.Time // End zero while running
	Params     []paramRow
	// Values, one per objective, only for a COMPLETE trial.
	Values []float64
	// Intermediate are the first objective's values at each benchmark
	// checkpoint, stepped 0, 1, ….
	Intermediate []float64
	UserAttrs    map[string]any
	SystemAttrs  map[string]any
}

type paramRow struct {
	Name  string
	Value float64
	Dist  string
}

// state maps servetune's vocabulary onto Optuna's: a config the engine
// refused, a crash and an interrupted trial are all FAIL to Optuna, and
// the servetune_state attribute keeps which.
func state(s store.State) string {
	switch s {
	case store.Running:
		return stateRunning
	case store.Complete:
		return stateComplete
	case store.Pruned:
		return statePruned
	}
	return stateFail
}

// row converts one trial; m is the config t measured as
// the report ranks it (nil when t is no complete measurement of its own).
func row(sp *space.Space, ds map[string]*dist, t store.Trial, m *ranked) trialRow {
	r := trialRow{Number: t.Number, State: state(t.State), Start: t.Start, End: t.End, UserAttrs: userAttrs(sp, t)}
	if r.State != stateRunning && r.End.IsZero() {
		r.End = t.Start
	}
	for _, k := range slices.Sorted(maps.Keys(t.Config)) {
		f, ok := ds[k].internal(t.Config[k])
		if !ok {
			r.UserAttrs["param:"+k] = space.FormatValue(t.Config[k])
			continue
		}
		r.Params = append(r.Params, paramRow{Name: k, Value: f, Dist: ds[k].JSON()})
	}
	for _, c := range t.Intermediate {
		if len(c.Values) > 0 && !math.IsNaN(c.Values[0]) {
			r.Intermediate = append(r.Intermediate, c.Values[0])
		}
	}
	if r.State == stateComplete {
		r.complete(sp, t, m)
	}
	return r
}

// complete fills a complete trial's values. Optuna ranks every COMPLETE
// trial as a point of its own, servetune one point per config at its
// central value: so only a config's first measurement is COMPLETE, with
// the config's central values (and every metric's), its measurements
// listed; a repeat or a reused measurement is PRUNED (Optuna leaves
// PRUNED trials out of best_trials and importance, and has no state for
// "measured, counted elsewhere": FAIL would read as a failure) with
// repeat_of or reused_from naming the trial that holds its config.
func (r *trialRow) complete(sp *space.Space, t store.Trial, m *ranked) {
	switch {
	case t.ReusedFrom != 0:
		r.State = statePruned
		r.UserAttrs["reason"] = fmt.Sprintf("reuses trial %d's measurement; Optuna counts the config once, as trial %d", t.ReusedFrom, t.ReusedFrom)
		return
	case m == nil:
		r.State = stateFail
		return
	case m.first != t.Number:
		r.State = statePruned
		r.UserAttrs["repeat_of"] = m.first
		r.UserAttrs["reason"] = fmt.Sprintf("a repeat measurement of trial %d's config; trial %d holds the config's central value over its %d measurements", m.first, m.first, len(m.numbers))
		return
	}
	r.Values = m.Values
	if hasNaN(r.Values) { // Optuna's COMPLETE needs every value
		r.State, r.Values = stateFail, nil
		r.UserAttrs["reason"] = "an objective's metric is undefined"
		return
	}
	if len(m.numbers) > 1 {
		metricAttrs(r.UserAttrs, m.Metrics)
		r.UserAttrs["measurements"] = m.measurements
		r.UserAttrs["repeats"] = m.numbers[1:]
	}
	if len(sp.Constraints) > 0 {
		// Optuna's constraints convention: feasible when every value <= 0.
		r.SystemAttrs = map[string]any{"constraints": []float64{m.Violation}}
	}
}

// userAttrs is what Optuna has no column for.
func userAttrs(sp *space.Space, t store.Trial) map[string]any {
	a := map[string]any{
		"servetune_state": string(t.State),
		"origin":          t.Origin,
		"gpu_hours":       t.GPUSeconds / 3600,
		// the GPUs the config occupies: Optuna's importance reads params
		// only, and a per-GPU target needs the count (docs/optuna.md)
		"gpus": engines.GPUs(t.Config, sp.Target),
	}
	if cmd := command(sp, t); cmd != "" {
		a["command"] = cmd
	}
	if why := t.Why(); why != "" {
		a["reason"] = why
	}
	if t.Failure != nil {
		a["failure"] = string(t.Failure.Class)
	}
	if t.ReusedFrom != 0 {
		a["reused_from"] = t.ReusedFrom
	}
	metricAttrs(a, t.Metrics)
	return a
}

// metricAttrs sets every profile's metrics as attributes profile/metric.
func metricAttrs(a map[string]any, ms map[string]map[string]float64) {
	for profile, m := range ms {
		for k, v := range m {
			a[profile+"/"+k] = v
		}
	}
}

// command is the serving command the trial ran (as the engine really ran
// it when it launched one, else as servetune renders the config), one
// shell-quoted line with the variables it set in front; a disaggregated
// deployment's is one such line per process, each after a "# name" line.
func command(sp *space.Space, t store.Trial) string {
	if t.Ran != nil {
		return shellLine(*t.Ran)
	}
	d, err := engines.Deploy(t.Config, sp.Target)
	if err != nil {
		return ""
	}
	if d.PD == nil {
		return shellLine(d.Command)
	}
	var lines []string
	for _, pr := range d.Processes {
		lines = append(lines, "# "+pr.Name(), shellLine(pr.Command))
	}
	return strings.Join(lines, "\n")
}

// shellLine is c as one shell-quoted line, its variables in front.
func shellLine(c engines.Command) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		parts = append(parts, k+"="+quote(c.Env[k]))
	}
	for _, a := range c.Argv {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}
