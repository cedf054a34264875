package store

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Liveness is what a reader can learn about the holders of running
// trials without taking any lock: the study lock's holder (nil when the
// lock file names none, or the study is shared), and whether a process
// of this host is alive.
type Liveness struct {
	Lock  *Holder
	Host  string
	Alive func(pid int) bool
}

// SharedLiveness is the liveness of a shared study's holders: leases
// and this host's processes only.
func SharedLiveness() Liveness {
	host, _ := os.Hostname()
	return Liveness{Host: host, Alive: pidAlive}
}

// MarkHolderGone marks, in memory, the running trials whose holder is
// dead as interrupted (HolderGone), so show does not list a killed
// run's trial as running until the next run records it.
func MarkHolderGone(ts []Trial, now time.Time, l Liveness) {
	for i := range ts {
		t := &ts[i]
		if t.State != Running {
			continue
		}
		if why := holderGone(*t, now, l); why != "" {
			t.State, t.HolderGone, t.Reason = Interrupted, true, why+"; the next run or worker records it interrupted and retries its config"
		}
	}
}

// workerIDRE is DefaultWorkerID with its slot: host:pid/slot.
var workerIDRE = regexp.MustCompile(`^(.+):(\d+)/\d+$`)

// holderGone says why a running trial's holder is dead, "" when it is
// alive or nobody can tell. A leased trial's holder is gone once its
// lease ran out, or when it names a process of this host that is dead;
// a trial of a lone run is its study lock holder's, gone when the lock
// names nobody or a dead process of this host. A holder on another host
// with an unexpired lease (or a lock there) may be alive.
func holderGone(t Trial, now time.Time, l Liveness) string {
	if !t.lease.IsZero() {
		if !now.Before(t.lease) {
			return fmt.Sprintf("worker %s stopped renewing its lease at %s", t.Worker, t.lease.Local().Format(time.RFC3339))
		}
		if m := workerIDRE.FindStringSubmatch(t.Worker); m != nil && m[1] == l.Host {
			if pid, _ := strconv.Atoi(m[2]); !l.Alive(pid) {
				return fmt.Sprintf("worker %s is dead", t.Worker)
			}
		}
		return ""
	}
	switch {
	case l.Lock == nil:
		return "no servetune holds the study"
	case l.Lock.Host == l.Host && !l.Alive(l.Lock.PID):
		return fmt.Sprintf("servetune pid %d, which ran it, is dead", l.Lock.PID)
	}
	return ""
}

// Holder is who holds a study's lock, as written in its lock file.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command string    `json:"command,omitempty"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s since %s (%s)", h.PID, h.Host, h.Started.Local().Format(time.RFC3339), h.Command)
}

// Me describes this process as a lock holder.
func Me(now time.Time) Holder {
	host, _ := os.Hostname()
	return Holder{PID: os.Getpid(), Host: host, Started: now, Command: strings.Join(os.Args, " ")}
}
