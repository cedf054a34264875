package engines

import (
	"strings"
	"testing"
)

// Drift ignores the host and servetune's version, and names what moved.
func TestFingerprintDrift(t *testing.T) {
	was := Fingerprint{Engine: "vllm", EngineVersion: "0.11.0", Device: "gpu", GPU: "H100", GPUCount: 8, Host: "a", Servetune: "v1"}
	same := was
	same.Host, same.Servetune = "b", "v2"
	if d := same.Drift(was); len(d) != 0 {
		t.Errorf("host/servetune change is drift: %v", d)
	}
	unknown := was
	unknown.EngineVersion, unknown.Driver = "", "550.54"
	if d := unknown.Drift(was); len(d) != 0 {
		t.Errorf("an unknown version (or a driver unknown before) is drift: %v", d)
	}
	if d := was.Drift(unknown); len(d) != 0 {
		t.Errorf("a version known now, unknown before, is drift: %v", d)
	}
	up := was
	up.EngineVersion, up.GPU = "0.12.0", "H200"
	if d := up.Drift(was); strings.Join(d, "; ") != "engine_version 0.11.0 → 0.12.0; gpu H100 → H200" {
		t.Errorf("Drift = %v", d)
	}
}

func TestVersionMismatch(t *testing.T) {
	for _, c := range []struct{ declared, reported, want string }{
		{"0.11.0", "0.11.0", ""},
		{"0.11.0", "0.11.0+cu128", ""},
		{"", "0.11.0", ""},
		{"0.11.0", "0.12.1", "vllm reports version 0.12.1, the target declares 0.11.0"},
	} {
		f := Fingerprint{Engine: "vllm", DeclaredVersion: c.declared, EngineVersion: c.reported}
		if got := f.VersionMismatch(); got != c.want {
			t.Errorf("%s vs %s: %q, want %q", c.declared, c.reported, got, c.want)
		}
	}
}
