package space

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var engineDeclKeys = []string{"command", "args", "model", "served_name", "host", "port", "default_port", "flag_style",
	"api", "knobs", "ready", "failures", "version_command", "env", "device"}

// engineDecls reads [engines.<name>] tables; known are the names already
// declared (by an earlier file), which may not be declared again.
func (d *decoder) engineDecls(engines map[string]any, known map[string]EngineDecl) map[string]EngineDecl {
	for _, name := range slices.Sorted(maps.Keys(engines)) {
		path := "engines." + name
		if d.opt.Engines != nil && slices.Contains(d.opt.Engines, name) {
			d.fail(path, "%s is a built-in engine: declare yours under another name, or set its program with [target.engines.%s] command", name, name)
			continue
		}
		if d.declaredHere[name] {
			d.fail(path, "engine %q is declared twice (also in an included or --engines file)", name)
			continue
		}
		d.declaredHere[name] = true
		known[name] = d.engineDecl(d.table(engines, name, path, engineDeclKeys...), path)
	}
	return known
}

func (d *decoder) engineDecl(m map[string]any, path string) EngineDecl {
	e := EngineDecl{
		Command:        d.argv(m, "command", path),
		Args:           d.strings(m, "args", path),
		Model:          d.pass(m, "model", path),
		ServedName:     d.pass(m, "served_name", path),
		Host:           d.pass(m, "host", path),
		Port:           d.pass(m, "port", path),
		DefaultPort:    int(d.integer(m, "default_port", path, 0)),
		FlagStyle:      d.oneOf(m, "flag_style", path, "separate", "equals"),
		API:            d.oneOf(m, "api", path, "", "completions", "chat"),
		VersionCommand: d.argv(m, "version_command", path),
		Env:            d.strMap(m, "env", path),
		Device:         d.oneOf(m, "device", path, "", "gpu", "cpu"),
	}
	if e.Device == "gpu" { // the default, stored as absent like a study's older declarations
		e.Device = ""
	}
	if _, given := m["command"]; !given {
		d.fail(join(path, "command"), "is required: the engine's program and leading arguments, e.g. [\"llama-server\"]")
	}
	if e.DefaultPort < 0 || e.DefaultPort > 65535 {
		d.fail(join(path, "default_port"), "must be a port between 1 and 65535, got %d", e.DefaultPort)
	}
	if e.Port.None() && e.DefaultPort == 0 {
		d.fail(join(path, "port"), "is required unless default_port says where the engine listens")
	}
	e.Knobs = d.knobDecls(d.table(m, "knobs", join(path, "knobs")), join(path, "knobs"))
	e.Ready = d.readyDecl(d.table(m, "ready", join(path, "ready"), "path", "status", "field", "value", "log"), join(path, "ready"))
	e.Failures = d.failureDecls(d.tables(m, "failures"), join(path, "failures"))
	return e
}

// pass reads how a value is passed; absent means not at all.
func (d *decoder) pass(m map[string]any, key, path string) Pass {
	s := d.str(m, key, path, "none")
	p, err := ParsePass(s)
	if err != nil {
		d.fail(join(path, key), "%v", err)
	}
	return p
}

// oneOf reads a string that must be one of allowed; the first is the
// default.
func (d *decoder) oneOf(m map[string]any, key, path string, allowed ...string) string {
	s := d.str(m, key, path, allowed[0])
	if !slices.Contains(allowed, s) {
		d.fail(join(path, key), "must be %s, got %q", alternatives(allowed), s)
	}
	return s
}

