package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Client says where and how to send requests.
type Client struct {
	// BaseURL is the server root, e.g. http://127.0.0.1:8000 (a trailing /v1
	// is accepted).
	BaseURL string
	Model   string
	// APIKeyEnv names the environment variable holding the API key, sent as
	// a Bearer token. The key itself never appears in errors, records or logs.
	APIKeyEnv string
	// Getenv reads APIKeyEnv; nil means os.Getenv.
	Getenv func(string) string
	// Headers are extra request headers.
	Headers map[string]string
	// HTTPClient is used as is when set; nil builds one sized for the
	// profile's concurrency.
	HTTPClient *http.Client
}

// requestIDHeader carries the plan index, so a test server (or a proxy log)
// can match its own timestamps to the client's records.
const requestIDHeader = "X-Servetune-Request"

func (c Client) url(endpoint string) string {
	base := strings.TrimSuffix(c.BaseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	if endpoint == EndpointChat {
		return base + "/v1/chat/completions"
	}
	return base + "/v1/completions"
}

// CheckAPIKey says whether the key APIKeyEnv names is set, so a missing
// key is bad input before any request, not the failure of every one.
func (c Client) CheckAPIKey() error {
	_, err := c.apiKey()
	return err
}

// apiKey reads the key named by APIKeyEnv ("" when none is configured).
func (c Client) apiKey() (string, error) {
	if c.APIKeyEnv == "" {
		return "", nil
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	key := getenv(c.APIKeyEnv)
	if key == "" {
		return "", fmt.Errorf("API key: environment variable %s is empty or unset", c.APIKeyEnv)
	}
	return key, nil
}

func (c Client) header(key string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// newHTTPClient keeps one connection per stream alive and never compresses
// (a gzip reader would batch chunks and blur their arrival times).
func newHTTPClient(concurrency int) *http.Client {
	idle := max(concurrency, 1024)
	return &http.Client{Transport: &http.Transport{
		DialContext:         dialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}),
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     concurrency, // 0: unlimited
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ReadBufferSize:      32 << 10,
		WriteBufferSize:     64 << 10,
	}}
}

// sender sends one planned request and measures it.
type sender struct {
	plan    *Plan
	hc      *http.Client
	url     string
	model   string
	header  http.Header
	secrets []string // redacted from every error message
	stall   time.Duration
	timeout time.Duration
	maxLine int                  // SSE line cap; 0: maxSSELine
	since   func() time.Duration // monotonic offset from the benchmark start
	start   time.Time            // the benchmark start, for kernel receive stamps
	bodies  *bodies              // bodies built ahead (prebuild.go); nil: none
}

var errRequestTimeout = errors.New("request timeout")

// send runs one request; whatever the server said, its error message never
// carries the API key.
func (s *sender) send(ctx context.Context, r *PlannedRequest) Record {
	rec := s.exchange(ctx, r)
	rec.Error = Redact(rec.Error, s.secrets...)
	return rec
}

func (s *sender) exchange(ctx context.Context, r *PlannedRequest) Record {
	rec := Record{Index: r.Index, Warmup: r.Index < 0, InputTokens: r.InputLen}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d := RequestBound(s.timeout, s.stall, r.OutputLen); d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, d, fmt.Errorf("%w %v", errRequestTimeout, d))
		defer stop()
	}
	dog := newWatchdog(s.stall, cancel)
	defer dog.stop()
	req, conn, err := s.request(ctx, r, dog)
	if err != nil {
		return fail(rec, ClassProtocol, err)
	}
	rec.Start = s.since()
	dog.kick() // the silence counts from the send
	resp, err := s.hc.Do(req)
	if err != nil {
		return fail(rec, classify(ctx, err, ClassConnection), cause(ctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fail(rec, ClassHTTP, fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorMessage(s.scrub(bytes.TrimSpace(msg)))))
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fail(rec, ClassProtocol, fmt.Errorf("response is %q, not an event stream: %s", ct, truncate(string(s.scrub(msg)), 200)))
	}
	rec = s.read(ctx, watched{resp.Body, dog}, *conn, rec, r.OutputLen)
	if rec.Success {
		drain(cancel, resp.Body)
	}
	return rec
}

// request builds the HTTP request; the connection it goes out on is stored
// in *conn once known, and the response's first byte feeds the watchdog.
func (s *sender) request(ctx context.Context, r *PlannedRequest, dog *watchdog) (*http.Request, *net.Conn, error) {
	body := s.bodies.take(r.Index)
	if body == nil {
		body = s.plan.appendBody(make([]byte, 0, 64+8*r.InputLen), r, s.model)
	}
	var conn net.Conn
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { conn = info.Conn },
		GotFirstResponseByte: dog.kick,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = s.header.Clone()
	req.Header.Set(requestIDHeader, strconv.Itoa(r.Index))
	return req, &conn, nil
}

