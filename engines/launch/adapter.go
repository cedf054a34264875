package launch

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/servetune/servetune/engines"
)

// liveSetup is implemented by engines that bind from their environment and
// start without a model (Ollama). The launcher checks the model before
// launch, adds ServeEnv to the engine's environment, runs the command's
// Setup steps once the probes answer, then calls Ready; Stop removes
// Scratch.
type liveSetup interface {
	Check(model string) error
	ServeEnv(host string, port int, dir string) map[string]string
	// Ready returns nil once the engine serves name; its evidence of a
	// failure goes to log, for the classifier.
	Ready(ctx context.Context, client *http.Client, base, name string, log io.Writer) error
	// Scratch lists per-trial state (model copies) removed at teardown.
	Scratch(dir string) []string
}

// readier is an engine whose readiness is more than "every probe answers
// 200": a declared engine's status, JSON field or log line.
type readier interface {
	ReadyProbe(client *http.Client, base string, each time.Duration, tail func(int) []string) func(context.Context) bool
}

// listenEnver is an engine that may take its host, port or served name
// from the environment and may listen on a port of its own (a declared
// engine).
type listenEnver interface {
	ListenEnv(host string, port int, served string) map[string]string
	// FixedPort is where it listens when it takes no port; 0 lets the
	// launcher choose.
	FixedPort() int
}

// withListenEnv is env plus the variables Listen passes, for the command
// shown in engine.log and recorded with the trial.
func withListenEnv(d listenEnver, env map[string]string, host string, port int, served string) map[string]string {
	extra := d.ListenEnv(host, port, served)
	if len(extra) == 0 {
		return env
	}
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// enginePort is the port the engine will listen on: its fixed one when it
// takes none, else a free one.
func enginePort(eng engines.Engine, host string) (int, error) {
	if d, ok := eng.(listenEnver); ok && d.FixedPort() > 0 {
		return d.FixedPort(), nil
	}
	return freePort(host)
}

func envList(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// sortedKeys is for deterministic environments and messages.
// invalid is a failure of the config, as the adapters report theirs.
func invalid(format string, a ...any) error {
	return &engines.Failure{Class: engines.InvalidConfig, Message: fmt.Sprintf(format, a...)}
}
