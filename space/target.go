package space

import (
	"slices"
	"strings"
	"time"

	"github.com/servetune/servetune/cost"
)

// Defaults of [target] keys that Parse applies when the file omits them.
const (
	DefaultStallTimeout      = 2 * time.Minute
	DefaultMaxFailedFraction = 0.01
	// DefaultGPUsPerNode is an HGX/DGX node's GPU count.
	DefaultGPUsPerNode = 8
)

// Target says what is being tuned and how trials run: the model, the GPUs,
// and for each engine how to start it. Engines read it to render commands;
// the simulator reads model and GPU.
type Target struct {
	// Runner is "sim" (the built-in simulator, in-process; default) or
	// "process" (launch the real engine binary for every trial).
	Runner string `toml:"runner" json:"runner"`
	Model  string `toml:"model" json:"model"`
	// ServedModelName is the name clients send; default Model.
	ServedModelName string `toml:"served_model_name" json:"served_model_name,omitempty"`
	GPU             string `toml:"gpu" json:"gpu"`
	GPUs            int    `toml:"gpus" json:"gpus"`
	// GPUsPerTrial is an expression over the knobs (or a number) giving
	// how many GPUs a trial occupies, when the engine's own count (tp ×
	// dp, with the engines' exceptions) is wrong; packing and GPU-hours
	// use it (Target.TrialGPUs).
	GPUsPerTrial string `toml:"gpus_per_trial" json:"gpus_per_trial,omitempty"`
	// Engine is the engine when the space has no `engine` knob.
	Engine string `toml:"engine" json:"engine,omitempty"`
	// Host the engine binds to; default 127.0.0.1.
	Host string `toml:"host" json:"host,omitempty"`
	// Prefix goes before every engine's argv (a virtualenv's python,
	// `docker run --gpus all --network host IMAGE`, `srun ...`).
	Prefix []string          `toml:"prefix" json:"prefix,omitempty"`
	Env    map[string]string `toml:"env" json:"env,omitempty"`
	// StartupTimeout bounds launch → ready; default 30m.
	StartupTimeout time.Duration `toml:"startup_timeout" json:"startup_timeout,omitempty"`
	// StallTimeout fails a request on which no byte arrived for this long
	// while it was open; Parse sets DefaultStallTimeout when absent.
	StallTimeout time.Duration `toml:"stall_timeout" json:"stall_timeout,omitempty"`
	// TrialTimeout bounds one whole trial; 0 means derived by the study:
	// max(30m, 3× the profiles' expected duration).
	TrialTimeout time.Duration `toml:"trial_timeout" json:"trial_timeout,omitempty"`
	// MaxFailedFraction is the fraction of failed requests above which a
	// trial fails (class bench_failed); Parse sets
	// DefaultMaxFailedFraction when absent, so a Target built in code must
	// set it itself.
	MaxFailedFraction float64 `toml:"max_failed_fraction" json:"max_failed_fraction,omitempty"`
	// Engines holds per-engine settings keyed by engine name.
	Engines map[string]EngineTarget `toml:"engines" json:"engines,omitempty"`
	// Declared are the engines the space declares ([engines.<name>], its
	// includes and --engines files), by name; set by Parse.
	Declared map[string]EngineDecl `toml:"-" json:"declared,omitempty"`
	// Nodes are the hosts a trial that needs more GPUs than one node has
	// runs on, one rank per host, the first being the head (rank 0, which
	// serves HTTP). Hostlist expressions ("gpu[01-02]") are expanded by
	// Parse. Empty: every trial runs on one node, as before.
	Nodes []string `toml:"nodes" json:"nodes,omitempty"`
	// NodeLaunch is the argv prefix that runs a rank on its host, with
	// "{host}" replaced by the host (["ssh", "{host}"], ["srun",
	// "--nodes=1", "--ntasks=1", "-w", "{host}"]); empty runs every rank
	// on this machine.
	NodeLaunch []string `toml:"node_launch" json:"node_launch,omitempty"`
	// GPUsPerNode is how many GPUs one node has; 0 means
	// DefaultGPUsPerNode (see NodeGPUs).
	GPUsPerNode int `toml:"gpus_per_node" json:"gpus_per_node,omitempty"`
	// Sim tunes the built-in simulator (noise, speed); ignored by real runs.
	Sim SimTarget `toml:"sim" json:"sim,omitempty"`
	// Prices is the user's price file (package cost), resolved against
	// the space file's directory; PriceList is its content, read and
	// checked at load. With it every trial gets the cost metrics.
	Prices    string       `toml:"prices" json:"prices,omitempty"`
	PriceList *cost.Prices `toml:"-" json:"price_list,omitempty"`
	// TrafficRPS is the request rate the deployment must serve: with a
	// profile that measures max_rate_under_slo, each trial gets the
	// replicas and GPUs that serve it (replicas, gpus_total), and
	// usd_per_hour becomes the whole deployment's. 0: not given.
	TrafficRPS float64 `toml:"traffic_rps" json:"traffic_rps,omitempty"`
	// NodeSelector is, by GPU type (target.gpu or a gpu knob value), the
	// node labels a Kubernetes export pins that type's pods to, replacing
	// the default (GPU Feature Discovery's nvidia.com/gpu.product); an
	// empty table pins none. Where a trial deploys, not what it measured:
	// not part of the space's fingerprint.
	NodeSelector map[string]map[string]string `toml:"node_selector" json:"node_selector,omitempty"`
	// SimulatedGPUs are the gpu knob's values a real runner's study does
	// not own: their trials run on the simulator (RunnerOf), on the cards
	// the prior predicts with, while target.gpu's are measured. Empty: no
	// type is simulated but by runner = "sim".
	SimulatedGPUs []string `toml:"simulated_gpus" json:"simulated_gpus,omitempty"`
}

