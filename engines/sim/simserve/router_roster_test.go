package simserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/servetune/servetune/engines"
)

// The simulated routers answer the roster endpoints the launcher's
// readiness asks (engines/pd_roster.go) as the real ones do: sgl-router's
// GET /workers lists every server, toy_proxy_server.py's
// GET /healthcheck counts them.
func TestSimulatedRouterRoster(t *testing.T) {
	up := func() string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/health" {
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	down := "http://127.0.0.1:1" // nothing listens
	p0, p1, d0 := up(), up(), up()
	for _, c := range []struct {
		name, engine, path string
		args               []string
		want               engines.Roster
		sees               bool
	}{
		{"sglang: every server healthy", engines.SGLang, "/workers", []string{"--pd-disaggregation", "--prefill", p0, "8998", "--prefill", p1, "8999",
			"--decode", d0, "--host", "127.0.0.1", "--port", "8000"}, engines.Roster{URLs: []string{p0, p1, d0}}, true},
		{"sglang: a decode server down", engines.SGLang, "/workers", []string{"--pd-disaggregation", "--prefill", p0, "8998",
			"--decode", down, "--host", "127.0.0.1", "--port", "8000"}, engines.Roster{URLs: []string{p0, down}}, false},
		{"vllm: the servers counted", engines.VLLM, "/healthcheck", []string{"--host", "127.0.0.1", "--port", "8000", "--prefiller-hosts", "127.0.0.1", "--prefiller-ports", "8100",
			"--decoder-hosts", "127.0.0.1", "127.0.0.1", "--decoder-ports", "8200", "8201"}, engines.Roster{Prefill: 1, Decode: 2}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := parseRouterArgs(c.engine, c.args)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer((&router{args: a, client: &http.Client{}}).routes(c.engine))
			defer srv.Close()
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || c.want.Sees(body) != c.sees {
				t.Fatalf("GET %s = %d %s; want Sees = %v for %+v", c.path, resp.StatusCode, body, c.sees, c.want)
			}
			more := c.want
			more.URLs = append(append([]string{}, c.want.URLs...), "http://127.0.0.1:39999")
			more.Decode++
			if more.Sees(body) {
				t.Fatalf("a roster with a server more sees %s", body)
			}
		})
	}
}