// alternatives lists the real choices: `"a" or "b"`, `"a", "b" or "c"`;
// an empty choice reads as "omitted".
func alternatives(xs []string) string {
	var q []string
	omitted := false
	for _, x := range xs {
		if x == "" {
			omitted = true
			continue
		}
		q = append(q, fmt.Sprintf("%q", x))
	}
	if omitted {
		q = append(q, "omitted")
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (d *decoder) knobDecls(m map[string]any, path string) map[string]KnobDecl {
	var out map[string]KnobDecl
	for _, knob := range slices.Sorted(maps.Keys(m)) {
		kp := join(path, knob)
		km := d.table(m, knob, kp, "flag", "env", "bool", "json")
		k := KnobDecl{Flag: d.str(km, "flag", kp, ""), Env: d.str(km, "env", kp, ""),
			Bool: d.oneOf(km, "bool", kp, "present", "absent", "value"), JSON: d.boolean(km, "json", kp)}
		switch {
		case knob == "engine" || knob == "model_variant":
			d.fail(kp, "%s is servetune's own knob; it is not passed to the engine", knob)
		case (k.Flag == "") == (k.Env == ""):
			d.fail(kp, "needs exactly one of flag = \"--name\" or env = \"NAME\"")
		case k.Flag != "" && !strings.HasPrefix(k.Flag, "-"):
			d.fail(join(kp, "flag"), "must start with \"-\", got %q", k.Flag)
		case k.Env != "" && !envName(k.Env):
			d.fail(join(kp, "env"), "must be a variable name of letters, digits and _, got %q", k.Env)
		}
		if out == nil {
			out = map[string]KnobDecl{}
		}
		out[knob] = k
	}
	return out
}

func (d *decoder) readyDecl(m map[string]any, path string) ReadyDecl {
	r := ReadyDecl{Path: d.str(m, "path", path, ""), Status: int(d.integer(m, "status", path, 200)),
		Field: d.str(m, "field", path, ""), Value: d.str(m, "value", path, ""), Log: d.str(m, "log", path, "")}
	switch {
	case r.Path == "" && r.Log == "":
		d.fail(path, "needs path = \"/health\" (an HTTP probe) or log = \"REGEX\" (a log line)")
	case r.Path != "" && r.Log != "":
		d.fail(path, "give either path or log, not both")
	case r.Path != "" && !strings.HasPrefix(r.Path, "/"):
		d.fail(join(path, "path"), "must start with \"/\", got %q", r.Path)
	case r.Status < 100 || r.Status > 599:
		d.fail(join(path, "status"), "must be an HTTP status between 100 and 599, got %d", r.Status)
	case r.Field != "" && r.Path == "":
		d.fail(join(path, "field"), "needs path: it names a field of the probe's JSON answer")
	}
	d.regexp(r.Log, join(path, "log"))
	return r
}

func (d *decoder) failureDecls(ts []map[string]any, path string) []FailureDecl {
	var out []FailureDecl
	for i, m := range ts {
		fp := fmt.Sprintf("%s[%d]", path, i)
		d.unknown(m, fp, "pattern", "class", "why")
		f := FailureDecl{Pattern: d.str(m, "pattern", fp, ""), Class: d.str(m, "class", fp, ""), Why: d.str(m, "why", fp, "")}
		if f.Pattern == "" {
			d.fail(join(fp, "pattern"), "is required: a regular expression over one log line")
		}
		d.regexp(f.Pattern, join(fp, "pattern"))
		if !slices.Contains(FailureClasses(), f.Class) {
			d.fail(join(fp, "class"), "must be %s, got %q", alternatives(FailureClasses()), f.Class)
		}
		out = append(out, f)
	}
	return out
}

func (d *decoder) regexp(re, path string) {
	if re == "" {
		return
	}
	if _, err := regexp.Compile(re); err != nil {
		d.fail(path, "not a regular expression: %v", err)
	}
}

// engineAPIs refuses a profile whose endpoint a declared engine of the
// space does not serve: every request of every trial would fail.
func (d *decoder) engineAPIs(s *Space) {
	for _, name := range s.Engines() {
		api := s.Target.Declared[name].API
		if api == "" {
			continue
		}
		for _, p := range s.Profiles {
			if p.EndpointName() != api {
				d.fail("engines."+name+".api", "engine %s serves only %q, but profile %q uses the %q endpoint", name, api, p.Name, p.EndpointName())
			}
		}
	}
}
