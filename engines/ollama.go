package engines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/engines/gguf"
	"github.com/servetune/servetune/space"
)

// ollama renders `ollama serve` (v0.5.7, envconfig/config.go and
// llm/server.go). Ollama has no serving flags: server knobs are
// environment variables, model knobs are Modelfile PARAMETERs, and the
// model is registered against the running server with `ollama create`,
// so the adapter also answers the launcher's setup against the live
// server (Check, ServeEnv, Ready, Scratch; engines/launch asks for them).
//
// target.model is a local GGUF file (`servetune testmodel` writes one);
// it is never pulled from a registry, because OLLAMA_MODELS is a fresh
// directory per trial.
type ollama struct{}

var _ Engine = ollama{}

func (ollama) Name() string { return Ollama }

// DefaultPort: OLLAMA_HOST defaults to 127.0.0.1:11434.
func (ollama) DefaultPort() int { return 11434 }

func (e ollama) Health() string { return first(e.Probes()) }

// Image is Ollama's own image, tagged by release.
func (ollama) Image(version string) string { return "ollama/ollama:" + or(version, "latest") }

// Deployment: the image keeps models under /root/.ollama and binds from
// OLLAMA_HOST; a local model loads in minutes.
func (ollama) Deployment() Deployment {
	return Deployment{Cache: "/root/.ollama", BindEnv: "OLLAMA_HOST", Load: 10 * time.Minute}
}

// Device: Ollama runs on the CPU when the target names no GPU.
func (ollama) Device() Device { return CPU }

func (ollama) VersionCommand(program string) []string {
	return []string{or(program, Ollama), "--version"}
}

// GPUs: one server; Ollama has no parallelism knobs.
func (ollama) GPUs(cfg space.Config) int { return replicas(cfg) }

func (ollama) Knobs() []string {
	return []string{KnobMaxRunning, KnobFlashAttention, KnobKVCacheDType, KnobMaxQueue,
		KnobNumCtx, KnobNumBatch, KnobNumThread}
}

// ollamaModelfile is the name of the generated Modelfile in the trial
// directory; `ollama create -f` resolves FROM relative to it, so the
// adapter writes an absolute FROM.
const ollamaModelfile = "Modelfile"

func (ollama) Render(cfg space.Config, _ Version, model string) (Command, error) {
	r := newRenderer("ollama", cfg, "ollama", "serve")
	if n, ok := r.int(KnobMaxRunning); ok {
		if n < 1 {
			r.fail(KnobMaxRunning, "OLLAMA_NUM_PARALLEL must be >= 1, not %d", n)
		}
		r.env["OLLAMA_NUM_PARALLEL"] = strconv.FormatInt(n, 10)
	}
	fa, hasFA := r.bool(KnobFlashAttention)
	if hasFA {
		r.env["OLLAMA_FLASH_ATTENTION"] = map[bool]string{true: "1", false: "0"}[fa]
	}
	aliases := map[string]string{"fp16": "f16", "float16": "f16", "auto": "f16"}
	if d, ok := r.enum(KnobKVCacheDType, aliases, []string{"f16", "q8_0", "q4_0"}); ok {
		if d != "f16" && !(hasFA && fa) {
			// Ollama would warn "quantized kv cache requested but flash
			// attention disabled" and silently run f16: not this config.
			r.fail(KnobKVCacheDType, "ollama applies OLLAMA_KV_CACHE_TYPE=%s only with flash_attention = true", d)
		}
		if r.cfg.String(KnobKVCacheDType) != "auto" {
			r.env["OLLAMA_KV_CACHE_TYPE"] = d
		}
	}
	if n, ok := r.int(KnobMaxQueue); ok {
		if n < 1 {
			r.fail(KnobMaxQueue, "OLLAMA_MAX_QUEUE must be >= 1, not %d", n)
		}
		r.env["OLLAMA_MAX_QUEUE"] = strconv.FormatInt(n, 10)
	}
	if !strings.HasSuffix(strings.ToLower(model), ".gguf") {
		r.errs = append(r.errs, fmt.Errorf("target.model must be a local .gguf file (servetune testmodel writes one), not %q", model))
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("model path %s: %w", model, err))
	}
	var mf strings.Builder
	fmt.Fprintf(&mf, "# Register with `ollama create %s -f %s` once `ollama serve` answers.\n", ollamaName(model), ollamaModelfile)
	fmt.Fprintf(&mf, "FROM %s\n", abs)
	for _, p := range []struct{ knob, param string }{{KnobNumCtx, "num_ctx"}, {KnobNumBatch, "num_batch"}, {KnobNumThread, "num_thread"}} {
		if n, ok := r.int(p.knob); ok {
			if n < 1 {
				r.fail(p.knob, "PARAMETER %s must be >= 1, not %d", p.param, n)
			}
			fmt.Fprintf(&mf, "PARAMETER %s %d\n", p.param, n)
		}
	}
	c, err := r.command(2)
	if err != nil {
		return Command{}, err
	}
	c.Files = map[string]string{ollamaModelfile: mf.String()}
	c.Setup = [][]string{{"ollama", "create", ollamaName(model), "-f", ollamaModelfile}}
	return c, nil
}

