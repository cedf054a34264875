package export

import (
	"time"

	"github.com/servetune/servetune/engines"
)

// facts is what deploying one engine needs beyond its serving command,
// as its adapter answers it (engines.Deployed: Port, Health; the
// adapter's Image and Deployment), declared engines' included.
type facts struct {
	image func(version string) string
	port  int
	// health answers 200 once the engine serves; "" probes the port.
	health  string
	cache   string
	hfHome  bool
	bindEnv string
	load    time.Duration
}

// deployedFacts are what the deployment's adapter says: its image,
// cache and binding, the port it serves on when nothing picks one and its
// plain-GET health path (engines.Deployed), so a declared engine deploys
// on its declared port and is probed as the launcher probes it — never by
// a path its readiness rule does not answer (a log line, a status or a
// JSON field: Kubernetes probes the TCP port instead).
func deployedFacts(d engines.Deployed) facts {
	dep := d.Engine.Deployment()
	return facts{image: d.Engine.Image, port: d.Port, health: d.Health,
		cache: dep.Cache, hfHome: dep.HFToken, bindEnv: dep.BindEnv, load: dep.Load}
}
