package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// pidRecord is what a study directory remembers of a running engine, so a
// later servetune can stop it if this one is killed with -9.
type pidRecord struct {
	PID  int `json:"pid"`
	PGID int `json:"pgid"`
	// Start is the kernel start time of PID (Linux), to refuse to signal a
	// process that merely reuses the PID.
	Start   uint64    `json:"start,omitempty"`
	Argv    []string  `json:"argv"`
	Started time.Time `json:"started"`
}

func writePidfile(dir string, rec pidRecord) (string, error) {
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("pidfile: %w", err)
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	path := filepath.Join(dir, strconv.Itoa(rec.PID)+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("pidfile: %w", err)
	}
	return path, nil
}

// ReapStale stops engines that an earlier servetune launched, recorded in
// pidfiles in dir and never tore down (it was killed with -9, or the
// machine lost power mid-run), then removes their pidfiles. Call it before the
// first launch: a leftover engine holds the GPUs and would make every new
// trial look like an out-of-memory config.
func ReapStale(ctx context.Context, dir string, log zerolog.Logger) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var rec pidRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.PGID <= 1 {
			log.Warn().Str("pidfile", f).Msg("unreadable engine pidfile removed")
			_ = os.Remove(f)
			continue
		}
		if ours(rec) {
			log.Warn().Int("pgid", rec.PGID).Strs("argv", rec.Argv).Msg("stopping an engine left behind by an earlier run")
			if err := stopGroup(ctx, rec.PGID, nil, defaultGrace); err != nil {
				errs = append(errs, fmt.Errorf("engine group %d: %w", rec.PGID, err))
				continue
			}
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ours decides whether a recorded group is still the engine we launched.
// While the leader lives it must have the recorded start time. Once it is
// gone, remaining members still carry its PGID, and the kernel does not
// hand out a PID that is some group's ID, so they are ours.
func ours(rec pidRecord) bool {
	start, alive := processStart(rec.PID)
	if alive {
		return rec.Start == 0 || start == rec.Start
	}
	return groupAlive(rec.PGID)
}

// defaultGrace is how long an engine gets between SIGTERM and SIGKILL:
// long enough for vLLM and SGLang to shut their worker processes down and
// release NCCL, short enough not to stall a study.
const defaultGrace = 30 * time.Second

// stopGroup sends SIGTERM to the process group, waits up to grace for it
// (and the leader's Wait, when done is given) to be gone, then SIGKILLs
// what is left and waits for that too.
func stopGroup(ctx context.Context, pgid int, done <-chan struct{}, grace time.Duration) error {
	gone := func() bool {
		if done != nil {
			select {
			case <-done:
			default:
				return false
			}
		}
		return !groupAlive(pgid)
	}
	if gone() {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGone(ctx, gone, grace) {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if waitGone(context.WithoutCancel(ctx), gone, 10*time.Second) {
		return nil
	}
	return fmt.Errorf("process group %d survived SIGKILL", pgid)
}

// waitGone polls for a group to disappear; there is no event for "the last
// member of a process group exited", so polling it is.
func waitGone(ctx context.Context, gone func() bool, limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if gone() {
			return true
		}
		select {
		case <-t.C:
			return gone()
		case <-ctx.Done():
			return gone()
		case <-tick.C:
		}
	}
}
