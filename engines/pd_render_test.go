package engines

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// pdCases are whole disaggregated deployments pinned byte for byte in
// testdata/golden/pd-*.txt (and shown in docs/engines.md), each named by
// the release whose source its flags were checked against:
//   - SGLang v0.5.6 (commit 7ae368e, where python/sglang/version.py first
//     reads 0.5.6): python/sglang/srt/server_args.py:3747
//     --disaggregation-mode, :3754 --disaggregation-transfer-backend
//     (choices :134), :3761 --disaggregation-bootstrap-port (8998, :557);
//     sgl-router/bindings/python/sglang_router/router_args.py:191
//     --pd-disaggregation, :196 --prefill URL [BOOTSTRAP_PORT], :204
//     --decode, :141 --host, :147 --port. The sides' own flags:
//     server_args.py:2051 --model-path, :2410 --tp-size, :2290
//     --mem-fraction-static, :2315 --chunked-prefill-size, :2296
//     --max-running-requests, :3406 --cuda-graph-max-bs.
//   - vLLM v0.15.1 (tag, commit 1892993): vllm/engine/arg_utils.py:1166
//     --kv-transfer-config; vllm/config/kv_transfer.py:15 KVRole, :23
//     kv_connector, :38 kv_role; kv_connector/factory.py:170
//     NixlConnector; vllm/envs.py:184 VLLM_NIXL_SIDE_CHANNEL_PORT (5600);
//     tests/v1/kv_connector/nixl_integration/toy_proxy_server.py:92
//     --port, :94 --host, :98/:105 --prefiller-hosts/-ports, :110/:113
//     --decoder-hosts/-ports. The sides' own flags: arg_utils.py:781
//     --tensor-parallel-size, :802 --data-parallel-size, :1092
//     --max-num-seqs.
var pdCases = []struct {
	name, engine, version string
	cfg                   space.Config
}{
	{"sglang-0.5.6-2p1d-mooncake", "sglang", "0.5.6", space.Config{KnobDisaggregation: Disaggregated,
		KnobPrefillInstances: int64(2), KnobDecodeInstances: int64(1), KnobKVTransferBackend: "mooncake",
		"prefill_tp": int64(2), "prefill_chunked_prefill": int64(16384), "prefill_mem_fraction": 0.8,
		"decode_tp": int64(4), "decode_max_running": int64(256), "decode_cuda_graph_max_bs": int64(128)}},
	{"vllm-0.15.1-1p2d-nixl", "vllm", "0.15.1", space.Config{KnobDisaggregation: Disaggregated,
		KnobPrefillInstances: int64(1), KnobDecodeInstances: int64(2), KnobKVTransferBackend: "nixl",
		"prefill_tp": int64(4), "decode_tp": int64(2), "decode_dp": int64(2), "decode_max_running": int64(512)}},
}

func pdTarget(engine, version string) space.Target {
	return space.Target{Model: "org/model", Engine: engine, Engines: map[string]space.EngineTarget{engine: {Version: version}}}
}

func renderPDText(t *testing.T, cfg space.Config, tgt space.Target) string {
	t.Helper()
	p, _ := SplitPD(cfg)
	e, _ := Lookup(tgt.Engine, tgt)
	procs, err := RenderPD(cfg, tgt, defaultPDPorts(p, e))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, pr := range procs {
		fmt.Fprintf(&b, "# %s, %d GPUs, serves :%d\n%s\n", pr.Name(), pr.GPUs, pr.Port, pr.Command.Shell())
	}
	return b.String()
}

func TestRenderPDGolden(t *testing.T) {
	for _, c := range pdCases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", "golden", "pd-"+c.name+".txt"), renderPDText(t, c.cfg, pdTarget(c.engine, c.version)))
		})
	}
}

// Every process of a deployment has its own port, and every server's
// side-channel block (vLLM) does not overlap another's.
func TestPDPortsDistinct(t *testing.T) {
	cfg := space.Config{KnobEngine: "vllm", KnobDisaggregation: Disaggregated, KnobPrefillInstances: int64(3),
		KnobDecodeInstances: int64(2), "decode_dp": int64(4)}
	p, _ := SplitPD(cfg)
	e, _ := Lookup("vllm", space.Target{})
	ports := defaultPDPorts(p, e)
	seen := map[int]bool{}
	for _, port := range append(append([]int{ports.Router}, ports.Prefill...), ports.Decode...) {
		if seen[port] {
			t.Fatalf("port %d twice in %+v", port, ports)
		}
		seen[port] = true
	}
	// prefill servers take 5600, 5601, 5602; the decode servers' four DP
	// ranks each 5603-5606 and 5607-5610.
	if want := []int{5600, 5601, 5602, 5603, 5607}; fmt.Sprint(ports.SideChannel) != fmt.Sprint(want) {
		t.Fatalf("side channels %v, want %v", ports.SideChannel, want)
	}
}

