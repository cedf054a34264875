package engines

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Roster is how a router tells which servers it routes to: answering
// its health endpoint only says it listens. SGLang's router registers
// its workers in a background job after it starts listening ("Worker
// initialization job submitted (will complete in background)", then
// "Workers initialized: 0 total"), so a deployment is ready only once
// its router lists every server, healthy.
//
// sgl-router as in sglang v0.5.6 (commit 7ae368e, "bump SGLang version
// to 0.5.6", router 0.2.3): sgl-router/src/server.rs:673 routes GET
// /workers to list_workers_rest (:497), {"workers": [WorkerInfo...]}
// with url and is_healthy (src/protocols/worker_spec.rs:117, :131).
// Routers before commit 5dccf69 (2025-10-22; sglang 0.5.0rc2's at
// server.rs:203) have only GET /list_workers, {"urls": [...]}; it is
// asked when /workers is not found.
type Roster struct {
	// URLs must each be listed (sgl-router).
	URLs []string
	// Prefill and Decode, when URLs is empty, are what vLLM's
	// toy_proxy_server.py's GET /healthcheck counts
	// ("prefill_instances", "decode_instances": the clients it built).
	Prefill, Decode int
}

// rosterPaths are the endpoints asked, in order: the next only when the
// one before is not found.
func (r Roster) rosterPaths() []string {
	if len(r.URLs) > 0 {
		return []string{"/workers", "/list_workers"}
	}
	return []string{"/healthcheck"}
}

// Sees reports whether a router's answer lists what r wants.
func (r Roster) Sees(body []byte) bool {
	if len(r.URLs) == 0 {
		return r.counted(body)
	}
	var got struct {
		Workers []struct {
			URL     string `json:"url"`
			Healthy bool   `json:"is_healthy"`
		} `json:"workers"`
		URLs []string `json:"urls"` // /list_workers
	}
	if json.Unmarshal(body, &got) != nil {
		return false
	}
	listed := map[string]bool{}
	for _, w := range got.Workers {
		listed[strings.TrimSuffix(w.URL, "/")] = w.Healthy
	}
	for _, u := range got.URLs {
		listed[strings.TrimSuffix(u, "/")] = true
	}
	for _, u := range r.URLs {
		if !listed[strings.TrimSuffix(u, "/")] {
			return false
		}
	}
	return true
}

func (r Roster) counted(body []byte) bool {
	var got struct {
		Prefill *int `json:"prefill_instances"`
		Decode  *int `json:"decode_instances"`
	}
	if json.Unmarshal(body, &got) != nil || got.Prefill == nil || got.Decode == nil {
		return false
	}
	return *got.Prefill == r.Prefill && *got.Decode == r.Decode
}

// Probe asks the router at base for its roster, each request bounded by
// each; the launcher polls it once the router answers its health path.
func (r Roster) Probe(client *http.Client, base string, each time.Duration) func(context.Context) bool {
	return func(ctx context.Context) bool {
		for _, p := range r.rosterPaths() {
			body, code, err := get(ctx, client, base+p, each)
			if err != nil || code != http.StatusNotFound {
				return err == nil && code == http.StatusOK && r.Sees(body)
			}
		}
		return false
	}
}
