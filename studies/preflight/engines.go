package preflight

import (
	"context"
	"fmt"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// checkEngines: every engine the space can choose has its program (and
// the target's launch prefix) on PATH, and reports the version the target
// pins.
func checkEngines(ctx context.Context, sp *space.Space, w World) []Check {
	var out []Check
	if p := sp.Target.Prefix; len(p) > 0 {
		if _, err := w.LookPath(p[0]); err != nil {
			out = append(out, fail("prefix", "launch prefix %s: %v", p[0], err))
		}
	}
	for _, e := range engineNames(sp) {
		out = append(out, checkEngine(ctx, sp, e, w))
	}
	return out
}

func engineNames(sp *space.Space) []string {
	if names := sp.Engines(); len(names) > 0 {
		return names
	}
	return []string{sp.Target.Engine}
}

// checkEngine checks one engine's program and version.
func checkEngine(ctx context.Context, sp *space.Space, e string, w World) Check {
	name := "engine " + e
	prog, err := program(sp.Target, e)
	if err != nil {
		return fail(name, "%v", err)
	}
	path, err := w.LookPath(prog)
	if err != nil {
		return fail(name, "program %s not found (%v): every %s trial would fail to launch", prog, err, e)
	}
	pinned := sp.Target.Engines[e].Version
	got := w.Version(ctx, sp.Target, e)
	f := engines.Fingerprint{Engine: e, EngineVersion: got, DeclaredVersion: pinned}
	switch {
	case f.VersionMismatch() != "":
		return fail(name, "%s (%s): trials would measure another release than the space pins", f.VersionMismatch(), path)
	case got == "" && pinned != "":
		return warn(name, "%s; could not read its version to compare with the pinned %s", path, pinned)
	case got == "":
		return warn(name, "%s; version unknown and not pinned (target.engines.%s.version)", path, e)
	case pinned == "":
		return ok(name, "%s reports %s (not pinned: target.engines.%s.version)", path, got, e)
	}
	return ok(name, "%s reports %s, as pinned", path, got)
}

// program is what a trial of engine e executes first: the target's
// override, else the engine's own program.
func program(t space.Target, e string) (string, error) {
	if c := t.Engines[e].Command; len(c) > 0 {
		return c[0], nil
	}
	if d, ok := t.Declared[e]; ok && len(d.Command) > 0 {
		return d.Command[0], nil
	}
	cmd, err := engines.Render(space.Config{engines.KnobEngine: e}, t)
	if err != nil {
		return "", fmt.Errorf("cannot render its command: %w", err)
	}
	return cmd.Argv[0], nil
}
