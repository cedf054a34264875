package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// RankProcess is one running rank of a multi-node trial: where it runs,
// what was executed and where its output goes.
type RankProcess struct {
	Rank int `json:"rank"`
	// Role names a disaggregated deployment's process ("prefill-0",
	// "decode-1", "router"); empty for a rank.
	Role    string   `json:"role,omitempty"`
	Host    string   `json:"host"`
	Argv    []string `json:"argv"`
	PGID    int      `json:"pgid"`
	LogPath string   `json:"log"`
}

// rankGroup is what a multi-node trial's Server (rank 0) holds of the
// other ranks: they live and die together.
type rankGroup struct {
	peers []*Server
	// anyDone closes when the first rank exits: the trial is over then,
	// whichever rank it was.
	anyDone chan struct{}
	once    sync.Once
	first   *Server // the rank that exited first; read after anyDone
	hosts   map[*Server]string
	ranks   map[*Server]int
	// labels name the processes of a disaggregated deployment
	// ("decode-0"); nil for ranks.
	labels map[*Server]string
}

func (g *rankGroup) watch(s *Server, rank int, host string) {
	g.ranks[s], g.hosts[s] = rank, host
	go func() {
		<-s.done
		g.once.Do(func() { g.first = s; close(g.anyDone) })
	}()
}

// multiNode reports whether the trial of cfg runs as several ranks: the
// target lists nodes and the config needs more GPUs than one has.
func multiNodeTrial(d engines.Deployed) bool {
	return len(d.Target.Nodes) > 0 && d.Nodes() > 1
}

// startRanks launches a trial larger than one node: one process per rank
// (target.node_launch with {host} replaced, then the rank's command;
// never through a shell), each in its own process group under the
// guardian with its own pidfile and log (engine.log for rank 0, which
// alone serves HTTP; engine.rank-N.log for the others). The returned
// Server is rank 0; it is ready when rank 0 answers while every rank
// lives, it is done when any rank exits, and Stop stops them all.
func (l *Launcher) startRanks(ctx context.Context, d engines.Deployed, dir string) (*Server, error) {
	t := d.Target
	head, ranks, listen, err := l.planRanks(ctx, d, dir)
	if err != nil {
		return nil, err
	}
	for _, rk := range ranks {
		s, args := head, listen
		if !rk.Serves {
			s, args = &Server{Engine: head.Engine, LogPath: filepath.Join(dir, fmt.Sprintf("engine.rank-%d.log", rk.Rank)), eng: head.eng}, nil
			head.group.peers = append(head.group.peers, s)
		}
		if err := l.startRank(s, t, rk, args, dir, head); err != nil {
			_ = head.halt(ctx, orDefault(l.Grace, defaultGrace))
			head.closeLogs()
			if head.log != nil {
				head.log.Close()
			}
			return nil, err
		}
		head.Ranks = append(head.Ranks, RankProcess{Rank: rk.Rank, Host: rk.Host, Argv: s.Argv, PGID: s.PGID, LogPath: s.LogPath})
	}
	l.Log.Info().Str("engine", head.Engine).Int("ranks", len(ranks)).Strs("nodes", t.Nodes).Str("url", head.BaseURL).Msg("multi-node engine started")
	return head, nil
}

// planRanks renders every rank and prepares rank 0's Server: its HTTP
// port and listen flags, the environment fingerprint and the GPU
// baseline.
func (l *Launcher) planRanks(ctx context.Context, d engines.Deployed, dir string) (*Server, []engines.Rank, []string, error) {
	meet, err := freePort("") // chosen here: the head may be another host
	if err != nil {
		return nil, nil, nil, err
	}
	t := d.Target
	ranks, err := d.Ranks(engines.Placement{Hosts: t.Nodes, Port: meet})
	if err != nil {
		return nil, nil, nil, err
	}
	name, eng, model := d.Name, d.Engine, d.Model
	host := t.Host
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := enginePort(eng, host)
	if err != nil {
		return nil, nil, nil, err
	}
	listen, served := eng.Listen(host, port, model, t.ServedName())
	head := &Server{Engine: name, Model: served, Port: port, LogPath: filepath.Join(dir, "engine.log"), eng: eng,
		BaseURL: "http://" + net.JoinHostPort(rankDialHost(host, ranks[0].Host), strconv.Itoa(port)),
		group:   &rankGroup{anyDone: make(chan struct{}), hosts: map[*Server]string{}, ranks: map[*Server]int{}}}
	head.Fingerprint = l.fingerprint(ctx, d, l.env(t, name, ranks[0].Command))
	// Only the head node's GPUs can be watched from here.
	base, _, _ := l.gpuApps(ctx)
	head.gpus = gpuWatch{devices: visibleDevices(setEnv(t, name, ranks[0].Command.Env)["CUDA_VISIBLE_DEVICES"]), before: base.pidSet()}
	return head, ranks, listen, nil
}

