package space

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// freshBase is a small valid space the cases below break one way each.
const freshBase = `[study]
name = "b"
n_trials = 3
seed = 1
[target]
model = "m"
gpu = "H100"
gpus = 1
[[objectives]]
metric = "total_tps"
direction = "maximize"
[profiles]
run = ["p"]
[profiles.custom.p]
dataset = "random"
input_len = 128
output_len = 32
num_prompts = 20
[params.engine]
values = ["vllm", "sglang"]
[params.max_running]
values = [32, 64]
`

// TestFreshBadInputsAreRefused holds the bad inputs of issue 48's fresh
// round (docs/benchmarks.md, "Issue 48: a fresh set of bad inputs"): each
// loaded before and ran a study that could say nothing (exit 0), failed
// every trial (exit 3) or failed after writing the study (exit 1). Each
// is now refused at load naming its key and line.
func TestFreshBadInputsAreRefused(t *testing.T) {
	cases := []struct {
		name    string
		replace [2]string // in freshBase, once
		extra   string    // appended
		key     string
		msg     string
	}{
		{name: "name with a newline", replace: [2]string{`name = "b"`, `name = "a\nb"`}, key: "study.name", msg: "control characters"},
		{name: "name with NUL", replace: [2]string{`name = "b"`, `name = "a\u0000b"`}, key: "study.name", msg: "control characters"},
		{name: "name like a flag", replace: [2]string{`name = "b"`, `name = "-rf"`}, key: "study.name", msg: `start with "-"`},
		{name: "name too long", replace: [2]string{`name = "b"`, `name = "` + strings.Repeat("a", 300) + `"`}, key: "study.name", msg: "300 bytes"},
		{name: "empty sampler", replace: [2]string{"seed = 1", "seed = 1\nsampler = \"\""}, key: "study.sampler", msg: "is empty"},
		{name: "empty storage", replace: [2]string{"seed = 1", "seed = 1\nstorage = \"\""}, key: "study.storage", msg: "is empty"},
		{name: "storage on a device", replace: [2]string{"seed = 1", "seed = 1\nstorage = \"/dev/null\""}, key: "study.storage", msg: "not a regular file"},
		{name: "traffic_rps without search_rate", replace: [2]string{"gpus = 1", "gpus = 1\ntraffic_rps = 40.0"}, key: "target.traffic_rps", msg: "search_rate"},
		{name: "objective twice", extra: "[[objectives]]\nmetric = \"total_tps\"\ndirection = \"maximize\"\n", key: "objectives[1].metric", msg: "already objectives[0]"},
		{name: "objective twice, opposite directions", extra: "[[objectives]]\nmetric = \"total_tps\"\ndirection = \"minimize\"\nprofile = \"p\"\n", key: "objectives[1].metric", msg: "already objectives[0]"},
		{name: "constraints that never hold together", extra: "[[constraints]]\nexpr = \"p99_ttft_ms <= 100\"\n[[constraints]]\nexpr = \"p99_ttft_ms > 100\"\n", key: "constraints[1].expr", msg: "never hold together"},
		{name: "constraint twice", extra: "[[constraints]]\nexpr = \"p99_ttft_ms <= 100\"\n[[constraints]]\nexpr = \"p99_ttft_ms <= 100\"\nprofile = \"p\"\n", key: "constraints[1].expr", msg: "repeats constraints[0]"},
		{name: "a share above 1", extra: "[slo]\nttft_ms = 100\n[[constraints]]\nexpr = \"slo_attainment >= 2\"\n", key: "constraints[0].expr", msg: "a share, at most 1"},
		{name: "profile did-you-mean", replace: [2]string{`run = ["p"]`, `run = ["sharegtp"]`}, key: "profiles.run", msg: `did you mean "sharegpt"`},
		{name: "profile name with a slash", replace: [2]string{"[profiles.custom.p]", "[profiles.custom.\"a/b\"]\n[profiles.custom.p]"}, key: "profiles.custom.a/b", msg: "must not contain a slash"},
		{name: "trace table on random", extra: "[profiles.custom.p.trace]\nspeedup = 2.0\n", key: "profiles.custom.p.trace", msg: `used only by dataset = "trace"`},
		{name: "trace speedup 0", replace: [2]string{"dataset = \"random\"\ninput_len = 128\noutput_len = 32\n", "dataset = \"trace\"\ndataset_path = \"../examples/traces/mooncake.jsonl\"\n"}, extra: "[profiles.custom.p.trace]\nspeedup = 0.0\nsample = 0.0\nblock_tokens = 0\n", key: "profiles.custom.p.trace.speedup", msg: "is 0"},
		{name: "tp above the GPUs", extra: "[params.tp]\nvalues = [2, 4]\n", key: "params.tp", msg: "more than target.gpus = 1"},
		{name: "empty when", extra: "[params.kv_cache_dtype]\nvalues = [\"auto\", \"fp8_e4m3\"]\nwhen = \"\"\n", key: "params.kv_cache_dtype.when", msg: "is empty"},
		{name: "when never true", extra: "[params.kv_cache_dtype]\nvalues = [\"auto\", \"fp8_e4m3\"]\nwhen = \"1 == 2\"\n", key: "params.kv_cache_dtype.when", msg: "false on every one"},
		{name: "host with a scheme", replace: [2]string{"gpus = 1", "gpus = 1\nhost = \"http://x:80\""}, key: "target.host", msg: "not a host name"},
		{name: "host with a space", replace: [2]string{"gpus = 1", "gpus = 1\nhost = \"not a host!\""}, key: "target.host", msg: "not a host name"},
		{name: "study timeout of 1ns", replace: [2]string{"seed = 1", "seed = 1\ntimeout = \"1ns\""}, key: "study.timeout", msg: "shorter than the 1s"},
		{name: "trial_timeout of 1ms", replace: [2]string{"gpus = 1", "gpus = 1\ntrial_timeout = \"1ms\""}, key: "target.trial_timeout", msg: "shorter than the 1s"},
		{name: "when on an engine not searched", extra: "[params.kv_cache_dtype]\nvalues = [\"auto\", \"fp8_e4m3\"]\nwhen = 'engine == \"trtllm\"'\n", key: "params.kv_cache_dtype.when", msg: "would never be set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := freshBase
			if c.replace[0] != "" {
				if !strings.Contains(src, c.replace[0]) {
					t.Fatalf("%q is not in the base", c.replace[0])
				}
				src = strings.Replace(src, c.replace[0], c.replace[1], 1)
			}
			_, err := Parse(context.Background(), "s.toml", src+c.extra, testOptions())
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("loaded (err %v); want refused naming %s", err, c.key)
			}
			for _, p := range se.Problems {
				if p.Key == c.key && strings.Contains(p.Msg, c.msg) && p.Line > 0 {
					return
				}
			}
			t.Errorf("problems %v; want one at a line, key %s, containing %q", se.Problems, c.key, c.msg)
		})
	}
	if _, err := Parse(context.Background(), "s.toml", freshBase, testOptions()); err != nil {
		t.Fatalf("the base itself: %v", err)
	}
}

