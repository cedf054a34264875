package main

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// deployment is what `best --export` deploys: one trial's serving command
// in its engine's official image.
type deployment struct {
	Study  string
	Trial  int
	Engine string
	// Version is the engine version the target pins; the image tag
	// ("latest" when none is pinned).
	Version string
	GPUs    int
	Cmd     engines.Command
}

// image is the engine's official container image: vLLM's and SGLang's
// own Docker Hub images, NVIDIA's TensorRT-LLM release image on NGC (it
// ships trtllm-serve), Ollama's own.
func image(engine, version string) string {
	tag := version
	if tag == "" {
		tag = "latest"
	}
	switch engine {
	case "vllm":
		if version != "" {
			tag = "v" + strings.TrimPrefix(version, "v")
		}
		return "vllm/vllm-openai:" + tag
	case "sglang":
		return "lmsysorg/sglang:" + tag
	case "trtllm":
		return "nvcr.io/nvidia/tensorrt-llm/release:" + tag
	case "ollama":
		return "ollama/ollama:" + tag
	}
	return engine + ":" + tag
}

// port is where each engine serves by default.
func port(engine string) int {
	switch engine {
	case "sglang":
		return 30000
	case "ollama":
		return 11434
	}
	return 8000
}

// name is a DNS-1123 name for the deployment's objects.
func (d deployment) name() string {
	s := strings.ToLower(d.Study)
	s = strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			return r
		}
		return '-'
	}, s)
	return strings.Trim(s, "-") + "-trial-" + strconv.Itoa(d.Trial)
}

// argv is the serving command bound to every interface of the container
// on the engine's port; files are read from the working directory /servetune.
func (d deployment) argv() []string {
	args := append([]string(nil), d.Cmd.Argv...)
	if e, ok := engines.Lookup(d.Engine, space.Target{}); ok { // the exports helper passes the target
		listen, _ := e.Listen("0.0.0.0", port(d.Engine), "", "")
		args = append(args, listen...)
	}
	return args
}

