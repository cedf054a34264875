package engines

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func rankTarget(engine, version string, perNode int) space.Target {
	return space.Target{Model: "org/model", Engine: engine, GPUsPerNode: perNode,
		Engines: map[string]space.EngineTarget{engine: {Version: version}}}
}

// rankCases are the per-node commands of trials larger than a node,
// pinned byte for byte in testdata/golden/ranks-*.txt (and shown in
// docs/engines.md).
var rankCases = []struct {
	name, engine, version string
	hosts                 []string
	cfg                   space.Config
}{
	{"sglang-dp-attention-16", "sglang", "", []string{"gpu01", "gpu02"}, space.Config{KnobTP: int64(16), KnobDP: int64(16),
		KnobEnableDPAttention: true, KnobEP: int64(16), KnobMoEA2ABackend: "deepep", KnobMemFraction: 0.8}},
	{"vllm-dp-2x8", "vllm", "", []string{"gpu01", "gpu02"}, space.Config{KnobTP: int64(4), KnobDP: int64(4), KnobEP: int64(16)}},
	{"vllm-tp-16", "vllm", "0.11.1", []string{"gpu01", "gpu02"}, space.Config{KnobTP: int64(16), KnobMemFraction: 0.9}},
}

func TestRenderRanksGolden(t *testing.T) {
	for _, c := range rankCases {
		t.Run(c.name, func(t *testing.T) {
			ranks, err := RenderRanks(c.cfg, rankTarget(c.engine, c.version, 8), Placement{Hosts: c.hosts, Port: 29500})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, r := range ranks {
				serves := ""
				if r.Serves {
					serves = ", serves HTTP"
				}
				fmt.Fprintf(&b, "# rank %d on %s%s\n%s\n", r.Rank, r.Host, serves, r.Command.Shell())
			}
			golden(t, filepath.Join("testdata", "golden", "ranks-"+c.name+".txt"), b.String())
		})
	}
}

func TestNodes(t *testing.T) {
	for _, c := range []struct {
		engine  string
		cfg     space.Config
		perNode int
		want    int
	}{
		{"vllm", space.Config{KnobTP: int64(8)}, 0, 1},
		{"vllm", space.Config{KnobTP: int64(8), KnobDP: int64(2)}, 0, 2},
		{"vllm", space.Config{KnobTP: int64(4), KnobDP: int64(3)}, 8, 2},
		{"vllm", space.Config{KnobTP: int64(4)}, 2, 2},
		{"sglang", space.Config{KnobTP: int64(16), KnobDP: int64(16), KnobEnableDPAttention: true}, 8, 2},
		{"sglang", space.Config{KnobTP: int64(16), KnobDP: int64(2)}, 8, 4},
		{"vllm", space.Config{}, 8, 1},
	} {
		if got := Nodes(c.cfg, rankTarget(c.engine, "", c.perNode)); got != c.want {
			t.Errorf("Nodes(%s %v, %d per node) = %d, want %d", c.engine, c.cfg, c.perNode, got, c.want)
		}
	}
}

