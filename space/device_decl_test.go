package space

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A declared engine says it runs on the CPU with device = "cpu"; "gpu"
// is the default, stored as absent; anything else is refused naming the
// key. gpus = 0 is refused with how to declare a CPU target instead.
func TestDeclaredEngineDevice(t *testing.T) {
	for _, tc := range []struct {
		line, want, err string
	}{
		{`device = "cpu"`, "cpu", ""},
		{`device = "gpu"`, "", ""},
		{``, "", ""},
		{`device = "tpu"`, "", `engines.gosim.device: must be "gpu", "cpu" or omitted, got "tpu"`},
	} {
		path := writeDecl(t)
		shared := strings.Replace(path, "space.toml", "shared/engines.toml", 1)
		os.WriteFile(shared, []byte(strings.Replace(declEngines, "flag_style = \"equals\"", "flag_style = \"equals\"\n"+tc.line, 1)), 0o644)
		sp, err := Load(context.Background(), path, testOptions())
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Load = %v, want %s", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if got := sp.Target.Declared["gosim"].Device; got != tc.want {
			t.Errorf("%s: device %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestZeroGPUsSaysHowToDeclareACPUTarget(t *testing.T) {
	path := writeDecl(t)
	src, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(src), `engine = "gosim"`, "engine = \"gosim\"\ngpus = 0", 1)), 0o644)
	_, err := Load(context.Background(), path, testOptions())
	if err == nil || !strings.Contains(err.Error(), "target.gpus: must be a positive integer, got 0; a CPU-only target") || !strings.Contains(err.Error(), `device = "cpu"`) {
		t.Errorf("Load = %v", err)
	}
}
