package engines

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Roster is how a router tells which servers it routes to: answering
// its health endpoint only says it listens, and SGLang's router
// registers its workers in the background after it starts listening
// ("Worker initialization job submitted (will complete in background)",
// then "Workers initialized: 0 total" at first), so a deployment is
// ready only once its router lists every server.
type Roster struct {
	// Path is the endpoint asked (GET).
	Path string
	// URLs must each appear in the answer's "urls" (sgl-router's
	// GET /list_workers: {"urls": [...]}, every prefill and decode
	// worker it registered).
	URLs []string
	// Prefill and Decode, when URLs is empty, are the answer's
	// "prefill_instances" and "decode_instances" (vLLM's
	// toy_proxy_server.py GET /healthcheck: the clients it built).
	Prefill, Decode int
}

// Sees reports whether a router's answer lists what r wants.
func (r Roster) Sees(body []byte) bool {
	if len(r.URLs) > 0 {
		var got struct {
			URLs []string `json:"urls"`
		}
		if json.Unmarshal(body, &got) != nil {
			return false
		}
		listed := map[string]bool{}
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
	var got struct {
		Prefill *int `json:"prefill_instances"`
		Decode  *int `json:"decode_instances"`
	}
	if json.Unmarshal(body, &got) != nil || got.Prefill == nil || got.Decode == nil {
		return false
	}
	return *got.Prefill == r.Prefill && *got.Decode == r.Decode
}

// rosterProbe asks the router at base for its roster.
func rosterProbe(client *http.Client, base string, r *Roster, each time.Duration) func(context.Context) bool {
	return func(ctx context.Context) bool {
		if r == nil {
			return true
		}
		body, code, err := get(ctx, client, base+r.Path, each)
		return err == nil && code == http.StatusOK && r.Sees(body)
	}
}
