package export

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func study(engine string, gpus int, decl map[string]space.EngineDecl) *space.Space {
	return &space.Space{Study: space.Study{Name: "My_Study"}, Target: space.Target{
		Engine: engine, Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: gpus, Declared: decl,
		Engines: map[string]space.EngineTarget{"vllm": {Version: "0.15.1"}, "trtllm": {Version: "1.2.1"}}}}
}

func llamaServer() map[string]space.EngineDecl {
	return map[string]space.EngineDecl{"llama-server": {
		Command: []string{"llama-server"}, Model: space.Pass{Flag: "--model"}, Host: space.Pass{Flag: "--host"},
		Port: space.Pass{Flag: "--port"}, DefaultPort: 8080, Ready: space.ReadyDecl{Path: "/health"},
		Knobs: map[string]space.KnobDecl{"max_running": {Flag: "--parallel"}}}}
}

func complete(cfg space.Config) store.Trial {
	return store.Trial{Number: 7, State: store.Complete, Config: cfg}
}

func TestNewRefusesATrialThatDidNotComplete(t *testing.T) {
	sp := study("vllm", 8, nil)
	for _, tc := range []struct {
		trial store.Trial
		want  string
	}{
		{store.Trial{Number: 3, State: store.Pruned, Reason: "below the front at 30 s"}, "trial 3 is pruned (below the front at 30 s)"},
		{store.Trial{Number: 4, State: store.Infeasible, Failure: &engines.Failure{Class: engines.OOM}}, "trial 4 is infeasible (oom)"},
		{store.Trial{Number: 5, State: store.Failed}, "trial 5 is failed"},
		{store.Trial{Number: 6, State: store.Running}, "trial 6 is running"},
	} {
		tc.trial.Config = space.Config{"tp": int64(2)}
		_, err := New(sp, tc.trial, Options{})
		if !errors.Is(err, ErrNotComplete) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--force") {
			t.Errorf("trial %d: %v, want ErrNotComplete saying %q and --force", tc.trial.Number, err, tc.want)
		}
		if _, err := New(sp, tc.trial, Options{Force: true}); err != nil {
			t.Errorf("trial %d with Force: %v", tc.trial.Number, err)
		}
	}
}

func TestNewPlansTheTrialsOwnGPUsPortImageAndBinding(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sp         *space.Space
		cfg        space.Config
		opt        Options
		gpus, port int
		image      string
		listen     []string
		env        map[string]string
		health     string
	}{
		{"vllm tp=2", study("vllm", 8, nil), space.Config{"tp": int64(2)}, Options{}, 2, 8000, "vllm/vllm-openai:v0.15.1",
			[]string{"--host=0.0.0.0", "--port=8000"}, nil, "/health"},
		{"sglang tp=2 dp=2", study("sglang", 8, nil), space.Config{"tp": int64(2), "dp": int64(2)}, Options{}, 4, 30000, "lmsysorg/sglang:v0.5.14",
			nil, nil, "/health"},
		{"trtllm tp=4", study("trtllm", 8, nil), space.Config{"tp": int64(4)}, Options{}, 4, 8000, "nvcr.io/nvidia/tensorrt-llm/release:1.2.1",
			[]string{"--port=8000"}, nil, "/health"},
		{"ollama on CPU", &space.Space{Study: space.Study{Name: "o"}, Target: space.Target{Engine: "ollama", Model: "/models/qwen3-0.6b.gguf"}}, space.Config{}, Options{},
			0, 11434, "ollama/ollama:0.5.7", nil, map[string]string{"OLLAMA_HOST": "0.0.0.0:11434"}, "/api/version"},
		{"declared", study("llama-server", 1, llamaServer()), space.Config{"max_running": int64(4)}, Options{Image: "ghcr.io/ggml-org/llama.cpp:server-cuda"},
			1, 8080, "ghcr.io/ggml-org/llama.cpp:server-cuda", []string{"--host", "0.0.0.0", "--port", "8080"}, nil, "/health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.sp, complete(tc.cfg), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if p.GPUs != tc.gpus || p.Port != tc.port || p.Image != tc.image || p.Health != tc.health {
				t.Errorf("gpus %d port %d image %s health %q; want %d %d %s %q", p.GPUs, p.Port, p.Image, p.Health, tc.gpus, tc.port, tc.image, tc.health)
			}
			cmd, _ := engines.Render(tc.sp.WithTargetEngine(tc.cfg), tc.sp.Target)
			if !slices.Equal(p.Argv[:len(cmd.Argv)], cmd.Argv) {
				t.Errorf("argv %q does not begin with the trial's command %q", p.Argv, cmd.Argv)
			}
			for _, w := range tc.listen {
				if !slices.Contains(p.Argv[len(cmd.Argv):], w) {
					t.Errorf("argv %q lacks listen word %q", p.Argv, w)
				}
			}
			for k, v := range tc.env {
				if p.Env[k] != v {
					t.Errorf("env %s = %q, want %q", k, p.Env[k], v)
				}
			}
		})
	}
}

func TestADeclaredEngineNeedsAnImage(t *testing.T) {
	_, err := New(study("llama-server", 1, llamaServer()), complete(space.Config{}), Options{})
	if !errors.Is(err, ErrNoImage) || !strings.Contains(err.Error(), "--image") {
		t.Errorf("got %v, want ErrNoImage naming --image", err)
	}
}

