package engines

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
)

func TestRosterSees(t *testing.T) {
	sg := Roster{URLs: []string{"http://127.0.0.1:30000", "http://127.0.0.1:30001"}}
	vl := Roster{Prefill: 1, Decode: 2}
	w := func(url string, healthy bool) string {
		return fmt.Sprintf(`{"id":%q,"url":%q,"worker_type":"prefill","is_healthy":%v}`, url, url, healthy)
	}
	for _, c := range []struct {
		name string
		r    Roster
		body string
		want bool
	}{
		{"sglang /workers: every server healthy", sg, `{"workers":[` + w("http://127.0.0.1:30001", true) + `,` + w("http://127.0.0.1:30000", true) + `],"total":2}`, true},
		{"sglang /workers: registered, not yet healthy", sg, `{"workers":[` + w("http://127.0.0.1:30001", true) + `,` + w("http://127.0.0.1:30000", false) + `],"total":2}`, false},
		{"sglang /workers: none registered yet", sg, `{"workers":[],"total":0}`, false},
		{"sglang /list_workers: every server listed", sg, `{"urls":["http://127.0.0.1:30001","http://127.0.0.1:30000"]}`, true},
		{"sglang /list_workers: a trailing slash is the same URL", sg, `{"urls":["http://127.0.0.1:30000/","http://127.0.0.1:30001"]}`, true},
		{"sglang /list_workers: none registered yet", sg, `{"urls":[]}`, false},
		{"sglang /list_workers: one server missing", sg, `{"urls":["http://127.0.0.1:30000"]}`, false},
		{"sglang /list_workers: another port is another server", sg, `{"urls":["http://127.0.0.1:30000","http://127.0.0.1:30002"]}`, false},
		{"sglang: not JSON", sg, `ok`, false},
		{"vllm: both counts", vl, `{"status":"ok","prefill_instances":1,"decode_instances":2}`, true},
		{"vllm: a decode server short", vl, `{"status":"ok","prefill_instances":1,"decode_instances":1}`, false},
		{"vllm: counts absent", vl, `{"status":"ok"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.Sees([]byte(c.body)); got != c.want {
				t.Fatalf("Sees(%s) = %v, want %v", c.body, got, c.want)
			}
		})
	}
}

// The router answering /health is not ready until it lists every
// server the deployment rendered: on /workers, or on /list_workers when
// /workers is not found (routers before 2025-10-22).
func TestAllProbeWaitsForRoster(t *testing.T) {
	cfg := space.Config{KnobDisaggregation: Disaggregated, KnobPrefillInstances: int64(2), KnobDecodeInstances: int64(1)}
	procs, err := RenderReportPD(cfg, pdTarget("sglang", "0.5.6"))
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
