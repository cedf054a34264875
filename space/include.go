package space

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// declared reads the engines a space declares: its own [engines.*], each
// file it includes (`include = "engines.toml"` or a list, relative to the
// space file), then each Options.EngineFiles (the --engines flag). A
// problem in an included file names that file and its line.
func (d *decoder) declared(raw map[string]any) map[string]EngineDecl {
	known := map[string]EngineDecl{}
	for k, v := range d.opt.Declared {
		known[k] = v
	}
	d.declaredHere = map[string]bool{}
	known = d.engineDecls(d.table(raw, "engines", "engines"), known)
	var files []string
	if s, ok := raw["include"].(string); ok {
		files = []string{s}
	} else {
		files = d.strings(raw, "include", "")
	}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(d.file), f)
		}
		known = d.include(f, "include", known)
	}
	for _, f := range d.opt.EngineFiles {
		known = d.include(f, engineFilesFlag, known)
	}
	return known
}

// engineFilesFlag is the flag Options.EngineFiles come from, the key a
// problem reading one of them is reported at.
const engineFilesFlag = "--engines"

// spaceTables are a space file's own top-level keys, which an engines
// file (an include, --engines) cannot set: the space's study, target and
// search are the space file's, whatever it includes.
var spaceTables = []string{"study", "target", "objectives", "constraints", "profiles", "params", "rules", "baseline", "enqueue", "slo", "include"}

// include decodes one engines file into known. key is where a file that
// cannot be read is reported in the including file (include, or the
// --engines flag).
func (d *decoder) include(path, key string, known map[string]EngineDecl) map[string]EngineDecl {
	src, err := readLimited(path)
	if err != nil && d.opt.Declared != nil {
		return known
	}
	at := Problem{File: d.file, Line: d.line(key), Key: key}
	if err != nil {
		at.Msg = fmt.Sprintf("cannot read engines file: %v", err)
		d.problems = append(d.problems, at)
		return known
	}
	if p := limits(path, src); p != nil {
		// Named at the include (or the flag) that brought the file in:
		// "/dev/zero:1" alone did not say which key named it.
		at.Msg = fmt.Sprintf("engines file %s: %s", path, p.Msg)
		if p.Line > 1 {
			at.Msg = fmt.Sprintf("engines file %s:%d: %s", path, p.Line, p.Msg)
		}
		d.problems = append(d.problems, at)
		return known
	}
	var raw map[string]any
	if _, err := toml.Decode(src, &raw); err != nil {
		d.problems = append(d.problems, syntaxError(path, err).(*Error).Problems...)
		return known
	}
	sub := &decoder{file: path, lines: keyLines(src), opt: d.opt, declaredHere: d.declaredHere}
	if len(raw) == 0 && d.opt.Declared == nil { // a stored study reads as it ran
		// An empty engines file (a truncated write, the wrong path)
		// declared nothing, and the space ran without the engines its
		// author meant to bring in.
		at.Msg = fmt.Sprintf("engines file %s declares no engine: it holds [engines.<name>] tables", path)
		d.problems = append(d.problems, at)
		return known
	}
	sub.finite(raw, "")
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if slices.Contains(spaceTables, k) {
			sub.fail(k, "an engines file holds only [engines.<name>] tables: [%s] belongs in the space file %s, not in a file it includes", k, d.file)
			delete(raw, k)
		}
	}
	sub.unknown(raw, "", "engines")
	known = sub.engineDecls(sub.table(raw, "engines", "engines"), known)
	d.problems = append(d.problems, sub.problems...)
	return known
}

func readLimited(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	return string(b), err
}

// useDeclared makes the declared engines known to the rest of the checks:
// their names are engines, and they support exactly the knobs they map.
func (d *decoder) useDeclared(decls map[string]EngineDecl) map[string]EngineDecl {
	if len(decls) == 0 {
		return nil
	}
	if d.opt.Engines != nil {
		d.opt.Engines = append(append([]string(nil), d.opt.Engines...), slices.Sorted(maps.Keys(decls))...)
	}
	builtin := d.opt.Supports
	d.opt.Supports = func(engine, knob string) bool {
		if e, ok := decls[engine]; ok {
			_, mapped := e.Knobs[knob]
			return mapped || knob == "engine" || knob == "model_variant"
		}
		return builtin == nil || builtin(engine, knob)
	}
	knobs := d.opt.Knobs
	d.opt.Knobs = func(engine string) []string {
		if e, ok := decls[engine]; ok {
			return slices.Sorted(maps.Keys(e.Knobs))
		}
		if knobs == nil {
			return nil
		}
		return knobs(engine)
	}
	return decls
}
