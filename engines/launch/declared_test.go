package launch_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/space"
)

const goSimDecl = `
[engines.gosim]
command = [%q]
model = "--model"
port = "--port"
host = %q
env = { %s }
[engines.gosim.knobs]
max_running = { flag = "--max-num-seqs", %s }
[engines.gosim.ready]
path = "/health/ready"
`

func goSimTarget(t *testing.T, host string, o enginetest.Options) space.Target {
	var env []string
	for k, v := range enginetest.Env(enginetest.GoSim, o) {
		env = append(env, k+" = "+quote(v))
	}
	return enginetest.DeclaredTarget(t, "gosim", "", sprintf(goSimDecl, enginetest.Program(), host, strings.Join(env, ", "), `bool = "present"`))
}

// A declared engine gets the built-ins' lifecycle: it is launched with its
// own conventions (no host flag, model as --model), counts as ready only
// when its declared path does (/health answers 200 while it still loads),
// and is torn down.
func TestDeclaredEngineLaunchesAndWaitsForItsReadiness(t *testing.T) {
	tg := goSimTarget(t, "none", enginetest.Options{StartupDelay: 300 * time.Millisecond})
	l := launcher(t)
	srv, err := l.Start(context.Background(), space.Config{"max_running": int64(4)}, tg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	argv := strings.Join(srv.Argv, " ")
	if strings.Contains(argv, "--host") || !strings.Contains(argv, "--model /models/tiny.gguf --max-num-seqs 4 --port ") {
		t.Errorf("argv %q", argv)
	}
	if err := srv.WaitReady(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.BaseURL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("ready before /health/ready said so: %d", resp.StatusCode)
	}
}

// The failure: a declaration that passes --host to an engine
// without one. The engine exits 0 after cobra's message; the trial fails
// as invalid_config naming the flag, not as unknown.
func TestDeclaredEngineFlagErrorIsInvalidConfig(t *testing.T) {
	tg := goSimTarget(t, "--host", enginetest.Options{})
	srv, err := launcher(t).Start(context.Background(), space.Config{"max_running": int64(4)}, tg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	err = srv.WaitReady(context.Background(), time.Minute)
	f, ok := engines.AsFailure(err)
	if !ok || f.Class != engines.InvalidConfig || !strings.Contains(f.Message, "unknown flag: --host") {
		t.Errorf("WaitReady = %v, want invalid_config naming --host", err)
	}
}

func quote(s string) string { return strconv.Quote(s) }

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// Readiness by a log line: the engine counts as ready once it printed it.
func TestDeclaredEngineReadyByLogLine(t *testing.T) {
	var env []string
	for k, v := range enginetest.Env(enginetest.GoSim, enginetest.Options{StartupDelay: 200 * time.Millisecond}) {
		env = append(env, k+" = "+quote(v))
	}
	tg := enginetest.DeclaredTarget(t, "gosim", "", sprintf(`
[engines.gosim]
command = [%q]
model = "--model"
port = "--port"
env = { %s }
[engines.gosim.knobs]
max_running = { flag = "--max-num-seqs" }
[engines.gosim.ready]
log = "model loaded, ready"
`, enginetest.Program(), strings.Join(env, ", ")))
	srv, err := launcher(t).Start(context.Background(), space.Config{"max_running": int64(4)}, tg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	if err := srv.WaitReady(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.BaseURL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("ready before the engine said so: %d", resp.StatusCode)
	}
}
