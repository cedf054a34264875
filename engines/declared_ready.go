package engines

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// ReadyProbe is a declared engine's readiness when it is more than "every
// probe answers 200": its status, JSON field or log line (tail reads the
// engine's log).
func (e declared) ReadyProbe(client *http.Client, base string, each time.Duration, tail func(int) []string) func(context.Context) bool {
	r := e.d.Ready
	if r.Log != "" {
		re := regexp.MustCompile(r.Log) // space validated it
		return func(context.Context) bool {
			for _, l := range tail(200) {
				if re.MatchString(l) {
					return true
				}
			}
			return false
		}
	}
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	return func(ctx context.Context) bool {
		body, code, err := get(ctx, client, base+r.Path, each)
		return err == nil && code == status && (r.Field == "" || fieldIs(body, r.Field, r.Value))
	}
}

// get fetches url with its own timeout, returning at most 64 KiB of body.
func get(ctx context.Context, client *http.Client, url string, each time.Duration) ([]byte, int, error) {
	rctx, cancel := context.WithTimeout(ctx, each)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return body, resp.StatusCode, err
}

// fieldIs reports whether the JSON document's field (dotted path into
// objects) reads as want: strings as they are, other values as JSON.
func fieldIs(body []byte, field, want string) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, k := range strings.Split(field, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	if s, ok := v.(string); ok {
		return s == want
	}
	b, _ := json.Marshal(v)
	return string(b) == want || fmt.Sprint(v) == want
}
