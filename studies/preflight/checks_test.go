package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func gpuSpace(engine string, gpus int) *space.Space {
	return &space.Space{Study: space.Study{Name: "night"}, Target: space.Target{
		Runner: "process", Engine: engine, Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: gpus,
		Engines: map[string]space.EngineTarget{"vllm": {Version: "0.15.1"}}}}
}

// expect asserts a check's status and that its detail says why.
func expect(t *testing.T, name string, c Check, status Status, says string) {
	t.Helper()
	if c.Status != status || !strings.Contains(c.Detail, says) {
		t.Errorf("%s: %s %q, want %s saying %q", name, c.Status, c.Detail, status, says)
	}
}

func TestCheckEngine(t *testing.T) {
	vllm := map[string]string{"vllm": "/opt/bin/vllm"}
	for _, tc := range []struct {
		name   string
		f      fake
		sp     func(*space.Space)
		status Status
		says   string
	}{
		{"pinned and reported", fake{programs: vllm, versions: map[string]string{"vllm": "0.15.1+cu128"}}, nil, OK, "reports 0.15.1+cu128, as pinned"},
		{"program missing", fake{}, nil, Fail, "program vllm not found"},
		{"another release", fake{programs: vllm, versions: map[string]string{"vllm": "0.11.0"}}, nil, Fail, "vllm reports version 0.11.0, the target declares 0.15.1"},
		{"version unreadable", fake{programs: vllm}, nil, Warn, "could not read its version to compare with the pinned 0.15.1"},
		{"not pinned", fake{programs: vllm, versions: map[string]string{"vllm": "0.15.1"}}, func(sp *space.Space) { sp.Target.Engines = nil }, OK, "not pinned"},
		{"the target's own program", fake{programs: map[string]string{"/venv/bin/vllm": "/venv/bin/vllm"}, versions: map[string]string{"vllm": "0.15.1"}},
			func(sp *space.Space) {
				sp.Target.Engines["vllm"] = space.EngineTarget{Version: "0.15.1", Command: []string{"/venv/bin/vllm", "serve"}}
			}, OK, "/venv/bin/vllm"},
		{"sglang runs python3", fake{}, func(sp *space.Space) { sp.Target.Engine = "sglang" }, Fail, "program python3 not found"},
	} {
		sp := gpuSpace("vllm", 8)
		if tc.sp != nil {
			tc.sp(sp)
		}
		cs := checkEngines(context.Background(), sp, tc.f.world())
		if len(cs) != 1 {
			t.Fatalf("%s: %d checks", tc.name, len(cs))
		}
		expect(t, tc.name, cs[0], tc.status, tc.says)
	}
	sp := gpuSpace("vllm", 8)
	sp.Target.Prefix = []string{"numactl", "--cpunodebind=0"}
	cs := checkEngines(context.Background(), sp, fake{programs: vllm}.world())
	expect(t, "prefix missing", cs[0], Fail, "launch prefix numactl")
}

func TestCheckGPUs(t *testing.T) {
	eight := map[string]string{smiGPUs: freeGPUs(8)}
	busyPid := map[string]string{smiGPUs: freeGPUs(8), smiApps: "4242, GPU-3, 40000\n"}
	held := map[string]string{smiGPUs: strings.Replace(freeGPUs(8), "5, GPU-5, 3,", "5, GPU-5, 70000,", 1)}
	for _, tc := range []struct {
		name    string
		smi     map[string]string
		gpus    int
		devices []string
		status  Status
		says    string
	}{
		{"eight free", eight, 8, nil, OK, "8 of 8 visible GPUs to use (0,1,2,3,4,5,6,7), all free"},
		{"no nvidia-smi", nil, 8, nil, Fail, "nvidia-smi is not installed"},
		{"four visible, eight declared", map[string]string{smiGPUs: freeGPUs(4)}, 8, nil, Fail, "GPU 4 is not visible (nvidia-smi lists 4)"},
		{"another process", busyPid, 8, nil, Fail, "GPU 3 is in use by pid 4242"},
		{"memory held", held, 8, nil, Fail, "GPU 5 holds 70000 of 81559 MiB"},
		{"--gpus avoids the busy one", busyPid, 8, []string{"0", "1"}, OK, "2 of 8 visible GPUs to use (0,1)"},
		{"--gpus by UUID", eight, 8, []string{"GPU-7"}, OK, "(GPU-7)"},
	} {
		c := checkGPUs(context.Background(), gpuSpace("vllm", tc.gpus), tc.devices, fake{smi: tc.smi}.world())
		expect(t, tc.name, c, tc.status, tc.says)
	}
}

