package export

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Options are what the user adds to a trial's own record.
type Options struct {
	// Force exports a trial that did not complete (pruned, failed,
	// out of memory): what it measured, if anything, does not hold.
	Force bool
	// Image replaces the engine's official image; a declared engine has
	// none and needs one.
	Image string
	// SharedCache says the cluster's storage class offers ReadWriteMany:
	// every server of a disaggregated deployment mounts one cache claim
	// instead of one ReadWriteOnce claim each.
	SharedCache bool
	// RDMAResource is the extended resource name of the RDMA NICs a
	// server moving KV across nodes requests (DefaultRDMAResource when
	// "").
	RDMAResource string
	// RouterImage replaces the router's image (vLLM's router has no
	// official one).
	RouterImage string
	// NodeSelector is, per GPU type, the node labels that type's pods are
	// pinned to, over [target.node_selector] and the default
	// (ParseNodeSelectors reads them from --node-selector).
	NodeSelector map[string]map[string]string
}

// Plan is one trial's deployment: everything the renderers print.
type Plan struct {
	Study string
	Trial int
	// Name is a DNS-1035 label for the deployment's objects.
	Name   string
	Engine string
	Image  string
	// Port is where the engine listens inside the container.
	Port int
	// GPUs is the trial's own GPU count; 0 on CPU.
	GPUs int
	// Argv binds every interface on Port; Env holds the command's and
	// the binding's variables (never a secret).
	Argv  []string
	Env   map[string]string
	Files map[string]string
	Setup [][]string
	// Health is the path probed for startup, readiness and liveness; ""
	// probes the TCP port.
	Health string
	// Load bounds startup: the time the engine may take to answer.
	Load time.Duration
	// Cache is where the image keeps checkpoints; HFToken says whether
	// the engine downloads from Hugging Face with HF_TOKEN.
	Cache   string
	HFToken bool
	// PeerPorts are ports the other processes of a disaggregated
	// deployment dial besides Port; HostEnv names the variable that must
	// hold this pod's address for them (set from the pod's IP).
	PeerPorts []int
	HostEnv   string
	// Role is the process's part in a disaggregated deployment
	// (engines.RolePrefill, RoleDecode, RoleRouter); "" for one server.
	Role string
	// Claim is the PersistentVolumeClaim holding Cache; "" mounts none
	// (the router loads no model).
	Claim string
	// NodeGroup, when set, names the servers the simulator placed on one
	// node, whose KV moves over NVLink: their pods require each other's
	// node. RDMA is the extended resource of the NICs a server moves KV
	// over to another node (NIXL, Mooncake), "" when it moves none.
	NodeGroup string
	RDMA      string
	// Install, when set, runs first in the same image, into InstallDir
	// (a volume the process's container shares): the program the
	// process runs that the image lacks (vLLM's router).
	Install    []string
	InstallDir string
	// Sizing is how many pods run and on which nodes, with why.
	Sizing
}

// ErrNotComplete refuses a trial whose measurement does not hold.
var ErrNotComplete = errors.New("trial did not complete")

// ErrNoImage refuses a declared engine without --image.
var ErrNoImage = errors.New("no image")

// New plans the deployment of trial t of the study sp when it is one
// server (NewPD plans a disaggregated one; Trial picks).
func New(sp *space.Space, t store.Trial, o Options) (Plan, error) {
	if err := holds(t, o); err != nil {
		return Plan{}, err
	}
	d, f, refused, err := deploy(sp, t, o)
	if err == nil {
		err = refused
	}
	if err != nil {
		return Plan{}, err
	}
	if d.PD != nil {
		return Plan{}, fmt.Errorf("trial %d: %w", t.Number, &engines.Failure{Class: engines.InvalidConfig,
			Message: "a disaggregated (disaggregation = \"pd\") config is several servers and a router: NewPD plans each"})
	}
	return planOne(sp, t, o, d, f), nil
}

