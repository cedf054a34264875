package engines

import (
	"fmt"
	"testing"
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
