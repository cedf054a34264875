package pgtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// User is the system user the cluster runs as when tests run as root.
const User = "servetune-pg"

// Start starts a cluster and returns a URL of its postgres database.
func Start(t testing.TB) string {
	t.Helper()
	return StartCluster(t).URL
}

// Cluster is a running throwaway cluster that a test may stop and start
// again on the same port (a database restart).
type Cluster struct {
	// URL is the cluster's postgres database.
	URL             string
	t               testing.TB
	cred            *syscall.Credential
	bin, data, sock string
	port            int
}

// StartCluster starts a cluster, stopped and removed when the test ends.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(t)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL cannot start (required in CI): %v", err)
		}
		t.Skipf("PostgreSQL cannot start: %v", err)
	}
	return c
}

// Stop stops the server as a crash would: pg_ctl stop -m immediate
// (no checkpoint; clients see their connections cut).
func (c *Cluster) Stop() error {
	out, err := command(c.cred, filepath.Join(c.bin, "pg_ctl"), "stop", "-D", c.data, "-m", "immediate", "-w").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// Restart starts the stopped server again on the same port (it
// recovers from its log first) and returns once it accepts connections.
func (c *Cluster) Restart() error {
	return serve(c.t, c.cred, filepath.Join(c.bin, "postgres"), c.data, c.sock, c.port)
}

func start(t testing.TB) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "servetune-pg-")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := own(dir, cred); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := command(cred, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c := &Cluster{t: t, cred: cred, bin: bin, data: data, sock: dir, port: port,
		URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	return c, c.Restart()
}

// binDir finds the server binaries: on PATH, or in /usr/local/bin.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	if _, err := os.Stat("/usr/local/bin/initdb"); err != nil {
		return "", fmt.Errorf("no initdb on PATH or in /usr/local/bin: %w", err)
	}
	return "/usr/local/bin", nil
}

// credential is nil when the tests do not run as root; as root it is the
// dedicated user's, created when missing.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(User)
	if err != nil {
		if out, err := exec.Command("useradd", "-r", "-M", "-s", "/usr/sbin/nologin", User).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("useradd %s: %w: %s", User, err, out)
		}
		if u, err = user.Lookup(User); err != nil {
			return nil, err
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func own(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return os.Chown(dir, int(cred.Uid), int(cred.Gid))
}

func command(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return cmd
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serve starts postgres and returns once it says it accepts connections
// (or has exited); the test's cleanup stops it with a fast shutdown.
func serve(t testing.TB, cred *syscall.Credential, postgres, data, sock string, port int) error {
	cmd := command(cred, postgres, "-D", data, "-p", strconv.Itoa(port), "-k", sock,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	return awaitReady(stderr)
}

// awaitReady reads the server's log until it is ready, then drains it.
func awaitReady(r io.Reader) error {
	sc := bufio.NewScanner(r)
	var log []string
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if strings.Contains(line, "database system is ready to accept connections") {
			go io.Copy(io.Discard, r)
			return nil
		}
	}
	return fmt.Errorf("postgres exited before it was ready:\n%s", strings.Join(log, "\n"))
}
