package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/servetune/servetune/engines/enginetest"
)

// The servetune binary, built once for every test that needs a real
// process (kill -9, sim serve launched by the engine adapters, Ollama).
var testBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	enginetest.Main() // returns unless this process is a fake engine
	code := m.Run()
	if testBinary.dir != "" {
		os.RemoveAll(testBinary.dir)
	}
	os.Exit(code)
}

// buildBinary returns the path of a servetune binary built from this
// package.
func buildBinary(t *testing.T) string {
	t.Helper()
	testBinary.once.Do(func() {
		if testBinary.dir, testBinary.err = os.MkdirTemp("", "servetune-bin-"); testBinary.err != nil {
			return
		}
		testBinary.path = filepath.Join(testBinary.dir, "servetune")
		testBinary.out, testBinary.err = exec.Command("go", "build", "-o", testBinary.path, ".").CombinedOutput()
	})
	if testBinary.err != nil {
		t.Fatalf("go build: %v\n%s", testBinary.err, testBinary.out)
	}
	return testBinary.path
}
