package engines

import (
	"fmt"
	"regexp"
	"strings"
)

// pattern is a log line that decides a failure class.
type pattern struct {
	Class Class
	// Re matches one log line.
	Re *regexp.Regexp
	// Why is the one-line message stored with the trial.
	Why string
	// Quote appends the matched line to Why: for messages that say
	// everything themselves (a usage error names the flag).
	Quote bool
}

// Stage is how far a trial got when its engine stopped.
type Stage int

const (
	// Starting is launch → ready.
	Starting Stage = iota
	// Serving is after ready: warm-up and benchmark.
	Serving
)

// Exit is how the engine process ended, as the classifier needs it.
type Exit struct {
	// Exited is false when the process was still running (a timeout).
	Exited bool
	Code   int
	// Signal is the terminating signal's name ("killed", "terminated"),
	// empty for a normal exit.
	Signal string
	// TimedOut marks a readiness wait that ran out of time.
	TimedOut bool
}

func (e Exit) String() string {
	switch {
	case e.TimedOut:
		return "did not become ready in time"
	case !e.Exited:
		return "still running"
	case e.Signal != "":
		return "killed by signal " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// maxDecidingLines bounds the lines kept as evidence with a trial.
const maxDecidingLines = 8

// Classify decides why engine e failed from the stage it reached, how it
// exited and the tail of its log, by e's own messages first (a declared
// engine's too), then every engine's. Port conflicts win over everything
// (the config was never tried), then out-of-memory (the config does not
// fit), then configuration errors; what remains is startup_timeout,
// crashed_during_benchmark or unknown. Pure, so every engine's real
// messages are table-tested.
func Classify(e Engine, stage Stage, exit Exit, tail []string) *Failure {
	return classify(e.Name(), e.patterns(), stage, exit, tail)
}

// classify is Classify with the engine's own patterns given.
func classify(engine string, own []pattern, stage Stage, exit Exit, tail []string) *Failure {
	pats := append(append([]pattern(nil), own...), commonPatterns()...)
	for _, class := range []Class{PortConflict, OOM, InvalidConfig} {
		if stage == Serving && class == InvalidConfig {
			continue // config errors surface at startup; later ones are crashes
		}
		var lines []string
		why := ""
		for _, l := range tail {
			for _, p := range pats {
				if p.Class == class && p.Re.MatchString(l) {
					if why == "" {
						why = p.Why
						if p.Quote {
							why += ": " + strings.TrimSpace(l)
						}
					}
					lines = append(lines, strings.TrimSpace(l))
					break
				}
			}
		}
		if why != "" {
			return &Failure{Class: class, Message: fmt.Sprintf("%s: %s (%s)", engine, why, exit), Lines: lastN(lines, maxDecidingLines)}
		}
	}
	evidence := lastN(nonEmpty(tail), 3)
	switch {
	case exit.TimedOut:
		return &Failure{Class: StartupTimeout, Message: fmt.Sprintf("%s did not become ready before the startup timeout", engine), Lines: evidence}
	case stage == Serving:
		return &Failure{Class: CrashedDuringBenchmark, Message: fmt.Sprintf("%s stopped during the benchmark (%s)", engine, exit), Lines: evidence}
	case exit.Signal == "killed":
		return &Failure{Class: Unknown, Message: fmt.Sprintf("%s was killed by SIGKILL during startup (host out of memory?)", engine), Lines: evidence}
	case exit.Exited && exit.Code == 0 && exit.Signal == "":
		return cleanExitAtStartup(engine, evidence)
	}
	return &Failure{Class: Unknown, Message: fmt.Sprintf("%s exited during startup (%s)", engine, exit), Lines: evidence}
}

// cleanExitAtStartup: a server never exits 0 before serving unless it
// refused to start — some (Go programs among them) print a usage error and
// exit 0. The last line it printed is the best reason there is.
func cleanExitAtStartup(engine string, evidence []string) *Failure {
	msg := fmt.Sprintf("%s exited during startup with status 0", engine)
	if len(evidence) > 0 {
		msg += ": " + strings.TrimSpace(evidence[len(evidence)-1])
	}
	return &Failure{Class: InvalidConfig, Message: msg, Lines: evidence}
}

func pat(c Class, re, why string) pattern {
	return pattern{Class: c, Re: regexp.MustCompile(re), Why: why}
}

func quoted(c Class, re, why string) pattern {
	p := pat(c, re, why)
	p.Quote = true
	return p
}

// commonPatterns are messages any engine prints: PyTorch and CUDA
// out-of-memory, a taken port, argparse/click usage errors, Go's flag
// package (`flag provided but not defined`) and cobra/pflag (`unknown
// flag`). Python exceptions may follow a process prefix: vLLM writes
// engine-core output as "(EngineCore_DP0 pid=123) ValueError: …".
func commonPatterns() []pattern {
	return []pattern{
		pat(PortConflict, `(?i)address already in use|\[Errno 98\]`, "port already in use"),
		pat(OOM, `torch\.OutOfMemoryError|torch\.cuda\.OutOfMemoryError|CUDA out of memory`, "CUDA out of memory"),
		pat(OOM, `CUDA error: out of memory|cudaErrorMemoryAllocation|CUBLAS_STATUS_ALLOC_FAILED|out of memory`, "CUDA out of memory"),
		pat(InvalidConfig, `error: (argument|the following arguments are required)`, "rejected arguments"),
		pat(InvalidConfig, `^\s*(Error: (No such option|Invalid value|Got unexpected extra argument|Missing))`, "rejected arguments"),
		quoted(InvalidConfig, `unknown (short )?flag: -|flag provided but not defined: -|unrecognized arguments: `, "rejected arguments"),
		pat(InvalidConfig, `^\s*(\(\w+ pid=\d+\)\s*)?(\w+\.)*(ValueError|AssertionError|NotImplementedError|pydantic[\w.]*ValidationError)\b`, "engine rejected the configuration"),
		pat(InvalidConfig, `validation errors? for \w+`, "engine rejected the configuration"),
	}
}

func lastN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			out = append(out, x)
		}
	}
	return out
}

