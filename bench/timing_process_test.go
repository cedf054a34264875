package bench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/bench/benchtest"
)

const childEnv = "SERVETUNE_BENCHTEST_SERVER"

// TestMain lets the test binary serve as the paced, stamping server of
// BenchmarkTimingErrorServerProcess in a process of its own.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		serveStamped()
		return
	}
	os.Exit(m.Run())
}

// serveStamped runs the paced server and, on a second port, hands out the
// stamps of a request as Unix nanoseconds; it runs until killed.
func serveStamped() {
	srv := benchtest.NewServer(benchtest.Config{TTFT: 20 * time.Millisecond, ITL: 10 * time.Millisecond, Stamp: true})
	mux := http.NewServeMux()
	mux.HandleFunc("/stamps", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		var ns []int64
		for _, t := range srv.Stamps(i) {
			ns = append(ns, t.UnixNano())
		}
		_ = json.NewEncoder(w).Encode(ns)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println(srv.URL, "http://"+ln.Addr().String())
	_ = http.Serve(ln, mux)
}

// BenchmarkTimingErrorServerProcess is BenchmarkTimingError with the
// server in its own process, as a real engine is: the client's timing
// error without the server's goroutines competing in the same runtime.
func BenchmarkTimingErrorServerProcess(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	urls := strings.Fields(line)
	if err != nil || len(urls) != 2 {
		b.Fatalf("server said %q: %v", line, err)
	}
	p := bench.Profile{InputLen: 16, OutputLen: 100, NumPrompts: 512, MaxConcurrency: 512, RequestRate: 5120, Burstiness: math.Inf(1)}
	plan, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	c := bench.Client{BaseURL: urls[0], Model: "m"}
	var errs []time.Duration
	for b.Loop() {
		res, err := bench.RunPlan(context.Background(), c, plan, bench.RunOptions{})
		if err != nil || res.Metrics.Failed > 0 {
			b.Fatalf("%v %v", err, res.Metrics.Errors)
		}
		for _, r := range res.Records {
			st := stampsOf(b, urls[1], r.Index)
			send := res.Start.Add(r.Start).UnixNano()
			errs = append(errs, absd(time.Duration(st[0]-send)-r.TTFT), absd(time.Duration(st[len(st)-1]-send)-r.Latency))
			for i, g := range r.ITL {
				errs = append(errs, absd(time.Duration(st[i+1]-st[i])-g))
			}
		}
	}
	slices.Sort(errs)
	q := func(f float64) float64 { return float64(errs[int(f*float64(len(errs)-1))]) / 1e3 }
	b.ReportMetric(q(0.5), "p50-err-µs")
	b.ReportMetric(q(0.99), "p99-err-µs")
	b.ReportMetric(float64(errs[len(errs)-1])/1e3, "max-err-µs")
}

func stampsOf(b *testing.B, base string, i int) []int64 {
	resp, err := http.Get(fmt.Sprintf("%s/stamps?i=%d", base, i))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var ns []int64
	if err := json.NewDecoder(resp.Body).Decode(&ns); err != nil || len(ns) == 0 {
		b.Fatalf("stamps of %d: %v", i, err)
	}
	return ns
}
