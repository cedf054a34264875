package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// show lists the trial a SIGKILLed run left running as interrupted
// (holder gone), in text and JSON, before any run records it so.
func TestShowSaysHolderGoneForAKilledRunsTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space, _ := filepath.Abs("testdata/kill.toml")
	db := filepath.Join(dir, "studies", "kill", "study.db")
	killUntilMidTrial(t, func(minDone int) bool { return killMidTrial(t, bin, dir, space, db, minDone) })
	code, out, errText := runCLI(t, dir, "show", "kill")
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, errText)
	}
	if !regexp.MustCompile(`(?m)^\d+\s+interrupted \(holder gone\)`).MatchString(out) || regexp.MustCompile(`(?m)^\d+\s+running\s`).MatchString(out) {
		t.Errorf("show after kill -9:\n%s\nwant the killed trial as interrupted (holder gone), none running", out)
	}
	code, out, _ = runCLI(t, dir, "show", "--json", "kill")
	var trials []struct {
		State      string `json:"state"`
		HolderGone bool   `json:"holder_gone"`
		Reason     string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(out), &trials); code != 0 || err != nil {
		t.Fatalf("show --json: exit %d %v", code, err)
	}
	last := trials[len(trials)-1]
	if last.State != "interrupted" || !last.HolderGone || !strings.Contains(last.Reason, "is dead") {
		t.Errorf("last trial in JSON = %+v, want interrupted, holder_gone, reason naming the dead pid", last)
	}
}
