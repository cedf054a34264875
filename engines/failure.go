package engines

import (
	"errors"
	"fmt"
)

// Class is why an engine failed a trial, classified from the engine's own
// messages and behaviour. How the trial ended as a whole (complete,
// pruned, infeasible, failed, interrupted) is the study's vocabulary
// (store.State); a class explains an infeasible or failed trial.
type Class string

const (
	// OOM and InvalidConfig say the config cannot run: the sampler learns
	// to leave the region.
	OOM           Class = "oom"
	InvalidConfig Class = "invalid_config"
	// The rest say something went wrong with this attempt.
	StartupTimeout         Class = "startup_timeout"
	CrashedDuringBenchmark Class = "crashed_during_benchmark"
	PortConflict           Class = "port_conflict"
	// Timeout: the trial (launch + benchmark) outlived its time limit,
	// e.g. an engine that accepts requests and never answers.
	Timeout Class = "timeout"
	// BenchFailed: the engine served, but too many benchmark requests
	// failed (errors, stalls) for its figures to mean anything.
	BenchFailed Class = "bench_failed"
	Unknown     Class = "unknown"
)

// Failure is a classified trial failure: the class, a one-line message and
// the log lines that decided the class.
type Failure struct {
	Class   Class    `json:"class"`
	Message string   `json:"message"`
	Lines   []string `json:"lines,omitempty"`
}

func (f *Failure) Error() string { return fmt.Sprintf("%s: %s", f.Class, f.Message) }

// AsFailure returns the Failure in err's chain, if any.
func AsFailure(err error) (*Failure, bool) {
	var f *Failure
	ok := errors.As(err, &f)
	return f, ok
}

// Infeasible reports whether a failure of class c says the config cannot
// run (as opposed to a transient or environmental failure).
func (c Class) Infeasible() bool {
	return c == OOM || c == InvalidConfig
}