// TestMultiNodeGates: what each release can spread over nodes, and the
// refusals, each naming why (release and source in the adapters).
func TestMultiNodeGates(t *testing.T) {
	two := []string{"a", "b"}
	for _, c := range []struct {
		name, engine, version string
		hosts                 []string
		cfg                   space.Config
		want                  string // in rank 1's command, or
		refused               string // in the error
	}{
		{"vllm 0.11.0: tp across nodes needs Ray", "vllm", "0.11.0", two, space.Config{KnobTP: int64(16)}, "",
			"vllm 0.11.0 cannot run tp=16 across nodes without Ray: --nnodes/--node-rank/--master-addr arrived in 0.11.1"},
		{"vllm 0.11.1 arg_utils.py: --nnodes", "vllm", "0.11.1", two, space.Config{KnobTP: int64(16)},
			"--tensor-parallel-size=16 --nnodes=2 --node-rank=1 --master-addr=a --master-port=29500 --headless", ""},
		{"vllm 0.11.0 arg_utils.py: data parallel over nodes", "vllm", "0.11.0", two, space.Config{KnobTP: int64(8), KnobDP: int64(2)},
			"--headless --data-parallel-size-local=1 --data-parallel-start-rank=1 --data-parallel-address=a --data-parallel-rpc-port=29500", ""},
		{"vllm: uneven data parallel", "vllm", "", two, space.Config{KnobTP: int64(4), KnobDP: int64(3)}, "", "dp=3 replicas of tp=4 do not split evenly over 2 nodes"},
		{"sglang server_args.py: multi-node DP needs DP attention", "sglang", "", []string{"a", "b", "c", "d"}, space.Config{KnobTP: int64(16), KnobDP: int64(2)}, "",
			"dp=2 across 4 nodes needs enable_dp_attention"},
		{"sglang: tp=12 over two nodes of 8", "sglang", "0.5.6", two, space.Config{KnobTP: int64(12)}, "--tp-size=12 --nnodes=2 --node-rank=1 --dist-init-addr=a:29500", ""},
		{"sglang: tp=9 cannot split over two nodes", "sglang", "", two, space.Config{KnobTP: int64(9)}, "", "tp=9 does not split evenly over 2 nodes of 8 GPUs"},
		{"trtllm serve.py: mpirun is not launched", "trtllm", "", two, space.Config{KnobTP: int64(16)}, "", "only under mpirun/trtllm-llmapi-launch"},
		{"more nodes than listed", "vllm", "", two, space.Config{KnobTP: int64(8), KnobDP: int64(3)}, "",
			"the config needs 24 GPUs, 3 nodes of 8 (target.gpus_per_node), and target.nodes lists 2"},
		{"no nodes at all", "sglang", "", nil, space.Config{KnobTP: int64(16)}, "", "target.nodes lists 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ranks, err := RenderRanks(c.cfg, rankTarget(c.engine, c.version, 8), Placement{Hosts: c.hosts, Port: 29500})
			if c.refused != "" {
				f, ok := AsFailure(err)
				if !ok || f.Class != InvalidConfig || !strings.Contains(f.Message, c.refused) {
					t.Fatalf("err = %v, want invalid_config with %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ranks) < 2 || !strings.Contains(ranks[1].Command.Shell(), c.want) || ranks[1].Serves || !ranks[0].Serves {
				t.Fatalf("ranks %+v, want rank 1 with %q", ranks, c.want)
			}
		})
	}
}

// A trial that fits one node renders as it always did: one serving rank
// with Render's command, extra_args last.
func TestRenderRanksOneNode(t *testing.T) {
	tgt := rankTarget("vllm", "", 8)
	tgt.Engines["vllm"] = space.EngineTarget{ExtraArgs: []string{"--seed=1"}}
	cfg := space.Config{KnobTP: int64(8)}
	want, _ := Render(cfg, tgt)
	ranks, err := RenderRanks(cfg, tgt, Placement{})
	if err != nil || len(ranks) != 1 || !ranks[0].Serves || ranks[0].Command.Shell() != want.Shell() {
		t.Fatalf("ranks %+v, %v; want one serving rank running %s", ranks, err, want.Shell())
	}
	tgt.Nodes = []string{"a", "b"}
	ranks, err = RenderRanks(space.Config{KnobTP: int64(8), KnobDP: int64(2)}, tgt, Placement{Hosts: tgt.Nodes, Port: 1})
	if err != nil || !strings.HasSuffix(ranks[1].Command.Shell(), "--data-parallel-rpc-port=1 --seed=1") {
		t.Fatalf("ranks %+v, %v; want extra_args after the rank flags", ranks, err)
	}
}

// TestDocsShowTheRankGoldens: docs/engines.md shows the rendered
// multi-node commands as they are, not as they were.
func TestDocsShowTheRankGoldens(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "engines.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rankCases {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", "ranks-"+c.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(b)) {
			t.Errorf("docs/engines.md does not show ranks-%s.txt", c.name)
		}
	}
}
