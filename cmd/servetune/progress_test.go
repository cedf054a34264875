package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The live view through a real pseudo-terminal: a short simulator study
// draws the block (trial k of N, best, the phase) in place with the
// terminal's cursor controls, leaves one line per finished trial, and
// writes no log stream.
func TestLiveProgressOnATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 160}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, err := io.Copy(&screen, ptmx)
		if err != nil && !errors.Is(err, syscall.EIO) && !errors.Is(err, os.ErrClosed) {
			t.Errorf("reading the terminal: %v", err)
		}
	}()
	example, _ := filepath.Abs("../../examples/quickstart.toml")
	t.Chdir(t.TempDir())
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"servetune", "run", example, "--n-trials", "4"}, tty, &stderr)
	tty.Close()
	<-read
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := screen.String()
	for _, want := range []string{
		"servetune quickstart · trial 1 of 4", "trial 4 of 4", "launching", "benchmarking ", "  best: total_tps ",
		"\x1b[3F\x1b[J", "Pareto front",
		"  prior: simulating configs ▕", // the start talks while the prior screens
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
	// The baseline's line: its values, and no change against itself.
	if !regexp.MustCompile(`trial 1 complete  total_tps \d+  mean_tpot_ms \d+\.\d\r\n`).MatchString(out) {
		t.Errorf("terminal output lacks the baseline's completion line:\n%q", out)
	}
	if !regexp.MustCompile(`benchmarking \d+%`).MatchString(out) {
		t.Errorf("no benchmark percentage in the live block:\n%q", out)
	}
	if strings.Contains(stderr.String(), "trial finished") || strings.Contains(out, "INF") {
		t.Errorf("the log stream is shown on a terminal:\n%s", stderr.String())
	}
}

func TestNoLiveViewForJSONLogsOrPipes(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if o := (&env{stdout: tty}).viewOptions(0, time.Now); !o.Live {
		t.Error("a terminal gets no live view")
	}
	if o := (&env{stdout: tty, jsonLog: true}).viewOptions(0, time.Now); o.Live {
		t.Error("--log-format json on a terminal still draws the live view")
	}
	if o := (&env{stdout: &bytes.Buffer{}}).viewOptions(0, time.Now); o.Live {
		t.Error("a pipe gets the live view")
	}
}
