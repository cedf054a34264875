package enginetest

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// rankRole is what a fake learns from the multi-node flags of its command
// line (SGLang's --nnodes/--node-rank/--dist-init-addr, vLLM's
// --nnodes/--master-addr or data-parallel --headless form), which the
// knob table does not parse.
type rankRole struct {
	multi, headless bool
	rank, nodes     int
	local           int    // --data-parallel-size-local
	addr            string // where the ranks meet, HOST:PORT
}

// head is rank 0: it waits for every other rank before it serves.
func (r rankRole) head() bool { return !r.headless && r.rank == 0 }

// peers is how many other ranks rank 0 waits for.
func (r rankRole) peers(cfg space.Config) int {
	if r.nodes > 0 {
		return r.nodes - 1
	}
	dp, _ := cfg.Int(engines.KnobDP)
	return int(dp)/max(r.local, 1) - 1
}

// joinTimeout bounds how long ranks wait for each other, as the engines'
// own rendezvous timeouts do.
const joinTimeout = 60 * time.Second

func isRankFlag(name string) bool {
	switch name {
	case "--nnodes", "--node-rank", "--dist-init-addr", "--master-addr", "--master-port", "--headless",
		"--data-parallel-size-local", "--data-parallel-address", "--data-parallel-rpc-port", "--data-parallel-start-rank":
		return true
	}
	return false
}

// splitRank takes the multi-node flags out of args.
func splitRank(args []string) (rankRole, []string) {
	var rest []string
	f := map[string]string{}
	for i := 0; i < len(args); i++ {
		name, val, eq := strings.Cut(args[i], "=")
		if !isRankFlag(name) {
			rest = append(rest, args[i])
			continue
		}
		if !eq && name != "--headless" && i+1 < len(args) {
			i++
			val = args[i]
		}
		f[name] = val
	}
	_, headless := f["--headless"]
	r := rankRole{headless: headless, addr: f["--dist-init-addr"]}
	r.rank, _ = strconv.Atoi(f["--node-rank"])
	r.nodes, _ = strconv.Atoi(f["--nnodes"])
	r.local, _ = strconv.Atoi(f["--data-parallel-size-local"])
	if start, err := strconv.Atoi(f["--data-parallel-start-rank"]); err == nil && r.local > 0 {
		r.rank = start / r.local // vLLM's headless nodes are numbered by their first engine
	}
	if a := f["--master-addr"]; a != "" {
		r.addr = net.JoinHostPort(a, f["--master-port"])
	}
	if a := f["--data-parallel-address"]; a != "" {
		r.addr = net.JoinHostPort(a, f["--data-parallel-rpc-port"])
	}
	r.multi = r.addr != ""
	return r, rest
}

// awaitPeers is rank 0's rendezvous: listen where the ranks meet and
// accept n of them. It reports a rank it loses, as an engine's NCCL
// watchdog would, and keeps serving: stopping it is the launcher's job.
func awaitPeers(r rankRole, n int, stdout io.Writer) ([]net.Conn, error) {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return nil, fmt.Errorf("rendezvous on %s: %w", r.addr, err)
	}
	defer ln.Close()
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(joinTimeout))
	conns := make([]net.Conn, 0, n)
	for len(conns) < n {
		c, err := ln.Accept()
		if err != nil {
			return nil, fmt.Errorf("rendezvous on %s: %d of %d ranks joined: %w", r.addr, len(conns), n, err)
		}
		conns = append(conns, c)
		go func() {
			_, _ = io.Copy(io.Discard, c)
			fmt.Fprintln(stdout, "fake engine: rank 0 lost a rank")
		}()
	}
	fmt.Fprintf(stdout, "fake engine: rank 0: %d ranks joined on %s\n", n+1, r.addr)
	return conns, nil
}

// joinHead is a rank above 0: connect to rank 0 (which may not listen
// yet) and live until that connection ends.
func joinHead(r rankRole, stdout, stderr io.Writer) int {
	deadline := time.Now().Add(joinTimeout)
	var c net.Conn
	for {
		var err error
		if c, err = net.DialTimeout("tcp", r.addr, time.Second); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "torch.distributed.DistNetworkError: rank %d cannot reach %s: %v\n", r.rank, r.addr, err)
			return 1
		}
		<-time.After(20 * time.Millisecond) // the rendezvous's retry interval, not test timing
	}
	fmt.Fprintf(stdout, "fake engine: rank %d joined %s\n", r.rank, r.addr)
	_, _ = io.Copy(io.Discard, c)
	fmt.Fprintf(stderr, "RuntimeError: rank %d: connection to rank 0 at %s closed\n", r.rank, r.addr)
	return 1
}

// runRank is a rank above 0: it crashes as it starts when told to
// (Options.CrashRank), else joins rank 0.
func runRank(engine string, o Options, p engines.Parsed, r rankRole, stdout, stderr io.Writer) int {
	if o.CrashRank > 0 && o.CrashRank == r.rank {
		fmt.Fprintln(stderr, strings.Join(lines(engine, p).crash, "\n"))
		return 1
	}
	return joinHead(r, stdout, stderr)
}
