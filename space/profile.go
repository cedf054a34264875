package space

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
)

func (d *decoder) profiles(m map[string]any) []bench.Profile {
	custom := d.table(m, "custom", "profiles.custom")
	defined := map[string]bench.Profile{}
	for _, name := range slices.Sorted(maps.Keys(custom)) {
		if p, ok := d.customProfile(custom, name); ok {
			defined[name] = p
		}
	}
	refused := func(name string) bool { _, ok := custom[name]; return ok } // already reported
	run := d.strings(m, "run", "profiles")
	if _, ok := m["run"]; !ok {
		run = []string{"balanced"}
	}
	if len(run) == 0 {
		d.fail("profiles.run", "must name at least one profile")
	}
	d.customNotRun(custom, run)
	var out []bench.Profile
	seen := map[string]bool{}
	for _, name := range run {
		if seen[name] {
			d.fail("profiles.run", "names profile %q twice", name)
			continue
		}
		seen[name] = true
		if p, ok := defined[name]; ok {
			out = append(out, p)
			continue
		}
		if d.opt.Profile != nil {
			if p, ok := d.opt.Profile(name); ok {
				p.Name = name
				out = append(out, p)
				continue
			}
		}
		if !refused(name) {
			d.fail("profiles.run", "unknown profile %q: not built in and not defined under [profiles.custom.%s]%s", name, name, suggest.Hint(name, append(slices.Sorted(maps.Keys(custom)), bench.BuiltinNames()...)))
		}
	}
	return out
}

// customNotRun notes a custom profile that no study runs, and refuses one
// named as a built-in. A definition left out of profiles.run is never
// measured (an objective or constraint naming it is refused as "not in
// profiles.run"); it may be an alternative kept to swap in (the pd
// examples keep one), so it loads, with a note (Space.Notes) its author
// is shown. One named like a built-in silently replaced the built-in of
// that name, whose figures the docs and other studies quote.
func (d *decoder) customNotRun(custom map[string]any, run []string) {
	for _, name := range slices.Sorted(maps.Keys(custom)) {
		path := "profiles.custom." + name
		if _, ok := bench.Lookup(name); ok {
			d.fail(path, "%q is a built-in profile: give yours another name (and name that in profiles.run), or drop the table to run the built-in", name)
			continue
		}
		if !slices.Contains(run, name) && len(run) > 0 {
			d.note(path, "is defined but not in profiles.run (%s), so it will not run: add %q to profiles.run to measure it", strings.Join(run, ", "), name)
		}
	}
}

// profileErrRE is BurntSushi's type error: its key and what is wrong.
var profileErrRE = regexp.MustCompile(`^toml: line \d+ \(last key "([^"]+)"\): (.*)$`)