func TestADeclaredEngineWithoutAPortListensOnItsDefault(t *testing.T) {
	decl := llamaServer()
	d := decl["llama-server"]
	d.Port, d.Host, d.DefaultPort = space.Pass{}, space.Pass{Env: "LLAMA_ARG_HOST"}, 9090
	d.Ready = space.ReadyDecl{Path: "/health", Field: "status", Value: "ok"}
	decl["llama-server"] = d
	p, err := New(study("llama-server", 1, decl), complete(space.Config{}), Options{Image: "x/y:1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 9090 || p.Env["LLAMA_ARG_HOST"] != "0.0.0.0" || slices.Contains(p.Argv, "--port") {
		t.Errorf("port %d env %v argv %q", p.Port, p.Env, p.Argv)
	}
	if p.Health != "" {
		t.Errorf("a readiness field Kubernetes cannot check became health path %q; want a TCP probe", p.Health)
	}
}

// Every built-in engine answers what a deployment needs: a health path
// it waits for itself, an image, a port and a cache.
func TestEveryEngineHasDeploymentFacts(t *testing.T) {
	for _, name := range engines.Names() {
		e, _ := engines.Lookup(name, space.Target{})
		// The facts are the adapter's, whatever the model (Ollama refuses
		// one that is not a local .gguf).
		d, _ := engines.Deploy(space.Config{}, space.Target{Model: "m", Engine: name})
		f := deployedFacts(d)
		if !slices.Contains(e.Probes(), f.health) {
			t.Errorf("%s: health %s is not among its probes %v", name, f.health, e.Probes())
		}
		if f.image("") == "" || f.port == 0 || f.cache == "" || f.load <= 0 {
			t.Errorf("%s: incomplete deployment facts %+v", name, f)
		}
	}
}

// dns1035 is Kubernetes' own expression for a Service name.
var dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		study string
		trial int
		want  string
	}{
		{"My_Study", 7, "my-study-trial-7"},
		{"2025-qwen", 1, "study-2025-qwen-trial-1"},
		{"__", 2, "study-trial-2"},
		{strings.Repeat("a", 80), 12, strings.Repeat("a", 54) + "-trial-12"},
	} {
		got := name(tc.study, tc.trial)
		if got != tc.want {
			t.Errorf("name(%q) = %s, want %s", tc.study, got, tc.want)
		}
		if !dns1035.MatchString(got) || len(got) > 63 {
			t.Errorf("%s is not a DNS-1035 label", got)
		}
	}
}

func TestImages(t *testing.T) {
	for _, tc := range []struct{ engine, version, want string }{
		{"vllm", "", "vllm/vllm-openai:latest"},
		{"vllm", "0.11.0", "vllm/vllm-openai:v0.11.0"},
		{"vllm", "v0.11.0", "vllm/vllm-openai:v0.11.0"},
		{"sglang", "0.5.2", "lmsysorg/sglang:v0.5.2"},
		{"trtllm", "", "nvcr.io/nvidia/tensorrt-llm/release:latest"},
		{"ollama", "0.5.7", "ollama/ollama:0.5.7"},
	} {
		e, _ := engines.Lookup(tc.engine, space.Target{})
		if got := e.Image(tc.version); got != tc.want {
			t.Errorf("image(%s, %q) = %s, want %s", tc.engine, tc.version, got, tc.want)
		}
	}
}

// A declared engine deploys as its adapter serves it (engines.Deploy):
// the port the launcher would bind, and the health path the launcher
// probes — none when its readiness is a log line, a status or a JSON
// field, which a Kubernetes probe cannot check (it probes the TCP port).
func TestADeclaredEngineDeploysAsItsAdapterServes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*space.EngineDecl)
		port   int
		health string
	}{
		{"plain GET", func(*space.EngineDecl) {}, 8080, "/health"},
		// A hand-built target may hold both; the adapter waits for the log
		// line, so /health answering proves nothing.
		{"log line", func(d *space.EngineDecl) { d.Ready.Log = "server is listening" }, 8080, ""},
		{"status 204", func(d *space.EngineDecl) { d.Ready.Status = 204 }, 8080, ""},
		{"no default port", func(d *space.EngineDecl) { d.DefaultPort = 0 }, 8000, "/health"},
		{"fixed port", func(d *space.EngineDecl) { d.Port, d.DefaultPort = space.Pass{}, 9090 }, 9090, "/health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decl := llamaServer()
			d := decl["llama-server"]
			tc.edit(&d)
			decl["llama-server"] = d
			sp := study("llama-server", 1, decl)
			p, err := New(sp, complete(space.Config{}), Options{Image: "x/y:1"})
			if err != nil {
				t.Fatal(err)
			}
			dep, err := engines.Deploy(sp.WithTargetEngine(space.Config{}), sp.Target)
			if err != nil {
				t.Fatal(err)
			}
			if p.Port != tc.port || p.Health != tc.health || p.Port != dep.Port || p.Health != dep.Health {
				t.Errorf("port %d health %q; want %d %q (the adapter's: %d %q)", p.Port, p.Health, tc.port, tc.health, dep.Port, dep.Health)
			}
			y, err := Kubernetes(p)
			if err != nil {
				t.Fatal(err)
			}
			if probesHTTP := strings.Contains(string(y), "httpGet"); probesHTTP != (tc.health != "") {
				t.Errorf("manifest probes HTTP = %v, want %v:\n%s", probesHTTP, tc.health != "", y)
			}
		})
	}
}