// env is the command's environment plus, for Ollama, the bind address
// it takes from the environment.
func (d deployment) env() map[string]string {
	env := map[string]string{}
	for k, v := range d.Cmd.Env {
		env[k] = v
	}
	if d.Engine == "ollama" {
		env["OLLAMA_HOST"] = "0.0.0.0:" + strconv.Itoa(port(d.Engine))
	}
	return env
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dockerRun is a shell snippet: the generated files written beside it,
// then one `docker run` of the official image with the exact argv.
func dockerRun(d deployment) string {
	var b strings.Builder
	dir := d.name()
	if len(d.Cmd.Files) > 0 {
		fmt.Fprintf(&b, "mkdir -p %s\n", dir)
		for _, f := range sortedKeys(d.Cmd.Files) {
			fmt.Fprintf(&b, "cat > %s/%s <<'SERVETUNE_EOF'\n%s\nSERVETUNE_EOF\n", dir, f, strings.TrimRight(d.Cmd.Files[f], "\n"))
		}
	}
	words := []string{"docker", "run", "--rm", "--name", dir}
	if d.GPUs > 0 {
		words = append(words, "--gpus", "all", "--ipc=host")
	}
	p := strconv.Itoa(port(d.Engine))
	words = append(words, "-p", p+":"+p, "-v", "$HOME/.cache/huggingface:/root/.cache/huggingface", "-e", "HF_TOKEN")
	if len(d.Cmd.Files) > 0 {
		words = append(words, "-v", "$PWD/"+dir+":/servetune:ro", "-w", "/servetune")
	}
	env := d.env()
	for _, k := range sortedKeys(env) {
		words = append(words, "-e", shellQuote(k+"="+env[k]))
	}
	argv := d.argv()
	words = append(words, "--entrypoint", argv[0], image(d.Engine, d.Version))
	for _, a := range argv[1:] {
		words = append(words, shellQuote(a))
	}
	b.WriteString(strings.Join(words, " ") + "\n")
	for _, step := range d.Cmd.Setup {
		fmt.Fprintf(&b, "# once it answers: docker exec %s %s\n", dir, strings.Join(step, " "))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '=' || r == '.' || r == '/' || r == ':' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// k8sManifest is a Deployment (the GPU request, argv, env, the generated
// files mounted from a ConfigMap) and a Service, for `kubectl apply -f`.
func k8sManifest(d deployment) ([]byte, error) {
	docs := []any{}
	if len(d.Cmd.Files) > 0 {
		docs = append(docs, configMap(d))
	}
	docs = append(docs, k8sDeployment(d), k8sService(d))
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, doc := range docs {
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return b.Bytes(), nil
}

type obj = map[string]any

func meta(d deployment) obj {
	return obj{"name": d.name(), "labels": obj{"app": d.name(), "servetune.study": d.Study, "servetune.trial": strconv.Itoa(d.Trial)}}
}

func configMap(d deployment) obj {
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(d), "data": d.Cmd.Files}
}

func k8sService(d deployment) obj {
	return obj{"apiVersion": "v1", "kind": "Service", "metadata": meta(d), "spec": obj{
		"selector": obj{"app": d.name()},
		"ports":    []obj{{"name": "http", "port": port(d.Engine), "targetPort": port(d.Engine)}},
	}}
}

func k8sDeployment(d deployment) obj {
	return obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(d), "spec": obj{
		"replicas": 1,
		"selector": obj{"matchLabels": obj{"app": d.name()}},
		"template": obj{"metadata": obj{"labels": obj{"app": d.name()}}, "spec": podSpec(d)},
	}}
}

func podSpec(d deployment) obj {
	argv := d.argv()
	c := obj{"name": d.Engine, "image": image(d.Engine, d.Version), "command": argv[:1], "args": argv[1:],
		"ports": []obj{{"containerPort": port(d.Engine)}}}
	var env []obj
	e := d.env()
	for _, k := range sortedKeys(e) {
		env = append(env, obj{"name": k, "value": e[k]})
	}
	if env != nil {
		c["env"] = env
	}
	// Tensor-parallel workers share memory through /dev/shm, which a
	// pod caps at 64 MiB unless it mounts one.
	mounts := []obj{{"name": "shm", "mountPath": "/dev/shm"}}
	vols := []obj{{"name": "shm", "emptyDir": obj{"medium": "Memory"}}}
	if len(d.Cmd.Files) > 0 {
		mounts = append(mounts, obj{"name": "files", "mountPath": "/servetune", "readOnly": true})
		vols = append(vols, obj{"name": "files", "configMap": obj{"name": d.name()}})
		c["workingDir"] = "/servetune"
	}
	c["volumeMounts"] = mounts
	if d.GPUs > 0 {
		c["resources"] = obj{"limits": obj{"nvidia.com/gpu": d.GPUs}}
	}
	return obj{"containers": []obj{c}, "volumes": vols}
}

// export prints the deployment of one trial: the best (the front's first
// member) unless trial names another.
func (e *env) export(sp *space.Space, trials []studies.Trial, r studies.Report, kind string, trial int) error {
	if kind != "docker" && kind != "k8s" {
		return usagef("--export must be docker or k8s, not %q", kind)
	}
	if trial == 0 {
		if len(r.Winners) == 0 {
			return usagef("study %s has no complete trial to export yet", sp.Study.Name)
		}
		trial = r.Winners[0].Trial
	}
	i := slices.IndexFunc(trials, func(t studies.Trial) bool { return t.Number == trial })
	if i < 0 {
		return usagef("study %s has no trial %d", sp.Study.Name, trial)
	}
	cfg := sp.WithTargetEngine(trials[i].Config)
	cmd, err := engines.Render(cfg, sp.Target)
	if err != nil {
		return fmt.Errorf("trial %d: %w", trial, err)
	}
	eng := cfg.String("engine")
	d := deployment{Study: sp.Study.Name, Trial: trial, Engine: eng, Version: sp.Target.Engines[eng].Version, Cmd: cmd}
	if studies.TargetDevice(sp.Target, []string{eng}) == "gpu" {
		d.GPUs = sp.Target.GPUs
	}
	if kind == "docker" {
		_, err := fmt.Fprint(e.stdout, dockerRun(d))
		return err
	}
	y, err := k8sManifest(d)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(y)
	return err
}