func TestValidHost(t *testing.T) {
	for _, c := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"0.0.0.0", true}, {"::", true}, {"::1", true}, {"localhost", true},
		{"gpu-01.cluster.local", true}, {"node_7", true},
		{"http://x:80", false}, {"not a host!", false}, {"x:8000", false}, {"a/b", false},
		{"-x", false}, {"a..b", false}, {"ünï", false}, {strings.Repeat("a", 64), false},
	} {
		if got := validHost(c.host); got != c.want {
			t.Errorf("validHost(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}

// TestFifthPassBadInputsAreRefused holds issue 48's fifth round
// (docs/benchmarks.md, "Issue 48: bad inputs, fifth pass"): each loaded
// before and ran something other than what the file says (a default read
// for a value written, a definition silently unused or replacing a
// built-in) or failed every trial (exit 3). Each is now refused at load
// naming its key and line.
func TestFifthPassBadInputsAreRefused(t *testing.T) {
	profile := func(line string) [2]string {
		return [2]string{"num_prompts = 20\n", "num_prompts = 20\n" + line + "\n"}
	}
	cases := []struct {
		name    string
		replace [2]string // in freshBase, once
		extra   string    // appended
		key     string
		msg     string
	}{
		{name: "request_rate 0", replace: profile("request_rate = 0.0"), key: "profiles.custom.p.request_rate", msg: "read as inf"},
		{name: "request_rate 0 as an integer", replace: profile("request_rate = 0"), key: "profiles.custom.p.request_rate", msg: "read as inf"},
		{name: "burstiness 0", replace: profile("burstiness = 0.0"), key: "profiles.custom.p.burstiness", msg: "read as 1 (Poisson)"},
		{name: "max_duration 1ns", replace: profile(`max_duration = "1ns"`), key: "profiles.custom.p.max_duration", msg: "shorter than the 1s"},
		{name: "empty endpoint", replace: profile(`endpoint = ""`), key: "profiles.custom.p.endpoint", msg: "is empty"},
		{name: "empty kind", replace: profile(`kind = ""`), key: "profiles.custom.p.kind", msg: "is empty"},
		{name: "empty dataset", replace: [2]string{`dataset = "random"`, `dataset = ""`}, key: "profiles.custom.p.dataset", msg: "is empty"},
		{name: "empty percentiles", replace: profile("percentiles = []"), key: "profiles.custom.p.percentiles", msg: "is empty"},
		{name: "a percentile twice", replace: profile("percentiles = [99.0, 99.0]"), key: "profiles.custom.p.percentiles", msg: "lists 99 twice"},
		{name: "empty prefix", replace: [2]string{"gpus = 1", "gpus = 1\nprefix = []"}, key: "target.prefix", msg: "is empty"},
		{name: "empty engine command", replace: [2]string{"gpus = 1", "gpus = 1\n[target.engines.vllm]\ncommand = []"}, key: "target.engines.vllm.command", msg: "is empty"},
		{name: "SLO of 1e300 ms", extra: "[slo]\nttft_ms = 1e300\n", key: "slo.ttft_ms", msg: "bound nothing"},
		{name: "profile SLO of 1e300 ms", replace: profile("slo = { tpot_ms = 1e300 }"), key: "profiles.custom.p.slo.tpot_ms", msg: "bound nothing"},
		{name: "custom profile named as a built-in", replace: [2]string{`run = ["p"]`, `run = ["p", "balanced"]`}, extra: "[profiles.custom.balanced]\ninput_len = 10\noutput_len = 10\nnum_prompts = 5\n", key: "profiles.custom.balanced", msg: "is a built-in profile"},
		{name: "ints for a bool knob", extra: "[params.prefix_caching]\nvalues = [0, 1]\n", key: "params.prefix_caching.values", msg: "is a switch"},
		{name: "empty baseline", extra: "[baseline]\n", key: "baseline", msg: "is empty"},
		{name: "objective on profile \"\"", replace: [2]string{`direction = "maximize"`, "direction = \"maximize\"\nprofile = \"\""}, key: "objectives[0].profile", msg: "is empty"},
		{name: "constraint on profile \"\"", extra: "[[constraints]]\nexpr = \"p99_ttft_ms <= 100\"\nprofile = \" \"\n", key: "constraints[0].profile", msg: "is empty"},
		{name: "32 and 32.0", replace: [2]string{"values = [32, 64]", "values = [32, 32.0]"}, key: "params.max_running.values", msg: "lists 32 twice"},
		{name: "one GPU in two cases", extra: "[params.gpu]\nvalues = [\"H100\", \"h100\"]\n", key: "params.gpu.values", msg: "lists h100 twice"},
		{name: "prior \"\"", replace: [2]string{"seed = 1", "seed = 1\nprior = \"\""}, key: "study.prior", msg: "is empty"},
		{name: "startup_timeout 0s", replace: [2]string{"gpus = 1", "gpus = 1\nstartup_timeout = \"0s\""}, key: "target.startup_timeout", msg: "reads as the default 30m"},
		{name: "a latency bound of 1e300 ms", extra: "[[constraints]]\nexpr = \"p99_ttft_ms <= 1e300\"\n", key: "constraints[0].expr", msg: "would hold on every trial"},
		{name: "an e2e bound of 1e12 s", extra: "[[constraints]]\nexpr = \"mean_e2e_s < 1e12\"\n", key: "constraints[0].expr", msg: "would hold on every trial"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := freshBase
			if c.replace[0] != "" {
				if !strings.Contains(src, c.replace[0]) {
					t.Fatalf("%q is not in the base", c.replace[0])
				}
				src = strings.Replace(src, c.replace[0], c.replace[1], 1)
			}
			_, err := Parse(context.Background(), "s.toml", src+c.extra, testOptions())
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("loaded (err %v); want refused naming %s", err, c.key)
			}
			for _, p := range se.Problems {
				if p.Key == c.key && strings.Contains(p.Msg, c.msg) && p.Line > 0 {
					return
				}
			}
			t.Errorf("problems %v; want one at a line, key %s, containing %q", se.Problems, c.key, c.msg)
		})
	}
	// What these refusals leave alone: inf, a positive burstiness and a
	// true/false switch still load.
	ok := strings.Replace(freshBase, "num_prompts = 20\n", "num_prompts = 20\nrequest_rate = inf\nburstiness = 0.5\nmax_duration = \"1s\"\npercentiles = [99.9]\n", 1) +
		"[params.prefix_caching]\nvalues = [false, true]\n[baseline]\nengine = \"vllm\"\n"
	if _, err := Parse(context.Background(), "s.toml", ok, testOptions()); err != nil {
		t.Fatalf("a valid space: %v", err)
	}
}

// An engines file's problems are named at the key or flag that brought it
// in: "/dev/zero:1" and "e.toml:1: study: unknown key" did not say which
// include or --engines named the file, nor that an included file may not
// hold a space's tables (issue 48, fifth pass).
func TestEngineFileRefusalsNameTheInclude(t *testing.T) {
	dir := t.TempDir()
	withStudy := filepath.Join(dir, "e.toml")
	if err := os.WriteFile(withStudy, []byte("[study]\nname = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxFileSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.toml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	space := filepath.Join(dir, "s.toml")
	for _, c := range []struct {
		name, include string
		flag          []string
		file, key     string
		msg           string
	}{
		{"an include too large", "big.toml", nil, space, "include", "engines file " + big + ": file is larger"},
		{"--engines too large", "", []string{big}, space, "--engines", "engines file " + big + ": file is larger"},
		{"an include holding [study]", "e.toml", nil, withStudy, "study", "[study] belongs in the space file"},
		{"an empty include", "empty.toml", nil, space, "include", "declares no engine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := freshBase
			if c.include != "" {
				src = "include = \"" + c.include + "\"\n" + src
			}
			opt := testOptions()
			opt.EngineFiles = c.flag
			_, err := Parse(context.Background(), space, src, opt)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("loaded (err %v)", err)
			}
			for _, p := range se.Problems {
				if p.File == c.file && p.Key == c.key && strings.Contains(p.Msg, c.msg) {
					return
				}
			}
			t.Errorf("problems %v; want %s: %s: …%s…", se.Problems, c.file, c.key, c.msg)
		})
	}
}

// What a file defines and the study will not use loads, with a note its
// author is shown (Space.Notes): a custom profile left out of
// profiles.run ran nothing and said nothing, and a [target.engines]
// entry for an engine the space never runs likewise (issue 48, fifth
// pass). The pd examples keep an alternative profile this way.
func TestUnusedDefinitionsAreNoted(t *testing.T) {
	src := strings.Replace(freshBase, "gpus = 1", "gpus = 1\n[target.engines.trtllm]\nversion = \"1.0.0\"", 1) +
		"[profiles.custom.q]\ninput_len = 10\noutput_len = 10\nnum_prompts = 5\n"
	s, err := Parse(context.Background(), "s.toml", src, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"profiles.custom.q": "not in profiles.run (p)", "target.engines.trtllm": "never runs (engines: vllm, sglang)"}
	for _, n := range s.Notes {
		if m, ok := want[n.Key]; ok && strings.Contains(n.Msg, m) && n.Line > 0 {
			delete(want, n.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("notes %v; missing %v", s.Notes, want)
	}
	if s, err := Parse(context.Background(), "s.toml", freshBase, testOptions()); err != nil || len(s.Notes) != 0 {
		t.Errorf("the base: notes %v, err %v", s.Notes, err)
	}
}
