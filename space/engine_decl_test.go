package space

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const declSpace = `include = "shared/engines.toml"

[study]
name = "d"

[target]
runner = "process"
model = "m"
engine = "gosim"

[[objectives]]
metric = "total_tps"
direction = "maximize"

[params.max_running]
values = [4, 8]
`

const declEngines = `[engines.gosim]
command = ["gosim", "serve"]
model = "--model"
port = "--port"
host = "none"
served_name = "env:SERVED"
flag_style = "equals"
[engines.gosim.knobs]
max_running = { flag = "--max-num-seqs" }
caching = { flag = "--no-cache", bool = "absent" }
[engines.gosim.ready]
path = "/health/ready"
field = "status"
value = "ready"
[[engines.gosim.failures]]
pattern = "KV cache is full"
class = "oom"
`

func writeDecl(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "shared"), 0o755)
	os.WriteFile(filepath.Join(dir, "shared", "engines.toml"), []byte(declEngines), 0o644)
	path := filepath.Join(dir, "space.toml")
	os.WriteFile(path, []byte(declSpace), 0o644)
	return path
}

// An included declaration is decoded whole and the engine it declares is
// known to the rest of the checks.
func TestIncludedEngineIsDecoded(t *testing.T) {
	sp, err := Load(context.Background(), writeDecl(t), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := EngineDecl{
		Command: []string{"gosim", "serve"}, Model: Pass{Flag: "--model"}, Port: Pass{Flag: "--port"},
		ServedName: Pass{Env: "SERVED"}, FlagStyle: "equals",
		Knobs:    map[string]KnobDecl{"max_running": {Flag: "--max-num-seqs", Bool: "present"}, "caching": {Flag: "--no-cache", Bool: "absent"}},
		Ready:    ReadyDecl{Path: "/health/ready", Status: 200, Field: "status", Value: "ready"},
		Failures: []FailureDecl{{Pattern: "KV cache is full", Class: "oom"}},
	}
	if got := sp.Target.Declared["gosim"]; !reflect.DeepEqual(got, want) {
		t.Errorf("declared =\n%+v\nwant\n%+v", got, want)
	}
}

// A knob the declared engine does not map is refused like an unsupported
// knob of a built-in engine.
func TestDeclaredEngineSupportsOnlyItsKnobs(t *testing.T) {
	path := writeDecl(t)
	src, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(string(src)+"\n[params.tp]\nvalues = [1, 2]\n"), 0o644)
	_, err := Load(context.Background(), path, testOptions())
	if err == nil || !strings.Contains(err.Error(), `engine gosim does not support knob "tp"`) {
		t.Errorf("Load = %v", err)
	}
}

// A study's stored space reads with the engines it recorded even where its
// engines file is gone (show and best on another machine).
func TestStoredDeclarationsStandInForMissingIncludes(t *testing.T) {
	path := writeDecl(t)
	sp, err := Load(context.Background(), path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(filepath.Dir(path), "shared"))
	if _, err := Load(context.Background(), path, testOptions()); err == nil {
		t.Fatal("a missing include was accepted without a record")
	}
	opt := testOptions()
	opt.Declared = sp.Target.Declared
	again, err := Load(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Target, sp.Target) {
		t.Errorf("target differs when read from the record")
	}
}