// startRank starts one rank into s and has head's group watch it.
func (l *Launcher) startRank(s *Server, t space.Target, rk engines.Rank, listen []string, dir string, head *Server) error {
	argv, err := l.argv(rk.Command, t.Engines[s.Engine], t.Prefix, listen, dir)
	if err != nil {
		return err
	}
	s.Argv = append(onNode(t.NodeLaunch, rk.Host, rk.Command.Env), argv...)
	s.l, s.dir, s.done = l, dir, make(chan struct{})
	s.env = l.env(t, s.Engine, rk.Command)
	if s.log, err = openCappedLog(s.LogPath, l.LogLimit); err != nil {
		return err
	}
	s.Ran = ran(s.Argv, setEnv(t, s.Engine, rk.Command.Env), l.baseEnv())
	fmt.Fprintf(s.log, "[servetune: rank %d on %s: %s]\n", rk.Rank, rk.Host, s.Ran.Shell())
	if err := s.spawn(); err != nil {
		s.log.Close()
		return spawnFailure(s.Engine, s.Argv[0], err)
	}
	head.group.watch(s, rk.Rank, rk.Host)
	l.Log.Info().Str("engine", s.Engine).Int("rank", rk.Rank).Str("node", rk.Host).Int("pid", s.PGID).Str("log", s.LogPath).Msg("rank started")
	return nil
}

// onNode is the argv prefix that starts a rank on host: target.node_launch
// with {host} replaced, then `env K=V` for the variables the config needs
// (ssh does not carry the environment over; srun does, harmlessly twice).
// Empty node_launch runs the rank here.
func onNode(launch []string, host string, env map[string]string) []string {
	if len(launch) == 0 {
		return nil
	}
	out := make([]string, 0, len(launch)+len(env)+1)
	for _, w := range launch {
		out = append(out, strings.ReplaceAll(w, "{host}", host))
	}
	if len(env) > 0 {
		out = append(out, "env")
		for _, k := range slices.Sorted(maps.Keys(env)) {
			out = append(out, k+"="+env[k])
		}
	}
	return out
}

// rankDialHost is where servetune reaches rank 0's HTTP server: the bind
// address, or the head node's host when rank 0 binds every interface.
func rankDialHost(bind, head string) string {
	switch bind {
	case "0.0.0.0", "", "::":
		return head
	}
	return bind
}

// spawnFailure says why a rank's program did not start: the machine's
// problem (ErrProgram) or the config's.
func spawnFailure(name, program string, err error) error {
	if errors.Is(err, errStopping) {
		return err
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: %s: %v (install it, or set [target.engines.%s] command, target.prefix or target.node_launch)", ErrProgram, program, err, name)
	}
	return &engines.Failure{Class: engines.InvalidConfig, Message: fmt.Sprintf("%s: cannot start %s: %v", name, program, err)}
}

// halt stops the engine's process group, or every rank's together (each
// SIGTERM, grace, SIGKILL), and removes their pidfiles; whatever happens
// to one rank, the others are still stopped.
func (s *Server) halt(ctx context.Context, grace time.Duration) error {
	if s.group == nil {
		return s.haltOne(ctx, grace)
	}
	all := append([]*Server{s}, s.group.peers...)
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, r := range all {
		if r.cmd == nil {
			continue // never started
		}
		wg.Go(func() { errs[i] = r.haltOne(ctx, grace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Server) haltOne(ctx context.Context, grace time.Duration) error {
	err := stopGroup(ctx, s.PGID, s.done, grace)
	if err == nil {
		s.l.Live.gone(s.PGID)
	}
	if err == nil && s.pidfile != "" {
		_ = os.Remove(s.pidfile)
	}
	return err
}

// closeLogs closes the other ranks' logs; rank 0's is Stop's.
func (s *Server) closeLogs() {
	if s.group == nil {
		return
	}
	for _, p := range s.group.peers {
		if p.log != nil {
			p.log.Close()
		}
	}
}

// groupFailure classifies a multi-node trial's end from the rank that
// exited first (its exit and its own log tail), naming the rank; when
// none has exited, from rank 0.
func (s *Server) groupFailure(stage engines.Stage) *engines.Failure {
	culprit := s
	select {
	case <-s.group.anyDone:
		culprit = s.group.first
	default:
	}
	exit := engines.Exit{}
	select {
	case <-culprit.done:
		exit = culprit.exit
	default:
	}
	f := engines.Classify(s.eng, stage, exit, culprit.log.Tail(200))
	where := fmt.Sprintf("rank %d on %s", s.group.ranks[culprit], s.group.hosts[culprit])
	if label, ok := s.group.labels[culprit]; ok {
		where = label
	}
	f.Message = where + ": " + f.Message
	return f
}
