package preflight

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/space"
)

// fake is a machine described by tables.
type fake struct {
	programs map[string]string // name → path
	versions map[string]string // engine → reported version
	smi      map[string]string // first argument → output; absent: not installed
	files    map[string]bool   // path → is a directory
	env      map[string]string
	readOnly map[string]bool // directories not writable
	taken    map[string]bool // addresses in use
	badHosts map[string]bool // hosts that cannot be bound
}

func (f fake) world() World {
	return World{
		LookPath: func(p string) (string, error) {
			if path, ok := f.programs[p]; ok {
				return path, nil
			}
			return "", errors.New("executable file not found in $PATH")
		},
		Version: func(_ context.Context, _ space.Target, e string) string { return f.versions[e] },
		SMI: func(_ context.Context, args ...string) (string, bool, error) {
			if f.smi == nil {
				return "", false, nil
			}
			return f.smi[args[0]], true, nil
		},
		Stat: func(p string) (fs.FileInfo, error) {
			if dir, ok := f.files[p]; ok {
				return fileInfo{dir: dir}, nil
			}
			return nil, fs.ErrNotExist
		},
		Getenv: func(k string) string { return f.env[k] },
		Writable: func(dir string) error {
			if f.readOnly[dir] {
				return os.ErrPermission
			}
			return nil
		},
		Listen: func(_, addr string) (net.Listener, error) {
			host, _, _ := net.SplitHostPort(addr)
			if f.badHosts[host] || f.taken[addr] {
				return nil, errors.New("bind: address already in use")
			}
			return nopListener{}, nil
		},
	}
}

type fileInfo struct{ dir bool }

func (fileInfo) Name() string        { return "f" }
func (fileInfo) Size() int64         { return 16e9 }
func (i fileInfo) Mode() fs.FileMode { return map[bool]fs.FileMode{true: fs.ModeDir}[i.dir] }
func (fileInfo) ModTime() time.Time  { return time.Time{} }
func (i fileInfo) IsDir() bool       { return i.dir }
func (fileInfo) Sys() any            { return nil }

type nopListener struct{}

func (nopListener) Accept() (net.Conn, error) { return nil, errors.New("closed") }
func (nopListener) Close() error              { return nil }
func (nopListener) Addr() net.Addr            { return &net.TCPAddr{} }

const (
	smiGPUs = "--query-gpu=index,uuid,memory.used,memory.total"
	smiApps = "--query-compute-apps=pid,gpu_uuid,used_memory"
)

// freeGPUs is an nvidia-smi listing of n idle H100s.
func freeGPUs(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Join([]string{strconv.Itoa(i), "GPU-" + strconv.Itoa(i), "3", "81559"}, ", ") + "\n")
	}
	return b.String()
}