// Engine-specific patterns, from the messages in docs/engines.md.

func (vllm) patterns() []pattern {
	return []pattern{
		pat(OOM, `No available memory for the cache blocks`, "no GPU memory left for the KV cache"),
		pat(OOM, `KV cache is needed, which is larger than the available KV cache memory`, "KV cache too small for max_model_len"),
		pat(OOM, `on startup is less than desired GPU memory utilization`, "free GPU memory below gpu_memory_utilization"),
		pat(OOM, `CUDA out of memory occurred when warming up sampler`, "out of memory warming up the sampler"),
		pat(InvalidConfig, `must be divisible by|is larger than the number of available GPUs|must be greater than or equal to max_num_seqs|is smaller than max_model_len|is greater than the derived max_model_len|enable_expert_parallel must be True|num_speculative_tokens was provided but without speculative model`, "invalid combination of settings"),
	}
}

func (sglang) patterns() []pattern {
	return []pattern{
		pat(OOM, `Not enough memory\. Please try to increase --mem-fraction-static`, "KV cache pool would be empty"),
		pat(OOM, `Capture cuda graph failed`, "out of memory capturing CUDA graphs"),
		pat(OOM, `The memory capacity is unbalanced`, "GPU memory unbalanced (other processes on the GPUs)"),
		pat(InvalidConfig, `must be divisible by|is greater than the derived context_length|is not compatible with|Please enable dp attention|enable_mixed_chunk is required for speculative decoding`, "invalid combination of settings"),
	}
}

func (trtllm) patterns() []pattern {
	return []pattern{
		pat(InvalidConfig, `Invalid decoding type|must equal to moe_world_size|Please don't set both cuda_graph_config|Extra inputs are not permitted|No GPU devices found`, "invalid combination of settings"),
	}
}
