package studies

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func sessionOptions(t *testing.T, src string, fresh bool, pid int) OpenOptions {
	return OpenOptions{Fresh: fresh, Source: src, Holder: store.Holder{PID: pid}, Log: zerolog.Nop(),
		Parse: func(ctx context.Context, file, src string) (*space.Space, error) {
			return space.Parse(ctx, file, src, testSpaceOptions())
		}}
}

// --fresh while another run holds the study must not delete anything.
func TestFreshDuringARunIsRefusedAndDeletesNothing(t *testing.T) {
	sp := studySpace(t, 3, "")
	d := studydir.Of(t.TempDir(), "unit")
	ctx := context.Background()
	run, err := OpenSession(ctx, d, sp, sessionOptions(t, "x", false, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	tr := store.Trial{Config: space.Config{"max_running": int64(8)}, Origin: "sampler"}
	if err := begin(ctx, run.Store, &tr); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(d.Trial(tr.Number), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = OpenSession(ctx, d, sp, sessionOptions(t, "x", true, 2))
	if !errors.Is(err, studydir.ErrLocked) {
		t.Fatalf("--fresh during a run: %v, want ErrLocked", err)
	}
	if !d.Exists() {
		t.Fatal("study.db deleted under a live run")
	}
	if _, err := os.Stat(d.Trial(tr.Number)); err != nil {
		t.Fatalf("trial directory deleted under a live run: %v", err)
	}
	trials, err := run.Store.Trials(ctx)
	if err != nil || len(trials) != 1 {
		t.Fatalf("the live run lost its trials: %v %v", trials, err)
	}
}

func TestFreshRemovesTrialsButKeepsTheLock(t *testing.T) {
	sp := studySpace(t, 3, "")
	d := studydir.Of(t.TempDir(), "unit")
	ctx := context.Background()
	s, err := OpenSession(ctx, d, sp, sessionOptions(t, "x", false, 1))
	if err != nil {
		t.Fatal(err)
	}
	tr := store.Trial{Config: space.Config{"max_running": int64(8)}}
	begin(ctx, s.Store, &tr)
	os.MkdirAll(d.Trial(tr.Number), 0o755)
	s.Close()
	s, err = OpenSession(ctx, d, sp, sessionOptions(t, "x", true, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if trials, _ := s.Store.Trials(ctx); len(trials) != 0 {
		t.Errorf("--fresh kept %d trials", len(trials))
	}
	if _, err := os.Stat(d.Trial(tr.Number)); !os.IsNotExist(err) {
		t.Errorf("--fresh kept %s", d.Trial(tr.Number))
	}
	if _, err := os.Stat(filepath.Join(d.Path(), "lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
}

// A comment or n_trials edit resumes; a changed domain does not.
func TestSpaceCheckComparesParsedSpaces(t *testing.T) {
	ctx := context.Background()
	d := studydir.Of(t.TempDir(), "unit")
	src := studySource(5, "")
	parse := func(s string) *space.Space {
		sp, err := space.Parse(ctx, "space.toml", s, testSpaceOptions())
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	open := func(s string) error {
		sess, err := OpenSession(ctx, d, parse(s), sessionOptions(t, s, false, 1))
		if err == nil {
			sess.Close()
		}
		return err
	}
	if err := open(src); err != nil {
		t.Fatal(err)
	}
	if err := open("# a comment\n" + studySource(50, "")); err != nil {
		t.Errorf("comment + n_trials edit refused: %v", err)
	}
	looser := strings.Replace(studySource(5, ""), "[target]", "[target]\nstall_timeout = \"10m\"", 1)
	if err := open(looser); err != nil {
		t.Errorf("a longer stall_timeout refused: %v", err)
	}
	// A scheduler gives each job other nodes: the study resumes on them.
	onNodes := strings.Replace(studySource(5, ""), "[target]", "[target]\nhost = \"0.0.0.0\"\nnodes = [\"gpu[03-04]\"]\nnode_launch = [\"ssh\", \"{host}\"]", 1)
	if err := open(onNodes); err != nil {
		t.Errorf("other nodes refused: %v", err)
	}
	// The node labels a k8s export pins pods to say where it deploys,
	// not what its trials measured.
	pinned := studySource(5, "") + "\n[target.node_selector.H100]\npool = \"serving\"\n"
	if err := open(pinned); err != nil {
		t.Errorf("a node selector refused: %v", err)
	}
	changed := studySource(5, "") + "\n[params.chunked_prefill]\nvalues = [512, 1024]\n"
	if err := open(changed); !errors.Is(err, ErrSpaceChanged) {
		t.Errorf("a new knob resumed: %v", err)
	}
}
