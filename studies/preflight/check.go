package preflight

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Status is a check's outcome. A warning is worth reading but does not
// stop a night; a failure would cost it.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "FAIL"
)

// Check is one thing the night depends on.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
}

func ok(name, format string, a ...any) Check {
	return Check{Name: name, Status: OK, Detail: fmt.Sprintf(format, a...)}
}

func warn(name, format string, a ...any) Check {
	return Check{Name: name, Status: Warn, Detail: fmt.Sprintf(format, a...)}
}

func fail(name, format string, a ...any) Check {
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf(format, a...)}
}

// Report is a dry run's result.
type Report struct {
	Checks []Check `json:"checks"`
	// Commands are the first trials' serving commands: the baseline,
	// then the first proposals, as the study would launch them.
	Commands []Proposal `json:"commands"`
	Estimate *Estimate  `json:"estimate,omitempty"`
	// NoEstimate says why there is no estimate.
	NoEstimate string `json:"no_estimate,omitempty"`
}

// Proposal is one trial the study would run first.
type Proposal struct {
	Trial   int    `json:"trial"`
	Origin  string `json:"origin"`
	Command string `json:"command"`
}

// Estimate is the simulator's view of the whole study.
type Estimate struct {
	Trials   int           `json:"trials"`
	Duration time.Duration `json:"duration"`
	// DeviceHours are GPU-hours (CPU-hours on a CPU target).
	DeviceHours float64 `json:"device_hours"`
	Unit        string  `json:"unit"`
}

// Failed says whether any check failed.
func (r Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Text renders the report for a terminal.
func (r Report) Text(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Checks:\n")
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-4s  %-10s  %s\n", c.Status, c.Name, c.Detail)
	}
	if len(r.Commands) > 0 {
		b.WriteString("\nFirst trials:\n")
		for _, p := range r.Commands {
			fmt.Fprintf(&b, "  trial %d (%s):\n    %s\n", p.Trial, p.Origin, strings.ReplaceAll(p.Command, "\n", "\n    "))
		}
	}
	switch {
	case r.Estimate != nil:
		e := r.Estimate
		fmt.Fprintf(&b, "\nSimulated estimate: %d trials in %s, %.1f simulated %s.\n", e.Trials, e.Duration.Round(time.Minute), e.DeviceHours, e.Unit)
	case r.NoEstimate != "":
		fmt.Fprintf(&b, "\nNo estimate: %s.\n", r.NoEstimate)
	}
	if r.Failed() {
		b.WriteString("\nA check failed: the study would fail. Nothing was launched or written.\n")
	} else {
		b.WriteString("\nEvery check passed. Nothing was launched or written.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
