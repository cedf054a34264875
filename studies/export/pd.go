package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// routerLoad bounds a router's startup: it loads no model.
const routerLoad = 5 * time.Minute

// NewPD plans a disaggregated trial's deployment: one Plan per process
// (prefill servers, decode servers, then the router), each its own
// Deployment and Service named <trial>-<process>, every server bound to
// all interfaces and reached by the router at its Service's name.
func NewPD(sp *space.Space, t store.Trial, o Options) ([]Plan, error) {
	if err := holds(t, o); err != nil {
		return nil, err
	}
	d, f, refused, err := deploy(sp, t, o)
	if err != nil {
		return nil, err
	}
	if d.PD == nil {
		return nil, fmt.Errorf("trial %d is not a disaggregated %s deployment", t.Number, d.Name)
	}
	if refused != nil {
		return nil, refused
	}
	return planPD(sp, t, o, d, f)
}

// planPD is every process's Plan, each server bound to all interfaces
// and dialled by the router at its Service's name.
func planPD(sp *space.Space, t store.Trial, o Options, d engines.Deployed, f facts) ([]Plan, error) {
	d.Target.Host = "0.0.0.0"
	procs, err := d.On(engines.PDPorts{Dial: serviceNames(sp.Study.Name, t.Number, *d.PD)})
	if err != nil {
		return nil, fmt.Errorf("trial %d: %w", t.Number, err)
	}
	eng := d.Name
	gpu := studies.TargetDevice(sp.Target, []string{eng}) == "gpu"
	plans := make([]Plan, len(procs))
	for i, pr := range procs {
		plans[i] = processPlan(sp, t, eng, f, pr, gpu)
		plans[i].Sizing = sizeOf(sp, t, o, plans[i].GPUs > 0)
		// One copy of each process: replicating a disaggregated
		// deployment means replicating its pools and router together.
		plans[i].Replicas = 1
		plans[i].ReplicasWhy = "1 replica: a disaggregated deployment is one set of prefill and decode servers behind one router; servetune exports one set and does not size the pools for [target] traffic_rps"
		if o.Image != "" {
			plans[i].Image = o.Image
		}
	}
	placeServers(plans, sp.Target, o)
	if eng == engines.VLLM {
		vllmRouter(plans, sp.Target, o)
	}
	return plans, nil
}

// serviceNames are the servers' Service names, prefill first: where the
// router dials them.
func serviceNames(study string, trial int, pd engines.PD) []string {
	var out []string
	for _, role := range []struct {
		name string
		n    int
	}{{engines.RolePrefill, pd.PrefillCount}, {engines.RoleDecode, pd.DecodeCount}} {
		for i := 0; i < role.n; i++ {
			out = append(out, processName(study, trial, fmt.Sprintf("%s-%d", role.name, i)))
		}
	}
	return out
}

// processPlan is one process's container: its whole command, its own
// GPUs, its port and the ports its peers dial.
func processPlan(sp *space.Space, t store.Trial, eng string, f facts, pr engines.PDProcess, gpu bool) Plan {
	env := map[string]string{}
	for k, v := range pr.Command.Env {
		env[k] = v
	}
	p := Plan{Study: sp.Study.Name, Trial: t.Number, Name: processName(sp.Study.Name, t.Number, pr.Name()), Engine: eng,
		Image: f.image(imageVersion(sp.Target, eng)), Port: pr.Port, Argv: pr.Command.Argv, Env: env,
		Load: f.load, Cache: f.cache, HFToken: f.hfHome, PeerPorts: pr.PeerPorts, HostEnv: pr.HostEnv, Role: pr.Role}
	if len(pr.Probes) > 0 {
		p.Health = pr.Probes[0]
	}
	if pr.Role == engines.RoleRouter {
		p.Load, p.HFToken = routerLoad, false
	} else {
		p.Claim = CacheClaim + "-" + pr.Name() // placeServers may share one
	}
	if gpu {
		p.GPUs = pr.GPUs
	}
	return p
}

// processName is name's DNS-1035 label with the process's name after
// the trial's.
func processName(study string, trial int, process string) string {
	base := name(study, trial)
	suffix := "-" + process
	if len(base)+len(suffix) > 63 {
		cut := strings.LastIndex(base, "-trial-")
		keep := max(1, 63-len(suffix)-(len(base)-cut))
		base = strings.TrimRight(base[:min(keep, cut)], "-") + base[cut:]
	}
	return base + suffix
}

// KubernetesPD is the manifest of a whole deployment: each model cache
// claim once (ReadWriteMany when the servers share one), then each
// process's Deployment and Service.
func KubernetesPD(plans []Plan) ([]byte, error) {
	return encodeManifest(header(plans), pdDocs(plans))
}

// pdDocs are a disaggregated deployment's documents.
func pdDocs(plans []Plan) []any {
	var docs []any
	seen := map[string]int{}
	for _, p := range plans {
		if p.Claim != "" {
			seen[p.Claim]++
		}
	}
	for _, p := range plans {
		if n := seen[p.Claim]; n > 0 {
			access := "ReadWriteOnce"
			if n > 1 {
				access = "ReadWriteMany"
			}
			docs = append(docs, cacheClaim(p.Claim, access))
			seen[p.Claim] = 0
		}
	}
	for _, p := range plans {
		docs = append(docs, deployment(p), service(p))
	}
	return docs
}

// peerPorts are the Service ports other processes dial besides http.
func peerPorts(p Plan) []obj {
	var out []obj
	for i, port := range p.PeerPorts {
		out = append(out, obj{"name": "peer-" + strconv.Itoa(i), "port": port, "targetPort": port})
	}
	return out
}
