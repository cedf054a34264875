package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// show, best and studies read a study on a read-only file system: they
// never write, not even a WAL index. Root ignores permission bits, so the
// test mounts the directory read-only (it is skipped where it may not).
func TestShowAndBestWorkOnAReadOnlyDirectory(t *testing.T) {
	example, err := filepath.Abs("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if code, _, errText := runCLI(t, src, "run", "--n-trials", "3", example); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errText)
	}
	ro := t.TempDir()
	if out, err := exec.Command("mount", "--bind", src, ro).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", ro).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", ro).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only here: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o644); err == nil {
		t.Fatal("the mount is writable")
	}
	for _, args := range [][]string{{"show", "quickstart"}, {"best", "quickstart"}, {"studies"}} {
		code, out, errText := runCLI(t, ro, args...)
		if code != 0 || !strings.Contains(out, "complete") {
			t.Errorf("%v on a read-only directory: exit %d\n%s%s", args, code, out, errText)
		}
	}
}
