package export

import (
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// facts is what deploying one engine needs beyond its serving command,
// as the engine registry answers it (engines.Engine: DefaultPort, Health,
// Image, Deployment); a declared engine's come from its declaration.
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

// registryFacts are what the registry says of engine e.
func registryFacts(e engines.Engine) facts {
	d := e.Deployment()
	return facts{image: e.Image, port: e.DefaultPort(), health: e.Health(),
		cache: d.Cache, hfHome: d.HFToken, bindEnv: d.BindEnv, load: d.Load}
}

// declaredFacts are a declared engine's: the registry's, with port 8000
// when it declares none and a health probe only where Kubernetes can
// check it — a probe passes on any 2xx/3xx with any body, so only a plain
// "path answers 200" declaration maps onto it.
func declaredFacts(e engines.Engine, d space.EngineDecl) facts {
	f := registryFacts(e)
	if f.port == 0 {
		f.port = 8000
	}
	f.health = ""
	if r := d.Ready; r.Path != "" && r.Field == "" && (r.Status == 0 || r.Status == 200) {
		f.health = r.Path
	}
	return f
}
