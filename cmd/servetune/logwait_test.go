package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/servetune/servetune/objective"
)

// startLogged starts cmd (run with --log-format json) and returns its
// log, line by line.
func startLogged(t *testing.T, cmd *exec.Cmd) *bufio.Scanner {
	t.Helper()
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return bufio.NewScanner(logs)
}

// untilBenchmarking reads the log until a trial starts benchmarking;
// false when the log ended first.
func untilBenchmarking(sc *bufio.Scanner) bool {
	for sc.Scan() {
		var ev struct {
			Message string `json:"message"`
			Phase   string `json:"phase"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Message == "trial phase" && ev.Phase == string(objective.Benchmarking) {
			return true
		}
	}
	return false
}