func TestCheckCheckpoint(t *testing.T) {
	home := map[string]string{"HOME": "/home/u"}
	cached := map[string]bool{"/home/u/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots": true}
	for _, tc := range []struct {
		name   string
		model  string
		f      fake
		env    map[string]string // the target's
		status Status
		says   string
	}{
		{"local file", "/models/q.gguf", fake{files: map[string]bool{"/models/q.gguf": false}}, nil, OK, "is local (16.0 GB)"},
		{"local file missing", "/models/q.gguf", fake{}, nil, Fail, "/models/q.gguf does not exist"},
		{"relative path missing", "./ckpt/qwen", fake{}, nil, Fail, "does not exist"},
		{"cached", "Qwen/Qwen3-8B", fake{env: home, files: cached}, nil, OK, "in the Hugging Face cache (/home/u/.cache/huggingface/hub)"},
		{"to be downloaded", "Qwen/Qwen3-8B", fake{env: home}, nil, Warn, "the first trial downloads it"},
		{"offline and not cached", "Qwen/Qwen3-8B", fake{env: map[string]string{"HOME": "/home/u", "HF_HUB_OFFLINE": "1"}}, nil, Fail, "HF_HUB_OFFLINE=1"},
		{"the target's HF_HOME", "Qwen/Qwen3-8B", fake{env: home, files: map[string]bool{"/data/hf/hub/models--Qwen--Qwen3-8B/snapshots": true}},
			map[string]string{"HF_HOME": "/data/hf"}, OK, "(/data/hf/hub)"},
	} {
		sp := gpuSpace("vllm", 1)
		sp.Target.Model, sp.Target.Env = tc.model, tc.env
		cs := checkCheckpoints(sp, tc.f.world())
		expect(t, tc.name, cs[0], tc.status, tc.says)
	}
}

func TestEveryModelVariantIsChecked(t *testing.T) {
	sp := gpuSpace("vllm", 1)
	sp.Params = []space.Param{{Name: "model_variant", Kind: space.Categorical, Values: []any{"BF16", "FP8", "org/other"}}}
	got := models(sp)
	want := []string{"Qwen/Qwen3-8B", "Qwen/Qwen3-8B-FP8", "org/other"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("models %q, want %q", got, want)
	}
}

func TestCheckPorts(t *testing.T) {
	declared := func(sp *space.Space) {
		sp.Target.Engine = "srv"
		sp.Target.Declared = map[string]space.EngineDecl{"srv": {Command: []string{"srv"}, DefaultPort: 8080}}
	}
	for _, tc := range []struct {
		name    string
		f       fake
		sp      func(*space.Space)
		workers int
		status  Status
		says    string
	}{
		{"free", fake{}, nil, 1, OK, "can listen on 127.0.0.1"},
		{"host not bindable", fake{badHosts: map[string]bool{"10.0.0.9": true}}, func(sp *space.Space) { sp.Target.Host = "10.0.0.9" }, 1, Fail, "cannot listen on 10.0.0.9"},
		{"fixed port taken", fake{taken: map[string]bool{"127.0.0.1:8080": true}}, declared, 1, Fail, "listens on 127.0.0.1:8080, which is taken"},
		{"fixed port, two workers", fake{}, declared, 2, Fail, "always listens on port 8080: --workers 2"},
		{"fixed port free", fake{}, declared, 1, OK, "can listen"},
	} {
		sp := gpuSpace("vllm", 1)
		if tc.sp != nil {
			tc.sp(sp)
		}
		expect(t, tc.name, checkPorts(sp, tc.workers, tc.f.world()), tc.status, tc.says)
	}
}
