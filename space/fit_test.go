package space

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The load-time fit checks refuse only what could not run: the same
// shapes kept within the target load.
func TestFitAcceptsWhatCanRun(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "qa.jsonl")
	if err := os.WriteFile(dataset, []byte(`{"prompt": "2+2=", "max_tokens": 4, "reference": "4"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp := "\n[params.tp]\nvalues = [1, 2, 4]\n"
	cases := []struct{ name, target, extra string }{
		{"gpus_per_trial kept within by a rule", "gpus = 8\ngpus_per_trial = \"tp * 4\"\n", tp + "\n[[rules]]\nexpr = \"tp * 4 <= gpus\"\n"},
		{"gpus_per_trial spread over nodes", "gpus = 8\nhost = \"0.0.0.0\"\nnodes = [\"gpu[1-2]\"]\nnode_launch = [\"ssh\", \"{host}\"]\ngpus_per_trial = \"tp * 4\"\n", tp},
		{"gpus_per_node with nodes to spread over", "gpus = 8\ngpus_per_node = 2\nhost = \"0.0.0.0\"\nnodes = [\"gpu[1-2]\"]\nnode_launch = [\"ssh\", \"{host}\"]\n", tp},
		{"gpus_per_node that holds every config", "gpus = 8\ngpus_per_node = 4\n", tp},
		{"an env name without =", "gpus = 1\n[target.engines.vllm]\nenv = { VLLM_LOGGING_LEVEL = \"DEBUG\" }\n", ""},
		// command left out is the engine's default; command = [] is refused
		// (TestFifthPassBadInputsAreRefused): it reads as "no program".
		{"no command (the engine's default)", "gpus = 1\n[target.engines.vllm]\nextra_args = [\"--seed\", \"1\"]\n", ""},
		{"a kv_cache_dtype the release takes", "gpus = 1\n[target.engines.vllm]\nversion = \"0.10.0\"\n", "\n[params.kv_cache_dtype]\nvalues = [\"auto\", \"fp8\"]\n"},
		{"prior = sim with cards and a sampler it guides", "gpus = 1\n", ""},
		{"a readable quality dataset", "gpus = 1\n", "\n[profiles]\nrun = [\"qa\"]\n[profiles.custom.qa]\nkind = \"quality\"\ndataset = \"jsonl\"\ndataset_path = \"" + dataset + "\"\nnum_prompts = 1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := strings.Replace(minimalHead, "name = \"x\"", "name = \"x\"\nprior = \"sim\"", 1)
			src := head + c.target + minimalTail + c.extra
			if _, err := Parse(context.Background(), "x.toml", src, testOptions()); err != nil {
				t.Errorf("refused:\n%s\n%v", src, err)
			}
		})
	}
}

// A stored study's space is read where its dataset files may not be.
func TestNoDatasetsReadsAStoredSpace(t *testing.T) {
	src := minimalHead + "gpus = 1\n" + minimalTail + "\n[profiles]\nrun = [\"qa\"]\n[profiles.custom.qa]\ndataset = \"jsonl\"\ndataset_path = \"/nonexistent/qa.jsonl\"\nnum_prompts = 1\n"
	if _, err := Parse(context.Background(), "x.toml", src, testOptions()); err == nil || !strings.Contains(err.Error(), "profiles.custom.qa.dataset_path") {
		t.Fatalf("a missing dataset loaded: %v", err)
	}
	opt := testOptions()
	opt.NoDatasets = true
	if _, err := Parse(context.Background(), "x.toml", src, opt); err != nil {
		t.Errorf("with NoDatasets: %v", err)
	}
}