// customProfile decodes [profiles.custom.NAME] into bench.Profile through
// TOML again, so the profile's own toml tags are the single list of fields.
func (d *decoder) customProfile(custom map[string]any, name string) (bench.Profile, bool) {
	path := "profiles.custom." + name
	if strings.ContainsFunc(name, func(r rune) bool { return r == '/' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		// A profile's metrics are named PROFILE/METRIC (show --sort,
		// reports, CSV columns): a slash or a space splits them.
		d.fail(path, "profile name %q must not contain a slash, a space or a control character: its metrics are named %s/METRIC", name, name)
		return bench.Profile{}, false
	}
	sub, ok := custom[name].(map[string]any)
	if !ok {
		d.fail(path, "must be a table, got %s", typeName(custom[name]))
		return bench.Profile{}, false
	}
	if !d.durationStrings(path, sub) {
		return bench.Profile{}, false
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(sub); err != nil {
		d.fail(path, "%v", err)
		return bench.Profile{}, false
	}
	var p bench.Profile
	md, err := toml.Decode(buf.String(), &p)
	if err != nil {
		// The error's line is the re-encoded table's, not the file's:
		// name the key, whose line the file has.
		if m := profileErrRE.FindStringSubmatch(err.Error()); m != nil {
			d.fail(join(path, m[1]), "%s", m[2])
		} else {
			d.fail(path, "%s", strings.TrimPrefix(err.Error(), "toml: "))
		}
		return bench.Profile{}, false
	}
	for _, k := range md.Undecoded() {
		d.fail(join(path, k.String()), "unknown profile field%s", suggest.Hint(k[len(k)-1], profileFields()))
	}
	p.Name = name
	if p.Dataset == "" {
		p.Dataset = "random"
	}
	d.profileProblems(path, sub, p.Validate())
	if p.Validate() == nil {
		for _, pr := range p.UserProblems() {
			d.fail(join(path, pr.Key), "%s", pr.Msg)
		}
	}
	d.traceZeros(path, sub)
	d.givenDefaults(path, sub)
	return p, true
}

// givenDefaults refuses values a profile's code reads as "unset, use the
// default" but a user writes as a choice, so the profile silently ran
// something else than the file says: request_rate = 0 (read as all at
// once: "no requests per second" sent everything at t = 0), burstiness =
// 0 (read as Poisson), an empty dataset, endpoint or kind (read as
// random, completions, load) and percentiles = [] (the defaults are
// reported whatever the list).
func (d *decoder) givenDefaults(path string, sub map[string]any) {
	for k, why := range map[string]string{
		"request_rate": "is 0, which would be read as inf (all at once); give requests per second above 0, or inf",
		"burstiness":   "is 0, which would be read as 1 (Poisson); give a gamma shape above 0, or leave burstiness out",
	} {
		if v, ok := sub[k]; ok && (v == int64(0) || v == float64(0)) {
			d.fail(join(path, k), "%s", why)
		}
	}
	for _, k := range []string{"dataset", "endpoint", "kind"} {
		if v, ok := sub[k].(string); ok && strings.TrimSpace(v) == "" {
			d.fail(join(path, k), "is empty: name one, or leave %s out for the default", k)
		}
	}
	if v, ok := sub["percentiles"].([]any); ok && len(v) == 0 {
		d.fail(join(path, "percentiles"), "is empty: list percentiles such as [95.0, 99.9], or leave percentiles out (p50, p90, p95 and p99 are always reported)")
	}
}

// traceZeros refuses a trace table's speedup, sample or block_tokens
// written as 0. For bench's flags 0 means "the default", but written in
// the file it reads as a choice: speedup 0 (never send), sample 0 (keep
// nothing), a 0-token block — and each silently ran the default.
func (d *decoder) traceZeros(path string, sub map[string]any) {
	t, _ := sub["trace"].(map[string]any)
	for _, k := range []string{"speedup", "sample", "block_tokens"} {
		if v, ok := t[k]; ok && (v == int64(0) || v == float64(0)) {
			d.fail(path+".trace."+k, "is 0, which would be read as the default; give a value above 0, or leave %s out", k)
		}
	}
}

// profileProblems reports bench's verdict on a profile, the same check
// every trial runs, one problem per field it names: a profile space
// accepted and bench refused would fail every trial.
func (d *decoder) profileProblems(path string, sub map[string]any, err error) {
	if err == nil {
		return
	}
	errs := []error{err}
	var multi interface{ Unwrap() []error }
	if errors.As(err, &multi) {
		errs = multi.Unwrap()
	}
	for _, e := range errs {
		msg := e.Error()
		if field, rest, ok := strings.Cut(msg, " "); ok && isProfileField(sub, field) {
			d.fail(join(path, field), "%s", rest)
			continue
		}
		d.fail(path, "%s", msg)
	}
}

// isProfileField reports whether a word of bench's message names a field
// of the profile table (given in the file or not).
func isProfileField(sub map[string]any, word string) bool {
	word, _, _ = strings.Cut(word, ".") // slo.ttft_ms is inside the slo field
	word, _, _ = strings.Cut(word, "[") // stages[0] is an element of stages
	if _, ok := sub[word]; ok {
		return true
	}
	t := reflect.TypeFor[bench.Profile]()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == word && tag != "-" {
			return true
		}
	}
	return false
}

// profileFields are the keys a custom profile and its tables take, for
// did-you-mean: the toml tags of bench's profile types.
func profileFields() []string {
	var out []string
	for _, t := range []reflect.Type{reflect.TypeFor[bench.Profile](), reflect.TypeFor[bench.SharedPrefix](),
		reflect.TypeFor[bench.Stage](), reflect.TypeFor[bench.SLO](), reflect.TypeFor[bench.RateSearch](), reflect.TypeFor[bench.Trace]()} {
		for f := range t.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "" && name != "-" {
				out = append(out, name)
			}
		}
	}
	return out
}

// durationStrings refuses a duration given as a number: TOML decodes it
// into nanoseconds, so max_duration = 60 would be 60 ns, not a minute.
func (d *decoder) durationStrings(path string, sub map[string]any) bool {
	ok := true
	check := func(key string, v any) {
		switch v.(type) {
		case int64, float64:
			d.fail(key, "must be a duration string like \"10m\" or \"90s\", got the number %v", v)
			ok = false
		}
	}
	if v, has := sub["max_duration"]; has {
		check(join(path, "max_duration"), v)
	}
	if stages, has := sub["stages"].([]map[string]any); has {
		for i, st := range stages {
			if v, has := st["duration"]; has {
				check(fmt.Sprintf("%s.stages[%d].duration", path, i), v)
			}
		}
	}
	if stages, has := sub["stages"].([]any); has {
		for i, st := range stages {
			if m, isMap := st.(map[string]any); isMap {
				if v, has := m["duration"]; has {
					check(fmt.Sprintf("%s.stages[%d].duration", path, i), v)
				}
			}
		}
	}
	return ok
}
