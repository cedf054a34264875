package engines

import (
	"fmt"
	"slices"
	"strings"
)

// Fingerprint is the environment a trial ran in: what must stay the same
// for trials of one study to be comparable, and what a report shows so a
// result can be traced to the machine that produced it.
type Fingerprint struct {
	Engine string `json:"engine"`
	// EngineVersion is what the engine itself reports (its version
	// command); DeclaredVersion what the target says ([target.engines.X]
	// version), when it says anything.
	EngineVersion   string `json:"engine_version,omitempty"`
	DeclaredVersion string `json:"declared_version,omitempty"`
	Servetune       string `json:"servetune,omitempty"`
	// Device is "gpu" when nvidia-smi lists GPUs, else "cpu".
	Device   string `json:"device"`
	GPU      string `json:"gpu,omitempty"`
	GPUCount int    `json:"gpu_count,omitempty"`
	Driver   string `json:"driver,omitempty"`
	CUDA     string `json:"cuda,omitempty"`
	CPU      string `json:"cpu,omitempty"`
	Host     string `json:"host,omitempty"`
	// Checkpoint identifies the model: a local path with its size and
	// modification time, or the name it is fetched by.
	Checkpoint string `json:"checkpoint,omitempty"`
}

// Drift names the parts of f that differ from the study's fingerprint
// was, as "engine_version 0.3.1 → 0.4.0". The host and servetune's own
// version are not drift: workers on identical machines share a study, and
// a servetune upgrade does not change what the engine measures. Nor is a
// part unknown on either side (a version command that printed no
// version, nvidia-smi missing): unknown is no evidence of change, and
// refusing every resume on it would stop the study for good.
func (f Fingerprint) Drift(was Fingerprint) []string {
	var out []string
	for _, p := range []struct {
		name     string
		now, old string
	}{
		{"engine", f.Engine, was.Engine},
		{"engine_version", f.EngineVersion, was.EngineVersion},
		{"device", f.Device, was.Device},
		{"gpu", f.GPU, was.GPU},
		{"gpu_count", count(f.GPUCount), count(was.GPUCount)},
		{"driver", f.Driver, was.Driver},
		{"cuda", f.CUDA, was.CUDA},
		{"cpu", f.CPU, was.CPU},
		{"checkpoint", f.Checkpoint, was.Checkpoint},
	} {
		if p.now != p.old && p.now != "" && p.old != "" {
			out = append(out, fmt.Sprintf("%s %s → %s", p.name, orNone(p.old), orNone(p.now)))
		}
	}
	return out
}

// VersionMismatch says when the engine reports another version than the
// target declares ("" when they agree or either is unknown). Only the
// numeric release is compared: "0.11.0" declared matches "0.11.0+cu128".
func (f Fingerprint) VersionMismatch() string {
	if f.DeclaredVersion == "" || f.EngineVersion == "" {
		return ""
	}
	d, err1 := ParseVersion(f.DeclaredVersion)
	e, err2 := ParseVersion(f.EngineVersion)
	if err1 != nil || err2 != nil || d == e {
		return ""
	}
	return fmt.Sprintf("%s reports version %s, the target declares %s", f.Engine, f.EngineVersion, f.DeclaredVersion)
}

// String is one line for reports and logs.
func (f Fingerprint) String() string {
	parts := []string{f.Engine + " " + orNone(f.EngineVersion)}
	if f.Device == "gpu" {
		parts = append(parts, fmt.Sprintf("%d×%s (driver %s, CUDA %s)", f.GPUCount, f.GPU, orNone(f.Driver), orNone(f.CUDA)))
	} else {
		parts = append(parts, "CPU "+orNone(f.CPU))
	}
	parts = slices.DeleteFunc(append(parts, "host "+f.Host, "model "+f.Checkpoint, "servetune "+f.Servetune), func(s string) bool {
		return strings.HasSuffix(s, " ")
	})
	return strings.Join(parts, "; ")
}

func count(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
