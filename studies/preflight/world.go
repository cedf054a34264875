package preflight

import (
	"context"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/space"
)

// World is the machine the checks look at; tests replace any part.
type World struct {
	LookPath func(file string) (string, error)
	// Version is what engine reports as target t runs it ("" unknown).
	Version func(ctx context.Context, t space.Target, engine string) string
	// SMI runs nvidia-smi with args; ok is false when it is not installed.
	SMI    func(ctx context.Context, args ...string) (out string, ok bool, err error)
	Stat   func(path string) (fs.FileInfo, error)
	Getenv func(key string) string
	// Writable says whether a directory can be written to, without
	// writing to it.
	Writable func(dir string) error
	Listen   func(network, addr string) (net.Listener, error)
}

// smiTimeout bounds nvidia-smi, which hangs on a wedged driver.
const smiTimeout = 30 * time.Second

// System is this machine.
func System() World {
	return World{
		LookPath: exec.LookPath,
		Version: func(ctx context.Context, t space.Target, engine string) string {
			return launch.EnvironmentNow(ctx, t, engine).EngineVersion
		},
		SMI:      runSMI,
		Stat:     os.Stat,
		Getenv:   os.Getenv,
		Writable: writable,
		Listen:   net.Listen,
	}
}

func runSMI(ctx context.Context, args ...string) (string, bool, error) {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return "", false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, smiTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).Output()
	return string(out), true, err
}
