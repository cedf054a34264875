package bench_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		s       string
		secrets []string
		want    string
	}{
		{"invalid key sk-abc", []string{"sk-abc"}, "invalid key [REDACTED]"},
		{"sk-abc sk-abc", []string{"sk-abc"}, "[REDACTED] [REDACTED]"},
		{"no secret here", []string{"sk-abc"}, "no secret here"},
		{"empty secrets change nothing", []string{"", ""}, "empty secrets change nothing"},
		{"two: k1 and k2", []string{"k1", "k2"}, "two: [REDACTED] and [REDACTED]"},
		{"nothing to redact", nil, "nothing to redact"},
		{"invalid key SK-ABC", []string{"sk-abc"}, "invalid key [REDACTED]"}, // echoed upper-cased
		{"Sk-AbC and sk-abc", []string{"sk-abc"}, "[REDACTED] and [REDACTED]"},
		{"a.b matches only itself: axb", []string{"a.b"}, "[REDACTED] matches only itself: axb"},
	}
	for _, tc := range cases {
		if got := bench.Redact(tc.s, tc.secrets...); got != tc.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", tc.s, tc.secrets, got, tc.want)
		}
	}
}

// A server that echoes the API key in its errors, every way bench turns
// server text into a message, gets it stored as [REDACTED] — also when it
// echoes the key upper-cased.
func TestRunRedactsAPIKey(t *testing.T) {
	t.Parallel()
	for name, echo := range map[string]func(string) string{"as sent": func(s string) string { return s }, "upper-cased": strings.ToUpper} {
		t.Run(name, func(t *testing.T) { t.Parallel(); checkRedacted(t, echo) })
	}
}

func checkRedacted(t *testing.T, transform func(string) string) {
	const key = "sk-0123456789abcdef"
	long := strings.Repeat("x", 190) // so a 200-character cut would fall inside the key
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.Header.Get("X-Servetune-Request"))
		echo := transform(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		switch i {
		case 0:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"invalid key ` + echo + `"}}`))
		case 1:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(long + echo)) // not JSON: quoted raw, truncated
		case 2:
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte(long + echo))
		case 3:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(`data: {"object":"error","message":"bad key ` + echo + `"}` + "\n\n"))
		case 4:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(`data: {"choices":[{"text":"` + echo + "\n\n"))
		}
	}))
	defer srv.Close()
	c := bench.Client{BaseURL: srv.URL, Model: "m", APIKeyEnv: "MY_KEY",
		Getenv: func(k string) string { return map[string]string{"MY_KEY": key}[k] }}
	res, err := bench.Run(context.Background(), c, bench.Profile{InputLen: 4, OutputLen: 3, NumPrompts: 5}, bench.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 5 || res.Metrics.Failed != 5 {
		t.Fatalf("%d records, %d failed; want 5 failures", len(res.Records), res.Metrics.Failed)
	}
	for _, r := range res.Records {
		if !strings.Contains(r.Error, "[REDACTED]") || strings.Contains(strings.ToLower(r.Error), key[:6]) {
			t.Errorf("request %d: error %q, want the key redacted", r.Index, r.Error)
		}
	}
	b, _ := json.Marshal(res)
	if strings.Contains(strings.ToLower(string(b)), key[:6]) {
		t.Errorf("key in the result JSON: %s", b)
	}
}
