package store

import (
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// State is how a trial stands or ended. It is the one vocabulary of trial
// outcomes: engines only say why an engine failed (Trial.Failure), and the
// sampler sees a projection of these states (search.State).
type State string

const (
	// Running: begun and not finished; a dead process leaves it so, and
	// the next run records it as Interrupted.
	Running State = "running"
	// Complete: measured; its metrics count.
	Complete State = "complete"
	// Pruned: stopped early because it could not win; Reason says why,
	// and its partial checkpoints what it had reached.
	Pruned State = "pruned"
	// Infeasible: the config cannot run — it breaks a space rule (never
	// launched; Reason names the rule) or the engine refused it (Failure
	// says oom or invalid_config).
	Infeasible State = "infeasible"
	// Failed: it ran and failed for a reason that says nothing certain
	// about the config region (crash, timeout, failed benchmark);
	// Failure says which.
	Failed State = "failed"
	// Interrupted: servetune stopped during the trial. It does not count
	// toward n_trials and its config is retried once.
	Interrupted State = "interrupted"
)

// Trial is the stored record of one trial; its JSON is the export contract.
type Trial struct {
	Number int   `json:"number"`
	State  State `json:"state"`
	// Origin is why the trial ran: baseline, enqueued (the space's
	// [[enqueue]]), warm-start (--warm-start), prior (the simulator prior
	// chose it), sampler, repeat, retry or reused.
	Origin string       `json:"origin"`
	Config space.Config `json:"config"`
	// Metrics maps profile → metric → value; undefined metrics are absent.
	Metrics map[string]map[string]float64 `json:"metrics,omitempty"`
	// Failure is why the engine or its benchmark failed, as classified
	// from the engine's own messages.
	Failure *engines.Failure `json:"failure,omitempty"`
	// Reason says why a trial that did not complete ended as it did when
	// no engine failure explains it: the rule it breaks, why it was
	// pruned, what interrupted it.
	Reason     string    `json:"reason,omitempty"`
	LogPath    string    `json:"log_path,omitempty"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end,omitzero"`
	GPUSeconds float64   `json:"gpu_seconds"`
	// RetryOf is the interrupted trial this one retries; ReusedFrom the
	// trial whose measurement this one reuses.
	RetryOf    int `json:"retry_of,omitempty"`
	ReusedFrom int `json:"reused_from,omitempty"`
	// Intermediate holds the objective values at each benchmark
	// checkpoint, so later trials can be pruned against this one.
	Intermediate []search.Checkpoint `json:"intermediate,omitempty"`
	// Replies are the trial's replies per quality profile, in prompt
	// order: the baseline's are what baseline_agreement compares with.
	Replies map[string][]string `json:"replies,omitempty"`
	// Ran is the command the engine actually ran with (prefix, program
	// override, listen flags, the variables servetune set; credentials
	// redacted), and Fingerprint the environment it ran in; both absent
	// for simulated trials and trials that launched nothing.
	Ran         *engines.Command     `json:"ran,omitempty"`
	Fingerprint *engines.Fingerprint `json:"fingerprint,omitempty"`
	// Worker is the worker that claimed the trial when several run the
	// study at once (absent for a study run by one).
	Worker string `json:"worker,omitempty"`
	// Devices are the GPUs the trial ran on when its worker packed
	// trials onto its GPUs (absent otherwise).
	Devices []string `json:"devices,omitempty"`
	// Runner is what measured the trial: "sim" (the simulator: its
	// metrics are simulated, not measured) or "process" (a real engine).
	Runner string `json:"runner,omitempty"`
	// Prediction is what the prior predicted for the config before it
	// ran (absent when no prior was asked).
	Prediction *Prediction `json:"prediction,omitempty"`
	// Intervals are, per profile and metric, the simulator's stated
	// interval around the trial's simulated value: a simulated trial of
	// a real runner's study (target.simulated_gpus) has them, for each
	// metric the simulator states one for; absent otherwise.
	Intervals map[string]map[string]Interval `json:"intervals,omitempty"`
	// HolderGone: the trial is stored running but its holder (the run
	// holding the study's lock, or the worker holding its lease) is
	// dead, so it reads as interrupted; the next run or worker records
	// it so. Set by MarkHolderGone when a study is read for showing.
	HolderGone bool `json:"holder_gone,omitempty"`
	// lease is when a worker's claim on a running trial runs out (zero
	// for a trial of a run holding the study's lock).
	lease time.Time
}

// Prediction is the prior's forecast for a trial: its objective values in
// space order (absent when it predicted the config would not start) and
// whether it predicted the config starts at all. Intervals are the
// prior's stated 80% and 95% intervals around Values (one per objective,
// null where it states none; absent when it states none at all, and in
// predictions stored before it stated any). Stored as JSON in the trial's
// row, so the field needs no migration.
type Prediction struct {
	Values    []float64   `json:"values,omitempty"`
	Feasible  bool        `json:"feasible"`
	Intervals []*Interval `json:"intervals,omitempty"`
}

// Interval bounds a predicted value: 80% (95%) of measurements are meant
// to fall within [Lo80, Hi80] ([Lo95, Hi95]).
type Interval struct {
	Lo80 float64 `json:"lo80"`
	Hi80 float64 `json:"hi80"`
	Lo95 float64 `json:"lo95"`
	Hi95 float64 `json:"hi95"`
}

// Simulated reports whether the trial's metrics come from the simulator.
func (t Trial) Simulated() bool { return t.Runner == "sim" }

// BrokeRule reports a config that was never launched because it breaks a
// space rule: it costs nothing and does not count toward n_trials.
func (t Trial) BrokeRule() bool { return t.State == Infeasible && t.Failure == nil }

// Why is one line saying why a trial did not complete ("" when it did).
func (t Trial) Why() string {
	switch {
	case t.Failure != nil:
		s := string(t.Failure.Class) + ": " + t.Failure.Message
		if len(t.Failure.Lines) > 0 {
			s += " | " + t.Failure.Lines[len(t.Failure.Lines)-1]
		}
		return s
	case t.Reason != "":
		return string(t.State) + ": " + t.Reason
	}
	return ""
}