// TestPDGates: what each release renders, and the refusals.
func TestPDGates(t *testing.T) {
	pd := func(kv ...any) space.Config {
		c := space.Config{KnobDisaggregation: Disaggregated, KnobPrefillInstances: int64(1), KnobDecodeInstances: int64(1)}
		for i := 0; i+1 < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	for _, c := range []struct {
		name, engine, version string
		cfg                   space.Config
		want, refused         string
	}{
		{"sglang 0.5.6 server_args.py:3754 (choices :134): nixl transfer backend", "sglang", "0.5.6", pd(KnobKVTransferBackend, "nixl"),
			"--disaggregation-mode=prefill --disaggregation-transfer-backend=nixl --disaggregation-bootstrap-port=8998", ""},
		{"sglang: the default backend renders no flag", "sglang", "", pd(), "--disaggregation-mode=decode --host=127.0.0.1", ""},
		{"sglang 0.5.6 server_args.py:134: no lmcache transfer backend", "sglang", "0.5.6", pd(KnobKVTransferBackend, "lmcache"), "",
			`knob kv_transfer_backend: sglang 0.5.6 does not accept "lmcache" (accepted: mooncake, nixl)`},
		{"sglang 0.4.9: not rendered", "sglang", "0.4.9", pd(), "", `sglang 0.4.9 does not accept "pd"`},
		{"vllm 0.15.1 kv_transfer.py:15 KVRole, envs.py:184: producer and consumer roles", "vllm", "0.15.1", pd(),
			`VLLM_NIXL_SIDE_CHANNEL_PORT=5601 vllm serve org/model --kv-transfer-config='{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' --host=127.0.0.1 --port=8002`, ""},
		{"vllm: lmcache refused", "vllm", "0.15.1", pd(KnobKVTransferBackend, "lmcache"), "", `vllm 0.15.1 does not accept "lmcache"`},
		{"vllm: mooncake refused", "vllm", "", pd(KnobKVTransferBackend, "mooncake"), "", `does not accept "mooncake"`},
		{"vllm 0.10.2: not rendered", "vllm", "0.10.2", pd(), "", `vllm 0.10.2 does not accept "pd"`},
		{"a side's own refusal names the side", "sglang", "0.5.3", pd("decode_mem_fraction", 1.5), "",
			`decode side: sglang: knob mem_fraction: want a fraction in (0, 1], got 1.5`},
		{"trtllm does not serve disaggregated here", "trtllm", "", pd(), "", "trtllm does not serve disaggregated"},
		{"no decode server", "sglang", "", pd(KnobDecodeInstances, int64(0)), "", "decode_instances = 0: want at least 1 server on each side"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tgt := pdTarget(c.engine, c.version)
			p, _ := SplitPD(c.cfg)
			e, _ := Lookup(c.engine, tgt)
			procs, err := RenderPD(c.cfg, tgt, defaultPDPorts(p, e))
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("RenderPD = %v; want a refusal mentioning %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, pr := range procs {
				all = append(all, pr.Command.Shell())
			}
			if got := strings.Join(all, "\n"); !strings.Contains(got, c.want) {
				t.Fatalf("deployment lacks %q:\n%s", c.want, got)
			}
		})
	}
}

// The target's extra_args stay after the role flags and before the
// listen flags, as on one server: a user's override wins.
func TestRenderPDExtraArgs(t *testing.T) {
	tgt := pdTarget("sglang", "")
	tgt.Engines["sglang"] = space.EngineTarget{ExtraArgs: []string{"--page-size=64"}}
	cfg := space.Config{KnobDisaggregation: Disaggregated, KnobPrefillInstances: int64(1), KnobDecodeInstances: int64(1)}
	got := renderPDText(t, cfg, tgt)
	if !strings.Contains(got, "--disaggregation-bootstrap-port=8998 --page-size=64 --host=127.0.0.1 --port=30001") {
		t.Fatalf("extra_args misplaced:\n%s", got)
	}
}

func TestDocsShowPDGoldens(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "engines.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pdCases {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", "pd-"+c.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(b)) {
			t.Errorf("docs/engines.md does not show pd-%s.txt", c.name)
		}
	}
}
