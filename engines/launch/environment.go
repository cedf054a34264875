package launch

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// versionTimeout bounds a version command: Python engines import torch
// to print theirs.
const versionTimeout = 2 * time.Minute

// environment reads the fingerprint of engine name as target t runs it on
// this machine: the version the engine reports (env is the environment it
// runs with), the devices, the host and the checkpoint. What cannot be read
// stays empty.
func environment(ctx context.Context, t space.Target, name, model string, env []string) engines.Fingerprint {
	e, _ := engines.Lookup(name, t)
	return environmentOf(ctx, t, name, model, versionArgv(e, t), env)
}

// environmentOf is environment with the version command already built.
func environmentOf(ctx context.Context, t space.Target, name, model string, version, env []string) engines.Fingerprint {
	f := engines.Fingerprint{Engine: name, DeclaredVersion: t.Engines[name].Version, Servetune: servetuneVersion(), Checkpoint: checkpoint(model)}
	f.Host, _ = os.Hostname()
	if argv := version; len(argv) > 0 {
		f.EngineVersion = engineVersion(ctx, argv, env)
	}
	gpus := nvidiaSMI(ctx, "--query-gpu=name,driver_version", "--format=csv,noheader")
	f.GPU, f.GPUCount, f.Driver = parseGPUs(gpus)
	if f.GPUCount > 0 {
		f.Device = "gpu"
		f.CUDA = cudaVersion(nvidiaSMI(ctx))
	} else {
		f.Device = "cpu"
		raw, _ := os.ReadFile("/proc/cpuinfo")
		f.CPU = cpuModel(string(raw))
	}
	return f
}

// versionArgv is the command that prints engine e's version, after the
// target's prefix: the engine's VersionCommand, given the target's program
// when it overrides one; nil for an unknown (nil) engine or none declared.
func versionArgv(e engines.Engine, t space.Target) []string {
	if e == nil {
		return nil
	}
	var program string
	if c := t.Engines[e.Name()].Command; len(c) > 0 {
		program = c[0]
	}
	argv := e.VersionCommand(program)
	if len(argv) == 0 {
		return nil
	}
	return append(append([]string(nil), t.Prefix...), argv...)
}

func engineVersion(ctx context.Context, argv, env []string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	// The engine's program (or its prefix: srun, docker run) may fork: in
	// a group of its own, killed whole at the timeout or a signal, and
	// with the engine's parent-death signal, it cannot outlive servetune;
	// WaitDelay keeps a child holding the output pipe from holding us.
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, _ := cmd.CombinedOutput() // a failing command may still print it
	if cmd.Process != nil && groupAlive(cmd.Process.Pid) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running
	}
	return firstVersion(string(out))
}

var (
	versionWord = regexp.MustCompile(`\bv?(\d+\.\d+(\.\d+)?([.+-]?[0-9A-Za-z]+)*)\b`)
	buildNumber = regexp.MustCompile(`version:?\s+(\d+)\b`)
)

// firstVersion is the version a version command printed: from the first
// line that says "version" (llama.cpp's "version: 8993 (a95a11e)" gives
// "8993"), else the first dotted version anywhere ("INFO …\n0.11.0"), else
// "" (unknown). What only looks like a version is not one: the seconds of
// a timestamp ("10:00:00.123456", a tool that rejects --version and logs
// the error), a dotted quad address.
func firstVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(strings.ToLower(line), "version") {
			continue
		}
		if v := versionIn(line); v != "" {
			return v
		}
		if m := buildNumber.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return versionIn(out)
}

// versionIn is the first version-looking word of s that is not part of a
// time or an address.
func versionIn(s string) string {
	for _, m := range versionWord.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[0], m[1]
		if start > 0 && strings.ContainsRune(":/", rune(s[start-1])) || end < len(s) && strings.ContainsRune(":/", rune(s[end])) {
			continue // 10:00:00.123, 2026/12/01 10.5/…, host:8000
		}
		if v := s[m[2]:m[3]]; !dottedQuad.MatchString(v) {
			return v
		}
	}
	return ""
}

var dottedQuad = regexp.MustCompile(`^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`)

func nvidiaSMI(ctx context.Context, args ...string) string {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, args...).Output()
	return string(out)
}

// parseGPUs reads `nvidia-smi --query-gpu=name,driver_version
// --format=csv,noheader`: the first GPU's name and driver, and the count.
func parseGPUs(csv string) (name string, n int, driver string) {
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) != 2 || strings.TrimSpace(fields[0]) == "" {
			continue
		}
		if n == 0 {
			name, driver = strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		}
		n++
	}
	return name, n, driver
}

var cudaRe = regexp.MustCompile(`CUDA Version:\s*([\d.]+)`)

func cudaVersion(smi string) string {
	if m := cudaRe.FindStringSubmatch(smi); m != nil {
		return m[1]
	}
	return ""
}

// cpuModel reads the first "model name" of /proc/cpuinfo, with the
// number of such lines (logical CPUs).
func cpuModel(cpuinfo string) string {
	name, n := "", 0
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			if n == 0 {
				name = strings.TrimSpace(v)
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d×%s", n, name)
}

// checkpoint identifies a model: a local path with size and modification
// time (so a re-downloaded or re-quantized file differs), else its name.
func checkpoint(model string) string {
	st, err := os.Stat(model)
	if err != nil {
		return model
	}
	return fmt.Sprintf("%s (%d bytes, modified %s)", model, st.Size(), st.ModTime().UTC().Format(time.RFC3339))
}

func servetuneVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// EnvironmentNow is environment for engine as target t would launch it
// now, serving t's model: a run compares it with a study's record before
// its first trial.
func EnvironmentNow(ctx context.Context, t space.Target, engine string) engines.Fingerprint {
	env := os.Environ()
	for _, m := range []map[string]string{t.Env, t.Engines[engine].Env, t.Declared[engine].Env} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			env = append(env, k+"="+m[k])
		}
	}
	return environment(ctx, t, engine, t.Model, env)
}

// fingerprint is environment, once per engine, program and model for the
// launcher's life.
func (l *Launcher) fingerprint(ctx context.Context, d engines.Deployed, env []string) engines.Fingerprint {
	t, name, model := d.Target, d.Name, d.Model
	version := versionArgv(d.Engine, t)
	key := name + "\x00" + strings.Join(version, "\x00") + "\x00" + model
	l.fpMu.Lock()
	defer l.fpMu.Unlock()
	if f, ok := l.fingerprints[key]; ok {
		return f
	}
	f := environmentOf(ctx, t, name, model, version, env)
	if l.fingerprints == nil {
		l.fingerprints = map[string]engines.Fingerprint{}
	}
	l.fingerprints[key] = f
	if m := f.VersionMismatch(); m != "" {
		l.Log.Warn().Str("engine", name).Msg(m)
	}
	return f
}
