package launch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// The router answering /health is not ready until it lists every
// server the deployment rendered: on /workers, or on /list_workers when
// /workers is not found (routers before 2025-10-22).
func TestAllProbeWaitsForRoster(t *testing.T) {
	cfg := space.Config{engines.KnobDisaggregation: engines.Disaggregated, engines.KnobPrefillInstances: int64(2), engines.KnobDecodeInstances: int64(1)}
	procs, err := engines.RenderPD(cfg, space.Target{Model: "org/model", Engine: engines.SGLang, Engines: map[string]space.EngineTarget{engines.SGLang: {Version: "0.5.6"}}}, engines.PDPorts{})
	if err != nil {
		t.Fatal(err)
	}
	router := procs[len(procs)-1]
	if router.Roster == nil || len(router.Roster.URLs) != 3 {
		t.Fatalf("router roster %+v, want the 3 server URLs", router.Roster)
	}
	urls := router.Roster.URLs
	for _, c := range []struct {
		name, path, before, after string
	}{
		{"/workers", "/workers", `{"workers":[],"total":0}`,
			`{"workers":[{"url":"` + urls[0] + `","is_healthy":true},{"url":"` + urls[1] + `","is_healthy":true},{"url":"` + urls[2] + `","is_healthy":true}]}`},
		{"/list_workers", "/list_workers", `{"urls":[]}`, `{"urls":["` + urls[0] + `","` + urls[1] + `","` + urls[2] + `"]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			listed := c.before
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/health":
				case c.path:
					_, _ = w.Write([]byte(listed))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			probe := allProbe(srv.Client(), []readyTarget{{base: srv.URL, paths: router.Probes, roster: router.Roster}}, time.Second)
			if probe(context.Background()) {
				t.Fatal("ready before the router lists its servers")
			}
			listed = c.after
			if !probe(context.Background()) {
				t.Fatal("not ready once the router lists every server")
			}
		})
	}
}
