package report

import (
	"strings"

	"github.com/servetune/servetune/studies/store"
)

// Where a trial ran: the host (the engine's environment fingerprint,
// else the host part of the default host:pid worker name), the GPUs its
// worker packed it onto, and the worker. Empty for a sequential study on
// one machine, which reports leave as they were.
type Where struct {
	Host    string
	Devices []string
	Worker  string
}

func whereOf(t store.Trial) Where {
	w := Where{Devices: t.Devices, Worker: t.Worker}
	if t.Fingerprint != nil {
		w.Host = t.Fingerprint.Host
	}
	// The default worker name is host:pid/slot (studies.DefaultWorkerID).
	if host, rest, ok := strings.Cut(t.Worker, ":"); w.Host == "" && ok && isDigits(strings.Split(rest, "/")[0]) {
		w.Host = host
	}
	return w
}

// String is the trial table's cell: "node-a · GPUs 0,1 · worker node-a:812/3".
func (w Where) String() string {
	var parts []string
	if w.Host != "" {
		parts = append(parts, w.Host)
	}
	if len(w.Devices) > 0 {
		parts = append(parts, "GPUs "+strings.Join(w.Devices, ","))
	}
	if w.Worker != "" {
		parts = append(parts, "worker "+w.Worker)
	}
	return strings.Join(parts, " · ")
}

// showWhere says whether the trial table needs the column: some trial
// ran on a worker or on packed GPUs.
func showWhere(pts []Point) bool {
	for _, p := range pts {
		if p.Where.Worker != "" || len(p.Where.Devices) > 0 {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