// ollamaName derives the registered model name from the GGUF file name:
// Ollama names allow letters, digits, '_', '-' and '.', and are
// case-insensitive.
func ollamaName(model string) string {
	base := strings.TrimSuffix(filepath.Base(model), filepath.Ext(model))
	name := regexp.MustCompile(`[^a-z0-9_.-]+`).ReplaceAllString(strings.ToLower(base), "-")
	name = strings.Trim(name, "-.")
	if name == "" {
		return "model"
	}
	return name
}

// Parse accepts `ollama serve`: the knobs live in the environment and the
// Modelfile, which a command line does not carry.
func (ollama) Parse(args []string, _ Version) (Parsed, error) {
	args = skipProgram(args, []string{"ollama", "serve"})
	return Parsed{Config: space.Config{}, Extra: args}, nil
}

// Listen: `ollama serve` binds from OLLAMA_HOST (ServeEnv), not flags.
// Clients send the name the model was created under.
func (ollama) Listen(_ string, _ int, model, served string) ([]string, string) {
	if served != "" && served != model {
		return nil, served
	}
	return nil, ollamaName(model)
}

// Probes: `GET /api/version` answers as soon as the HTTP server runs; the
// model is created and loaded afterwards (Ready).
func (ollama) Probes() []string { return []string{"/api/version"} }

func (ollama) ServeEnv(host string, port int, dir string) map[string]string {
	return map[string]string{
		"OLLAMA_HOST":   host + ":" + strconv.Itoa(port),
		"OLLAMA_MODELS": ollamaModels(dir),
		// One model per trial; never keep a second resident.
		"OLLAMA_MAX_LOADED_MODELS": "1",
	}
}

func (ollama) Scratch(dir string) []string { return []string{ollamaModels(dir)} }

// ollamaModels is OLLAMA_MODELS: absolute, because `ollama serve` runs in
// the trial directory and would resolve a relative one inside it again.
func ollamaModels(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Join(dir, "ollama-models")
}

// Check runs before launch: a missing or non-GGUF model would otherwise
// surface as a create error after the server started.
func (ollama) Check(model string) error {
	f, err := os.Open(model)
	if err != nil {
		return invalid("ollama: target.model: %v", err)
	}
	defer f.Close()
	if _, err := gguf.Read(f); err != nil {
		return invalid("ollama: target.model %s: %v", model, err)
	}
	return nil
}

// Ready loads the model (Ollama loads lazily, on the first request), so
// that load errors and out-of-memory are startup failures of this config
// rather than failed benchmark requests, and checks /v1/models lists it.
func (ollama) Ready(ctx context.Context, client *http.Client, base, name string, log io.Writer) error {
	if err := ollamaListed(ctx, client, base, name); err != nil {
		return err
	}
	body := fmt.Sprintf(`{"model":%q}`, name)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/generate", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("loading %s: %w", name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var out struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &out)
	if resp.StatusCode != http.StatusOK || out.Error != "" {
		msg := out.Error
		if msg == "" {
			msg = strings.TrimSpace(string(b))
		}
		// The classifier reads engine.log: put Ollama's answer there.
		fmt.Fprintf(log, "Error: loading model %s: %s\n", name, msg)
		return errLoad
	}
	fmt.Fprintf(log, "[servetune: model %s loaded]\n", name)
	return nil
}

var errLoad = errors.New("model load failed")

func ollamaListed(ctx context.Context, client *http.Client, base, name string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("listing models: %w", err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return fmt.Errorf("listing models: %w", err)
	}
	for _, m := range list.Data {
		if m.ID == name || m.ID == name+":latest" {
			return nil
		}
	}
	return fmt.Errorf("/v1/models does not list %q after ollama create", name)
}

// patterns are Ollama's and llama.cpp's own messages (v0.5.7:
// llm/server.go, llm/status.go, api/types.go, llama.cpp's loader).
func (ollama) patterns() []pattern {
	return []pattern{
		pat(OOM, `model requires more system memory`, "model does not fit in system memory"),
		pat(OOM, `failed to allocate|unable to allocate|cudaMalloc failed|insufficient memory`, "out of memory allocating buffers"),
		pat(InvalidConfig, `invalid (int|float|bool) value|unknown parameter '`, "ollama rejected a PARAMETER value"),
		pat(InvalidConfig, `error loading model|invalid file magic|unsupported model format|unknown model architecture|not supported by your version of Ollama|GGML_ASSERT`, "llama.cpp could not load the model"),
		pat(InvalidConfig, `^Error: `, "ollama rejected the model or its settings"),
	}
}
