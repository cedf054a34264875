package export

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Docker is a shell snippet: the generated files written beside it, then
// one `docker run` of the image with the exact argv. GPUs are the trial's
// own devices 0..n-1; --ipc=host gives the engine's workers the shared
// memory they exchange tensors through; the model cache is the host's;
// HF_TOKEN is passed by name from the caller's environment, never by value.
func Docker(p Plan) string {
	var b strings.Builder
	if len(p.Files) > 0 {
		fmt.Fprintf(&b, "mkdir -p %s\n", p.Name)
		for _, f := range slices.Sorted(maps.Keys(p.Files)) {
			fmt.Fprintf(&b, "cat > %s/%s <<'SERVETUNE_EOF'\n%s\nSERVETUNE_EOF\n", p.Name, f, strings.TrimRight(p.Files[f], "\n"))
		}
	}
	words := []string{"docker", "run", "--rm", "--name", p.Name}
	if p.GPUs > 0 {
		words = append(words, "--gpus", shellQuote(`"device=`+devices(p.GPUs)+`"`))
	}
	port := strconv.Itoa(p.Port)
	words = append(words, "--ipc=host", "-p", port+":"+port, "-v", "$HOME/.cache/"+cacheName(p)+":"+p.Cache)
	if p.HFToken {
		words = append(words, "-e", "HF_TOKEN")
	}
	if len(p.Files) > 0 {
		words = append(words, "-v", "$PWD/"+p.Name+":/servetune:ro", "-w", "/servetune")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		words = append(words, "-e", shellQuote(k+"="+p.Env[k]))
	}
	words = append(words, "--entrypoint", shellQuote(p.Argv[0]), shellQuote(p.Image))
	for _, a := range p.Argv[1:] {
		words = append(words, shellQuote(a))
	}
	b.WriteString(strings.Join(words, " ") + "\n")
	for _, step := range p.Setup {
		fmt.Fprintf(&b, "# once it answers: docker exec %s %s\n", p.Name, strings.Join(step, " "))
	}
	return b.String()
}

// devices lists GPUs 0..n-1: "0,1".
func devices(n int) string {
	ds := make([]string, n)
	for i := range ds {
		ds[i] = strconv.Itoa(i)
	}
	return strings.Join(ds, ",")
}

// cacheName is the host directory under ~/.cache the engine's own cache
// maps to: huggingface, or ollama.
func cacheName(p Plan) string {
	if p.HFToken {
		return "huggingface"
	}
	return strings.TrimPrefix(p.Cache[strings.LastIndex(p.Cache, "/")+1:], ".")
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
