package engines

import (
	"fmt"
	"net"

	"github.com/servetune/servetune/space"
)

// Placement is where a multi-node trial runs: one host per rank, the head
// (rank 0, which serves HTTP) first, and the port on the head where the
// ranks meet (SGLang's dist-init address, vLLM's master or DP RPC port).
type Placement struct {
	Hosts []string
	Port  int
}

// Rank is one node's share of a multi-node trial: its engine command
// without the launch prefix or the listen flags (only the serving rank
// gets those).
type Rank struct {
	Rank    int
	Host    string
	Command Command
	// Serves is true for the one rank that answers HTTP: rank 0.
	Serves bool
}

// Nodes is how many nodes cfg needs: its GPUs (GPUs) over the target's
// GPUs per node, rounded up; 1 when it fits one node.
func Nodes(cfg space.Config, t space.Target) int { return nodes(GPUs(cfg, t), t) }

// nodes is how many of t's nodes gpus GPUs fill.
func nodes(gpus int, t space.Target) int {
	per := t.NodeGPUs()
	return max(1, (gpus+per-1)/per)
}

// multiNode is an engine that can spread one server over several nodes.
type multiNode interface {
	// rankArgs returns each rank's extra arguments, rank 0 first, for a
	// config spread over s.nodes nodes; a split the engine cannot run is
	// an *Failure of class InvalidConfig.
	rankArgs(cfg space.Config, v Version, s spread) ([][]string, error)
}

// spread is the shape of a multi-node trial an adapter renders.
type spread struct {
	nodes    int
	perNode  int    // GPUs per node
	head     string // HEAD:PORT
	headHost string
	port     int
}

// RenderRanks renders the exact command of every rank of cfg's trial
// placed on p: Render's command plus the engine's multi-node flags. A
// config that fits one node is one serving rank with Render's command;
// one that needs more nodes than p has, or an engine that cannot run
// across nodes, is an *Failure of class InvalidConfig. Pure, so reports
// and `servetune command` show what ran.
func RenderRanks(cfg space.Config, t space.Target, p Placement) ([]Rank, error) {
	d, err := Deploy(cfg, t)
	if err != nil {
		return nil, err
	}
	return d.Ranks(p)
}

// Nodes is how many nodes the deployment needs (Nodes).
func (d Deployed) Nodes() int { return nodes(d.GPUs, d.Target) }

// Ranks is RenderRanks of one server already deployed.
func (d Deployed) Ranks(p Placement) ([]Rank, error) {
	cfg, t, c, name := d.Config, d.Target, d.Command, d.Name
	if d.PD != nil {
		return nil, invalid("a disaggregated (disaggregation = %q) config is several servers and a router: RenderPD renders each", Disaggregated)
	}
	n := d.Nodes()
	if n == 1 {
		return []Rank{{Host: first(p.Hosts), Command: c, Serves: true}}, nil
	}
	if n > len(p.Hosts) {
		return nil, invalid("%s: the config needs %d GPUs, %d nodes of %d (target.gpus_per_node), and target.nodes lists %d",
			name, d.GPUs, n, t.NodeGPUs(), len(p.Hosts))
	}
	mn, ok := d.Engine.(multiNode)
	if !ok {
		return nil, invalid("%s", noMultiNode(name, d.GPUs, t.NodeGPUs()))
	}
	v, _ := ParseVersion(t.Engines[name].Version) // Render checked it
	head := p.Hosts[0]
	args, err := mn.rankArgs(cfg, v, spread{nodes: n, perNode: t.NodeGPUs(), head: net.JoinHostPort(head, itoa(p.Port)), headHost: head, port: p.Port})
	if err != nil {
		return nil, err
	}
	extra := len(t.Engines[name].ExtraArgs)
	ranks := make([]Rank, n)
	for i := range ranks {
		rc := c
		base := c.Argv[:len(c.Argv)-extra]
		// The target's extra_args stay last, as on one node: a user's
		// override wins.
		rc.Argv = append(append(append([]string(nil), base...), args[i]...), c.Argv[len(c.Argv)-extra:]...)
		ranks[i] = Rank{Rank: i, Host: p.Hosts[i], Command: rc, Serves: i == 0}
	}
	return ranks, nil
}

// noMultiNode explains why an engine without multi-node rendering
// refuses a config larger than a node.
func noMultiNode(name string, gpus, perNode int) string {
	why := "servetune renders multi-node commands for sglang and vllm only"
	switch name {
	case TRTLLM:
		// tensorrt_llm/commands/serve.py: across nodes trtllm-serve runs
		// under mpirun (or trtllm-llmapi-launch under srun), one MPI world
		// servetune does not start.
		why = "trtllm-serve spans nodes only under mpirun/trtllm-llmapi-launch, which servetune does not launch"
	case Ollama:
		why = "ollama serves from one machine"
	}
	return fmt.Sprintf("%s: the config needs %d GPUs, more than one node's %d (target.gpus_per_node), and %s", name, gpus, perNode, why)
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}
