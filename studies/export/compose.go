package export

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// ComposeNetwork is the network a disaggregated deployment's services
// share: each reaches the others at their service names, which are the
// names the router's command dials.
const ComposeNetwork = "servetune"

// ComposePD is a Docker Compose file (`docker compose up`) running a
// disaggregated deployment on one host of the target (its node's GPUs,
// sim.NodeSize): a service per
// server with its own GPUs (devices handed out in order, prefill first,
// as the trial's servers held them) and the host's model cache, and the
// router, publishing its port, started after them (and after the
// one-shot service installing its program, where the image lacks it:
// vLLM's router). A deployment that
// needs more GPUs than the host has is refused: it spans nodes, which
// the Kubernetes export places.
func ComposePD(plans []Plan, t space.Target) ([]byte, error) {
	hostGPUs := sim.NodeSize(t)
	need := 0
	for _, p := range plans {
		need += p.GPUs
	}
	if hostGPUs > 0 && need > hostGPUs {
		return nil, fmt.Errorf("the disaggregated deployment needs %d GPUs, one host of the target has %d (target.gpus_per_node): --export k8s places it over nodes", need, hostGPUs)
	}
	services, volumes := obj{}, obj{}
	after := obj{}
	next := 0
	for _, p := range plans {
		if len(p.Files) > 0 {
			return nil, fmt.Errorf("%s: a disaggregated process with generated files has no compose form", p.Name)
		}
		s := composeService(p)
		if p.Role == engines.RoleRouter {
			s["ports"] = []string{strconv.Itoa(p.Port) + ":" + strconv.Itoa(p.Port)}
			if len(p.Install) > 0 {
				vol := p.Name + "-install"
				services[vol] = obj{"image": p.Image, "entrypoint": p.Install[:1], "command": p.Install[1:],
					"volumes": []string{vol + ":" + p.InstallDir}, "networks": []string{ComposeNetwork}, "restart": "no"}
				volumes[vol] = obj{}
				s["volumes"] = []string{vol + ":" + p.InstallDir}
				after[vol] = obj{"condition": "service_completed_successfully"}
			}
			s["depends_on"] = after
		} else {
			after[p.Name] = obj{"condition": "service_started"}
			if p.GPUs > 0 {
				s["deploy"] = gpuDevices(next, p.GPUs)
				next += p.GPUs
			}
		}
		services[p.Name] = s
	}
	return encodeManifest(nil, []any{obj{"name": name(plans[0].Study, plans[0].Trial),
		"services": services, "networks": obj{ComposeNetwork: obj{}}, "volumes": volumes}})
}

// composeService is one process's container: its argv as entrypoint and
// command (no shell), its environment (HF_TOKEN by name, taken from the
// caller's, never by value; the peers' address variable set to its
// service name), on the shared network. Servers get the host's IPC
// namespace (tensor-parallel workers share memory) and model cache.
func composeService(p Plan) obj {
	env := []string{}
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		env = append(env, k+"="+p.Env[k])
	}
	if p.HostEnv != "" {
		env = append(env, p.HostEnv+"="+p.Name)
	}
	s := obj{"image": p.Image, "hostname": p.Name, "entrypoint": p.Argv[:1], "command": p.Argv[1:],
		"networks": []string{ComposeNetwork}, "restart": "no"}
	if p.Role != engines.RoleRouter {
		s["ipc"] = "host"
		s["volumes"] = []string{"${HOME}/.cache/" + cacheName(p) + ":" + p.Cache}
	}
	if p.HFToken {
		env = append(env, "HF_TOKEN")
	}
	if len(env) > 0 {
		s["environment"] = env
	}
	return s
}

// gpuDevices reserves n GPUs from first on: "device_ids" as the NVIDIA
// container toolkit numbers them.
func gpuDevices(first, n int) obj {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(first + i)
	}
	return obj{"resources": obj{"reservations": obj{"devices": []obj{{
		"driver": "nvidia", "device_ids": ids, "capabilities": []string{"gpu"}}}}}}
}
