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
	for _, c := range []struct {
		engine, path string
		args         []string
		want         engines.Roster
	}{
		{engines.SGLang, "/workers", []string{"--pd-disaggregation", "--prefill", "http://127.0.0.1:30000", "8998", "--prefill", "http://127.0.0.1:30001", "8999",
			"--decode", "http://127.0.0.1:30002", "--host", "127.0.0.1", "--port", "8000"},
			engines.Roster{URLs: []string{"http://127.0.0.1:30000", "http://127.0.0.1:30001", "http://127.0.0.1:30002"}}},
		{engines.VLLM, "/healthcheck", []string{"--host", "127.0.0.1", "--port", "8000", "--prefiller-hosts", "127.0.0.1", "--prefiller-ports", "8100",
			"--decoder-hosts", "127.0.0.1", "127.0.0.1", "--decoder-ports", "8200", "8201"},
			engines.Roster{Prefill: 1, Decode: 2}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			a, err := parseRouterArgs(c.engine, c.args)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer((&router{args: a}).routes(c.engine))
			defer srv.Close()
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !c.want.Sees(body) {
				t.Fatalf("GET %s = %d %s; want a roster %+v sees", c.path, resp.StatusCode, body, c.want)
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
