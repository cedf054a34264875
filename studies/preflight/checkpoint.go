package preflight

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// checkCheckpoints: every checkpoint the space can serve (the target's
// model and each model_variant) is a local file or directory, or a
// Hugging Face id that is cached or that trials will download.
func checkCheckpoints(sp *space.Space, w World) []Check {
	var out []Check
	for _, m := range models(sp) {
		out = append(out, checkCheckpoint(sp.Target, m, w))
	}
	return out
}

// models lists the checkpoints trials may serve, in order, once each.
func models(sp *space.Space) []string {
	var cfgs []space.Config
	if p, has := sp.Param(engines.KnobModelVariant); has && p.Kind == space.Categorical {
		for _, v := range p.Values {
			cfgs = append(cfgs, space.Config{engines.KnobModelVariant: v})
		}
	} else {
		cfgs = append(cfgs, space.Config{})
	}
	var out []string
	for _, c := range cfgs {
		if m, err := engines.ModelPath(c, sp.Target); err == nil && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func checkCheckpoint(t space.Target, model string, w World) Check {
	name := "checkpoint"
	if st, err := w.Stat(model); err == nil {
		return ok(name, "%s is local (%s)", model, size(st.Size(), st.IsDir()))
	}
	if localPath(model) {
		return fail(name, "%s does not exist: every trial serving it would fail", model)
	}
	getenv := targetEnv(t, w.Getenv)
	cache := hubCache(getenv)
	dir := filepath.Join(cache, "models--"+strings.ReplaceAll(model, "/", "--"), "snapshots")
	if _, err := w.Stat(dir); err == nil {
		return ok(name, "%s is in the Hugging Face cache (%s)", model, cache)
	}
	if getenv("HF_HUB_OFFLINE") == "1" {
		return fail(name, "%s is not in the Hugging Face cache (%s) and HF_HUB_OFFLINE=1: no trial can load it", model, cache)
	}
	return warn(name, "%s is not in the Hugging Face cache (%s): the first trial downloads it within its startup timeout (download it first: huggingface-cli download %s)", model, cache, model)
}

// localPath: a checkpoint named by a path, which no hub resolves.
func localPath(m string) bool {
	return strings.HasPrefix(m, "/") || strings.HasPrefix(m, "./") || strings.HasPrefix(m, "../") ||
		strings.HasPrefix(m, "~") || strings.HasSuffix(m, ".gguf") || strings.Count(m, "/") > 1
}

// hubCache is where huggingface_hub keeps repositories.
func hubCache(getenv func(string) string) string {
	switch {
	case getenv("HF_HUB_CACHE") != "":
		return getenv("HF_HUB_CACHE")
	case getenv("HF_HOME") != "":
		return filepath.Join(getenv("HF_HOME"), "hub")
	case getenv("XDG_CACHE_HOME") != "":
		return filepath.Join(getenv("XDG_CACHE_HOME"), "huggingface", "hub")
	}
	return filepath.Join(getenv("HOME"), ".cache", "huggingface", "hub")
}

// targetEnv reads the trials' environment: the target's variables over
// this process's.
func targetEnv(t space.Target, getenv func(string) string) func(string) string {
	return func(k string) string {
		if v, has := t.Env[k]; has {
			return v
		}
		return getenv(k)
	}
}

func size(n int64, dir bool) string {
	if dir {
		return "a directory"
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
