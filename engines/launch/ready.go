package launch

import (
	"context"
	"net/http"
	"time"
)

// errNotReady marks a probe round that did not see every probe answer 200.
type readiness int

const (
	ready readiness = iota
	exited
	timedOut
)

// waitReady polls probe every interval until it returns true, the process
// exits (stop at once: nothing will ever answer) or timeout passes. Pure
// timing logic, tested under testing/synctest.
func waitReady(ctx context.Context, probe func(context.Context) bool, done <-chan struct{}, interval, timeout time.Duration) (readiness, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if probe(ctx) {
			return ready, nil
		}
		select {
		case <-done:
			return exited, nil
		case <-deadline.C:
			return timedOut, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-tick.C:
		}
	}
}

// httpProbe reports whether every path answers 200. Each request has its
// own short timeout: vLLM accepts connections long before it answers them.
func httpProbe(client *http.Client, base string, paths []string, each time.Duration) func(context.Context) bool {
	return func(ctx context.Context) bool {
		for _, p := range paths {
			rctx, cancel := context.WithTimeout(ctx, each)
			req, err := http.NewRequestWithContext(rctx, http.MethodGet, base+p, nil)
			if err != nil {
				cancel()
				return false
			}
			resp, err := client.Do(req)
			cancel()
			if err != nil {
				return false
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return false
			}
		}
		return true
	}
}

// probe is the engine's readiness check: its own (readier) or its probes.
func (s *Server) probe(client *http.Client) func(context.Context) bool {
	each := orDefault(s.l.ProbeTimeout, defaultProbeTimeout)
	if len(s.readyAll) > 0 {
		return allProbe(client, s.readyAll, each) // a disaggregated deployment (pd_launch.go)
	}
	if r, ok := s.eng.(readier); ok && s.eng.Probes() == nil {
		return r.ReadyProbe(client, s.BaseURL, each, s.log.Tail)
	}
	return httpProbe(client, s.BaseURL, s.eng.Probes(), each)
}