// scrub removes the secrets from server text before it is decoded or
// truncated (a truncation could otherwise keep half a key).
func (s *sender) scrub(b []byte) []byte { return redactBytes(b, s.secrets...) }

// read consumes the event stream. Timing follows vllm bench: TTFT at the
// first content chunk, one ITL per later content chunk, latency at the last
// content chunk; the stream must still end with [DONE] to count.
func (s *sender) read(ctx context.Context, body io.Reader, conn net.Conn, rec Record, outputLen int) Record {
	var (
		c      chunk
		last   time.Duration
		chunks int
		events int
		sse    = newSSEReader(body, s.maxLine)
		// A chunk with text carries at least one token: a server that
		// sends more than max_tokens of them (or floods events without
		// text) would otherwise stream forever.
		maxTokens = tokenCap(outputLen)
	)
	for {
		data, err := sse.next()
		if err != nil {
			return s.broken(ctx, rec, err)
		}
		now := chunkTime(conn, s.start, rec.Start, s.since())
		if err := parseChunk(data, &c); err != nil {
			return fail(rec, ClassProtocol, fmt.Errorf("malformed SSE data %q", truncate(string(s.scrub(data)), 120)))
		}
		if events++; chunks > maxTokens || events > maxTokens+maxExtraEvents {
			return fail(rec, ClassProtocol, fmt.Errorf("the stream went past max_tokens %d (%d chunks, %d with text) without ending", maxTokens, events, chunks))
		}
		switch {
		case c.done:
			if chunks == 0 {
				return fail(rec, ClassProtocol, errors.New("no content chunk before [DONE]"))
			}
			if rec.OutputTokens == 0 {
				rec.OutputTokens = chunks
			}
			rec.Latency = last - rec.Start
			rec.Success = true
			return rec
		case c.errMsg != "":
			_ = parseChunk(s.scrub(data), &c)
			return fail(rec, ClassServer, errors.New(c.errMsg))
		}
		if c.content {
			if s.plan.Profile.Quality() {
				rec.Text += jsonStringText(c.text)
			}
			if chunks == 0 {
				rec.TTFT = now - rec.Start
			} else {
				rec.ITL = append(rec.ITL, now-last)
			}
			last = now
			chunks++
		}
		if c.usage {
			rec.OutputTokens = c.completionTokens
			if c.promptTokens > 0 {
				rec.InputTokens = c.promptTokens
			}
		}
	}
}

// maxExtraEvents are the events without text a stream may send beyond
// max_tokens: the role chunk, empty deltas, the finish and usage chunks.
const maxExtraEvents = 64

// tokenCap is the most text chunks a request of max_tokens outputLen may
// receive; without max_tokens (0) there is no cap.
func tokenCap(outputLen int) int {
	if outputLen <= 0 {
		return math.MaxInt - maxExtraEvents
	}
	return outputLen
}

// Per-request bounds derived when RunOptions.RequestTimeout is 0: the
// time to be admitted and prefilled (queueFactor stall timeouts: a
// queued request can wait long, yet not forever), then at most
// tokenTime a token of the output on average. A server that trickles
// bytes keeps the stall watchdog quiet; this bound still ends the request.
const (
	queueFactor = 5
	tokenTime   = time.Second
)

// RequestBound is how long a request with max_tokens outputLen may take:
// fixed when positive, none when negative, else derived from the output
// length and the stall timeout (none when stall detection is off: the
// user asked to wait).
func RequestBound(fixed, stall time.Duration, outputLen int) time.Duration {
	switch {
	case fixed > 0:
		return fixed
	case fixed < 0 || stall < 0:
		return 0
	case stall == 0:
		stall = DefaultStallTimeout
	}
	return queueFactor*stall + time.Duration(max(outputLen, 0))*tokenTime
}

// broken fails a request whose stream could not be read to [DONE].
func (s *sender) broken(ctx context.Context, rec Record, err error) Record {
	switch {
	case errors.Is(err, io.EOF):
		return fail(rec, ClassStream, errors.New("stream ended without [DONE]"))
	case errors.Is(err, errLineTooLong):
		return fail(rec, ClassProtocol, err)
	}
	return fail(rec, classify(ctx, err, ClassStream), cause(ctx, err))
}

func fail(rec Record, class ErrorClass, err error) Record {
	rec.Success = false
	rec.Class = class
	rec.Error = err.Error()
	return rec
}

// cause prefers the reason a context was cancelled over the transport's
// generic "context canceled".
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return err
}

func classify(ctx context.Context, err error, fallback ErrorClass) ErrorClass {
	switch c := context.Cause(ctx); {
	case errors.Is(c, errStalled), errors.Is(c, errRequestTimeout):
		return ClassTimeout
	case c != nil:
		return ClassAborted
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		if fallback == ClassStream {
			return ClassStream
		}
		return ClassConnection
	}
	return fallback
}
