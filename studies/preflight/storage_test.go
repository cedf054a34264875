package preflight

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/studies/studydir"
)

func TestLocalStorage(t *testing.T) {
	root := t.TempDir()
	ro := t.TempDir()
	notStudy := studydir.Of(root, "junk")
	if err := os.MkdirAll(filepath.Dir(notStudy.DB()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notStudy.DB(), []byte("not sqlite"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := System()
	for _, tc := range []struct {
		name   string
		d      studydir.Dir
		w      World
		status Status
		says   string
	}{
		{"new study under a writable directory", studydir.Of(filepath.Join(root, "studies"), "night"), w, OK, "(new) is reachable and writable"},
		{"new study under a read-only one", studydir.Of(filepath.Join(ro, "studies"), "night"),
			World{Stat: os.Stat, Writable: func(d string) error {
				if d == ro {
					return os.ErrPermission
				}
				return nil
			}}, Fail, "permission denied"},
		{"a file that is no study", notStudy, w, Fail, "junk"},
	} {
		c := checkStorage(context.Background(), Local(tc.d, tc.w))
		expect(t, tc.name, c, tc.status, tc.says)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 { // only junk's directory
		t.Errorf("the check wrote into %s: %v", root, entries)
	}
}
