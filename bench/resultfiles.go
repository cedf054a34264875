package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// NoSuccess fails a benchmark in which no request succeeded: its numbers
// describe no serving at all, and scripts must not take them for a result.
func NoSuccess(res Result) error {
	m := res.Metrics
	if m.Completed > 0 {
		return nil
	}
	if class, example, n := m.DominantError(); n > 0 {
		return fmt.Errorf("bench: no request succeeded: %d of %d requests failed, %d of them %s: %s",
			m.Failed, m.Failed+m.Aborted, n, class, example)
	}
	if res.Stopped != "" {
		return fmt.Errorf("bench: no request succeeded: %d requests aborted (%s)", m.Aborted, res.Stopped)
	}
	return errors.New("bench: no request succeeded")
}

// recordsPath puts the records beside the JSON: out.json → out.records.jsonl.
func recordsPath(jsonPath string) string {
	return strings.TrimSuffix(jsonPath, ".json") + ".records.jsonl"
}

// WriteResultFiles writes the metrics JSON to path (nothing for "") and
// the records beside it (recordsPath), as `servetune bench --json` does.
func WriteResultFiles(path string, res Result) error {
	if path == "" {
		return nil
	}
	rp := recordsPath(path)
	if err := writeFile(rp, func(f *os.File) error { return WriteRecords(f, res.Saved()) }); err != nil {
		return err
	}
	return writeFile(path, func(f *os.File) error { return WriteJSON(f, res, rp) })
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench output: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("bench output %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench output %s: %w", path, err)
	}
	return nil
}

// TerminalProgress rewrites one line of w (a terminal's stderr): done/total, failures, elapsed
// and a naive ETA, at most ten times a second.
func TerminalProgress(w io.Writer) func(Progress) {
	var last time.Time
	return func(p Progress) {
		if p.Done < p.Total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		eta := "?"
		if p.Done > 0 {
			eta = (time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(p.Total-p.Done))).Round(time.Second).String()
		}
		fmt.Fprintf(w, "\r%d/%d requests  %d failed  elapsed %s  ETA %s   ", p.Done, p.Total, p.Failed,
			p.Elapsed.Round(time.Second), eta)
	}
}

// Recompute is the result a records file (--from-records) holds, its
// metrics recomputed with the summary options; every error names the
// flag.
func Recompute(path string, summary SummaryOptions) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, fmt.Errorf("--from-records: %w", err)
	}
	defer f.Close()
	saved, err := ReadRecords(f)
	if err != nil {
		return Result{}, fmt.Errorf("--from-records %s: %w", path, err)
	}
	m := saved.Metrics(saved.Profile.Summary(summary))
	return Result{Profile: saved.Profile, Metrics: m, Records: saved.Records, Duration: saved.Duration}, nil
}
