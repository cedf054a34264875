package studies

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// `servetune studies` lists each study under the directory with its
// counts, and a study that does not open with why.
func TestListAndWriteList(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sp := studySpace(t, 3, "")
	d := studydir.For(root, sp)
	st, err := store.Open(ctx, d.DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(st.SetMeta(ctx, "space", studySource(3, "")), st.SetMeta(ctx, "space_file", "unit.toml")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.MkdirAll(filepath.Join(root, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "broken", "study.db"), []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := List(ctx, root, "")
	if len(list) != 2 {
		t.Fatalf("listed %d studies, want 2", len(list))
	}
	var out bytes.Buffer
	if err := WriteList(&out, list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "study") {
		t.Fatalf("table:\n%s", out.String())
	}
	var unit, broken string
	for _, l := range lines[1:] {
		switch f := strings.Fields(l); f[0] {
		case "unit":
			unit = l
		case "broken":
			broken = l
		}
	}
	if f := strings.Fields(unit); len(f) != 5 || f[1] != "0" || f[2] != "0" || f[3] != "-" || f[4] != d.DB() {
		t.Errorf("the study's line: %q", unit)
	}
	if f := strings.Fields(broken); len(f) < 4 || f[1] != "-" || f[2] != "-" {
		t.Errorf("the broken study's line: %q", broken)
	}
	if regions, err := StoredOutlook(ctx, "", d, "unit"); err != nil || len(regions) != 0 {
		t.Errorf("outlook of a study that stored none: %v, %v", regions, err)
	}
}

// A storage that cannot list its studies is a row saying why and a failed
// command: it exited 0, and a script read an empty list as "no studies"
// (issue 48, fifth pass).
func TestWriteListFailsWhenTheStorageCannotList(t *testing.T) {
	list := []Listed{{Name: "-", Storage: true, Open: func() (*space.Space, []store.Trial, string, error) {
		return nil, nil, "postgres://u@127.0.0.1:1/x", errors.New("connection refused")
	}}}
	var out bytes.Buffer
	err := WriteList(&out, list)
	if err == nil || !strings.Contains(out.String(), "connection refused") {
		t.Fatalf("err %v, table:\n%s; want the row and an error", err, out.String())
	}
}