// NodeSelectorOf is the node selector [target.node_selector] gives GPU
// type gpu, its name compared without case; ok is false when it gives
// none.
func (t Target) NodeSelectorOf(gpu string) (sel map[string]string, ok bool) {
	for k, v := range t.NodeSelector {
		if strings.EqualFold(k, gpu) {
			return v, true
		}
	}
	return nil, false
}

// KnobGPU is the knob that makes the GPU type a searched dimension: its
// value replaces Target.GPU for the trial (GPUOf). Engines render no flag
// for it: a real deployment picks the node type, not an argument.
const KnobGPU = "gpu"

// GPUOf is the GPU type config c runs on: its gpu knob when it has one,
// else the target's gpu.
func (t Target) GPUOf(c Config) string {
	if c.Has(KnobGPU) {
		return c.String(KnobGPU)
	}
	return t.GPU
}

// RunnerOf is what measures config c: "sim" when its GPU type is one the
// target simulates (SimulatedGPUs), else the target's runner. It is the
// one decision of where a trial runs: the study records it with the
// trial and the runner routes the trial by it.
func (t Target) RunnerOf(c Config) string {
	if t.Simulates(t.GPUOf(c)) {
		return "sim"
	}
	return t.Runner
}

// Simulates reports whether GPU type gpu runs on the simulator while the
// target's runner is a real one: gpu is one of SimulatedGPUs.
func (t Target) Simulates(gpu string) bool {
	return t.Runner != "sim" && slices.Contains(t.SimulatedGPUs, gpu)
}

// EngineTarget is how to start one engine.
type EngineTarget struct {
	// Command replaces the engine's default program and subcommand
	// (e.g. ["/opt/venv/bin/python3", "-m", "sglang.launch_server"]).
	Command []string `toml:"command" json:"command,omitempty"`
	// Router replaces the program of the router in front of a
	// disaggregated deployment (e.g. ["/opt/venv/bin/python3", "-m",
	// "sglang_router.launch_router"], or the simulator's).
	Router []string `toml:"router" json:"router,omitempty"`
	// Version selects flag spellings that changed between releases.
	Version   string            `toml:"version" json:"version,omitempty"`
	Env       map[string]string `toml:"env" json:"env,omitempty"`
	ExtraArgs []string          `toml:"extra_args" json:"extra_args,omitempty"`
}

// SimTarget configures the built-in simulator.
type SimTarget struct {
	// NoiseCV is the coefficient of variation of measurement noise (0 = none).
	NoiseCV float64 `toml:"noise_cv" json:"noise_cv,omitempty"`
	// Cards is a file of simulator cards ([[model]], [[gpu]]; `servetune
	// card` writes one) over the built-in ones, resolved against the space
	// file's directory. The simulator, the prior and calibrate read it.
	// Not part of the space's fingerprint: a study stores the cards'
	// content and compares that on resume.
	Cards string `toml:"cards" json:"-"`
	// CardsSource is the cards file's text as a study stored it; set by
	// the commands that read a study, and used instead of the file.
	CardsSource string `toml:"-" json:"-"`
}

// ServedName is the model name clients send.
func (t Target) ServedName() string {
	if t.ServedModelName != "" {
		return t.ServedModelName
	}
	return t.Model
}

// NodeGPUs is how many GPUs one node of the target has.
func (t Target) NodeGPUs() int {
	if t.GPUsPerNode > 0 {
		return t.GPUsPerNode
	}
	return DefaultGPUsPerNode
}
