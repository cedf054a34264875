package engines

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
)

func TestRosterSees(t *testing.T) {
	sg := Roster{Path: "/list_workers", URLs: []string{"http://127.0.0.1:30000", "http://127.0.0.1:30001"}}
	vl := Roster{Path: "/healthcheck", Prefill: 1, Decode: 2}
	for _, c := range []struct {
		name string
		r    Roster
		body string
		want bool
	}{
		{"sglang: every server listed", sg, `{"urls":["http://127.0.0.1:30001","http://127.0.0.1:30000"]}`, true},
		{"sglang: a trailing slash is the same URL", sg, `{"urls":["http://127.0.0.1:30000/","http://127.0.0.1:30001"]}`, true},
		{"sglang: workers not registered yet", sg, `{"urls":[]}`, false},
		{"sglang: one server missing", sg, `{"urls":["http://127.0.0.1:30000"]}`, false},
		{"sglang: another port is another server", sg, `{"urls":["http://127.0.0.1:30000","http://127.0.0.1:30002"]}`, false},
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

// The router answering /health is not ready until /list_workers lists
// every server the deployment rendered.
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
	listed := `{"urls":[]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/list_workers" {
			_, _ = w.Write([]byte(listed))
		}
	}))
	defer srv.Close()
	probe := allProbe(srv.Client(), []readyTarget{{base: srv.URL, paths: router.Probes, roster: router.Roster}}, time.Second)
	if probe(context.Background()) {
		t.Fatal("ready before the router lists its servers")
	}
	listed = `{"urls":["` + router.Roster.URLs[0] + `","` + router.Roster.URLs[1] + `","` + router.Roster.URLs[2] + `"]}`
	if !probe(context.Background()) {
		t.Fatal("not ready once the router lists every server")
	}
}
