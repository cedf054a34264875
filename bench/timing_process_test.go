package bench_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

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
	measureTimingError(b, urls[0], func(i int) []time.Time { return stampsOf(b, urls[1], i) })
}

func stampsOf(b *testing.B, base string, i int) []time.Time {
	resp, err := http.Get(fmt.Sprintf("%s/stamps?i=%d", base, i))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var ns []int64
	if err := json.NewDecoder(resp.Body).Decode(&ns); err != nil || len(ns) == 0 {
		b.Fatalf("stamps of %d: %v", i, err)
	}
	out := make([]time.Time, len(ns))
	for k, n := range ns {
		out[k] = time.Unix(0, n)
	}
	return out
}
