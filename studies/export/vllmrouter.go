package export

import (
	"strconv"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// vLLM's PD router in an export. The trial ran the proxy vLLM's NixlConnector
// guide documents, tests/v1/kv_connector/nixl_integration/toy_proxy_server.py:
// a test-tree script that vLLM's images do not ship. A deployment gets
// vLLM's production router instead, vllm-project/router (PyPI
// vllm-router), whose NIXL mode takes the servers' URLs
// (docs/model-routing/pd-disaggregation.md: --vllm-pd-disaggregation,
// --prefill URL, --decode URL, --host, --port). It publishes no image:
// an init container installs the pinned release into a volume the
// router's container (the servers' pinned vLLM image) runs it from.
const (
	// VLLMRouterPackage is the router's release the export installs.
	VLLMRouterPackage = "vllm-router==0.1.17"
	// vllmRouterDir is where the init container installs it.
	vllmRouterDir = "/opt/vllm-router"
)

// vllmRouter replaces a vLLM deployment's router command by vLLM's
// production router dialling the servers' Services, unless the target
// names its own router program (target.engines.vllm.router) or the
// export names the router's image (then that image's vllm-router runs).
func vllmRouter(plans []Plan, t space.Target, o Options) {
	if len(t.Engines[engines.VLLM].Router) > 0 {
		return
	}
	r := &plans[len(plans)-1]
	argv := []string{"python3", "-m", "vllm_router.launch_router", "--vllm-pd-disaggregation"}
	if o.RouterImage != "" {
		argv = []string{"vllm-router", "--vllm-pd-disaggregation"}
		r.Image = o.RouterImage
	}
	for _, p := range plans[:len(plans)-1] {
		flag := "--decode"
		if p.Role == engines.RolePrefill {
			flag = "--prefill"
		}
		argv = append(argv, flag, "http://"+p.Name+":"+strconv.Itoa(p.Port))
	}
	r.Argv = append(argv, "--host", "0.0.0.0", "--port", strconv.Itoa(r.Port))
	r.Health = "" // the port answers once it routes
	if o.RouterImage == "" {
		r.Install = []string{"python3", "-m", "pip", "install", "--no-cache-dir", "--target", vllmRouterDir, VLLMRouterPackage}
		r.InstallDir = vllmRouterDir
		r.Env["PYTHONPATH"] = vllmRouterDir
	}
}
