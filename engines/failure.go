package engines

import (
	"errors"
	"fmt"
)

// Class is why a trial failed. The sampler treats OOM, InvalidConfig and
// Infeasible as infeasible regions; the others as noise to retry or report.
type Class string

const (
	OOM                    Class = "oom"
	InvalidConfig          Class = "invalid_config"
	StartupTimeout         Class = "startup_timeout"
	CrashedDuringBenchmark Class = "crashed_during_benchmark"
	PortConflict           Class = "port_conflict"
	Interrupted            Class = "interrupted"
	// Infeasible is a config that breaks a space rule; it is never launched.
	Infeasible Class = "infeasible"
	// Pruned is not a failure: the pruner stopped a trial that could not
	// win; its message says why and when.
	Pruned  Class = "pruned"
	Unknown Class = "unknown"
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

// InfeasibleClass reports whether a failure tells the sampler the region
// is infeasible (as opposed to a transient or environmental failure).
func InfeasibleClass(c Class) bool {
	return c == OOM || c == InvalidConfig || c == Infeasible
}
