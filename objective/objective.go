package objective

import (
	"context"
	"errors"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Phase is where a trial is, for live progress lines.
type Phase string

const (
	Launching    Phase = "launching"
	WarmingUp    Phase = "warming up"
	Benchmarking Phase = "benchmarking"
	TearingDown  Phase = "tearing down"
)

// Trial is everything a runner needs to measure one config.
type Trial struct {
	Number   int
	Config   space.Config
	Target   space.Target
	Profiles []bench.Profile
	// Dir is the trial's own directory (engine.log, generated files).
	Dir  string
	Seed int64
	// OnPhase, when set, is told each phase change.
	OnPhase func(Phase)
	// Judge, when set, is asked at each checkpoint of a profile's
	// benchmark (bench.CheckpointSteps) through Report; a stop verdict
	// ends the trial, which returns ErrPruned with the partial metrics.
	Judge Judge
	// Timeout bounds the whole trial, launch to teardown (0: no bound);
	// Measure applies it.
	Timeout time.Duration
	// MaxFailedFraction is the share of failed requests above which
	// Measure fails the benchmark.
	MaxFailedFraction float64
	// BaselineReplies are the baseline trial's replies per quality
	// profile, for baseline_agreement; nil until the baseline finished.
	// The baseline trial itself (IsBaseline) agrees with itself: 1.
	BaselineReplies map[string][]string
	IsBaseline      bool
	// Devices are the GPUs this trial owns when trials are packed onto
	// a worker's GPUs (nil: the target's own setting); a launched engine
	// sees only them.
	Devices []string
}

// ErrPruned says the trial was stopped early because it could not win.
var ErrPruned = errors.New("trial pruned")

// Result is what a trial measured. Metrics maps profile name → metric
// name → value (names as bench.Metrics.Values).
type Result struct {
	Metrics map[string]map[string]float64 `json:"metrics"`
	// GPUSeconds is wall time × GPUs spent on this trial, failures included.
	GPUSeconds float64       `json:"gpu_seconds"`
	Duration   time.Duration `json:"duration"`
	LogPath    string        `json:"log_path,omitempty"`
	// Checkpoints are what the benchmark had measured at each checkpoint
	// it reported, in order; Pruned is the verdict that stopped it.
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
	Pruned      *Verdict     `json:"pruned,omitempty"`
	// Errors holds, per profile with failed requests, the most frequent
	// request error (redacted), for the reason of a failed benchmark.
	Errors map[string]string `json:"errors,omitempty"`
	// Replies holds each quality profile's replies in prompt order
	// (bench.Replies), kept with the trial so that the baseline's become
	// the reference of baseline_agreement.
	Replies map[string][]string `json:"replies,omitempty"`
	// Ran is the command the engine was started with (credentials
	// redacted) and Fingerprint its environment; nil when no engine ran.
	Ran         *engines.Command     `json:"ran,omitempty"`
	Fingerprint *engines.Fingerprint `json:"fingerprint,omitempty"`
	// Intervals are, per profile and metric, the simulator's stated
	// interval around a simulated value (sim.Uncertainty): filled by a
	// SimRunner made WithIntervals, for a metric with a spread only.
	Intervals map[string]map[string]sim.Interval `json:"intervals,omitempty"`
}

// Runner measures one trial. A failed trial returns an error wrapping an
// *engines.Failure, and still fills Result.GPUSeconds.
type Runner interface {
	Run(ctx context.Context, t Trial) (Result, error)
}
