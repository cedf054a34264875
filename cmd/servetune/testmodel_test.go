package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/gguf"
)

func TestTestmodelWritesAReadableDeterministicModel(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, name := range []string{"a.gguf", "b.gguf"} {
		var out, errb bytes.Buffer
		out1 := filepath.Join(dir, name)
		code := run(context.Background(), []string{"servetune", "testmodel", "--out", out1, "--dim", "32", "--layers", "2", "--ffn", "48", "--heads", "2", "--seed", "5"}, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "wrote "+out1) {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
		}
		b, err := os.ReadFile(out1)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("same flags wrote different models")
	}
	f, err := gguf.Read(bytes.NewReader(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Get("llama.block_count"); v != uint32(2) {
		t.Errorf("block_count = %v; want 2", v)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".testmodel-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestTestmodelRejectsBadShapes(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"servetune", "testmodel", "--out", filepath.Join(t.TempDir(), "x.gguf"), "--dim", "30", "--heads", "4"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--dim 30 must be divisible by --heads 4") {
		t.Fatalf("exit %d, stderr %q; want 2 and the shape error", code, errb.String())
	}
}