// planOne is one server's Plan.
func planOne(sp *space.Space, t store.Trial, o Options, d engines.Deployed, f facts) Plan {
	cmd, eng := d.Command, d.Name
	p := Plan{Study: sp.Study.Name, Trial: t.Number, Name: name(sp.Study.Name, t.Number), Engine: eng,
		Image: f.image(imageVersion(sp.Target, eng)), Files: cmd.Files, Setup: cmd.Setup,
		Health: f.health, Load: f.load, Cache: f.cache, HFToken: f.hfHome, Claim: CacheClaim}
	if o.Image != "" {
		p.Image = o.Image
	}
	if studies.TargetDevice(sp.Target, []string{eng}) == "gpu" {
		p.GPUs = d.GPUs
	}
	p.Sizing = sizeOf(sp, t, o, p.GPUs > 0)
	p.Argv, p.Env, p.Port = bind(d, f)
	return p
}

// holds refuses a trial whose measurement does not hold, unless forced.
func holds(t store.Trial, o Options) error {
	if t.State != store.Complete && !o.Force {
		return fmt.Errorf("trial %d is %s%s: %w; --force exports it anyway", t.Number, t.State, because(t), ErrNotComplete)
	}
	return nil
}

// deploy resolves trial t's config on tgt (engines.Deploy) and what
// deploying its engine needs beyond the command: err for an unknown
// engine or a declared one without --image (a declared engine has no
// official image), refused for the config the engine refuses.
func deploy(sp *space.Space, t store.Trial, o Options) (d engines.Deployed, f facts, refused, err error) {
	tgt := sp.Target
	d, refused = engines.Deploy(sp.WithTargetEngine(t.Config), tgt)
	if d.Engine == nil {
		return d, f, nil, fmt.Errorf("unknown engine %q", d.Name)
	}
	if decl, isDeclared := tgt.Declared[d.Name]; isDeclared && o.Image == "" {
		return d, f, nil, fmt.Errorf("engine %s is declared in the space and has no official image; --image names the one holding %s: %w", d.Name, strings.Join(decl.Command[:1], " "), ErrNoImage)
	}
	if refused != nil {
		refused = fmt.Errorf("trial %d: %w", t.Number, refused)
	}
	return d, deployedFacts(d), refused, nil
}

// bind is the command listening on every interface of the container.
func bind(d engines.Deployed, f facts) ([]string, map[string]string, int) {
	args, env, port := d.Listen("0.0.0.0", f.port)
	for k, v := range d.Command.Env {
		env[k] = v
	}
	if f.bindEnv != "" {
		env[f.bindEnv] = "0.0.0.0:" + strconv.Itoa(port)
	}
	return append(append([]string(nil), d.Command.Argv...), args...), env, port
}

// imageVersion is the release an image is pinned to: the target's
// version of the engine, else the release the command was rendered for
// (engines.RenderedFor), never ":latest", whose flags may have moved on.
func imageVersion(t space.Target, eng string) string {
	if v := t.Engines[eng].Version; v != "" && v != "latest" {
		return v
	}
	return engines.RenderedFor(eng)
}

func because(t store.Trial) string {
	switch {
	case t.Failure != nil:
		return " (" + string(t.Failure.Class) + ")"
	case t.Reason != "":
		return " (" + t.Reason + ")"
	}
	return ""
}

// name is a DNS-1035 label (Services need one): lower case, letters,
// digits and '-', starting with a letter, at most 63 characters.
func name(study string, trial int) string {
	s := strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, strings.ToLower(study))
	s = strings.Trim(s, "-")
	switch {
	case s == "":
		s = "study"
	case s[0] < 'a':
		s = "study-" + s
	}
	suffix := "-trial-" + strconv.Itoa(trial)
	if len(s)+len(suffix) > 63 {
		s = strings.TrimRight(s[:63-len(suffix)], "-")
	}
	return s + suffix
}
