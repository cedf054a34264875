package fidelity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/internal/suggest"
)

// File is a measurements file: real runs, each with its serving config,
// workload and measured latencies.
type File struct {
	About string `json:"about,omitempty"`
	Runs  []Run  `json:"runs"`
}

// Run is one real benchmark run (vLLM here; the config fields are vLLM's).
type Run struct {
	ID                  string   `json:"id"`
	Engine              string   `json:"engine"`
	EngineVersion       string   `json:"engine_version,omitempty"`
	Model               string   `json:"model"`
	GPU                 string   `json:"gpu"`
	TP                  int      `json:"tp"`
	DP                  int      `json:"dp"`
	Precision           string   `json:"precision"`
	MaxNumBatchedTokens int      `json:"max_num_batched_tokens"`
	MaxNumSeqs          int      `json:"max_num_seqs"`
	GPUMemUtil          *float64 `json:"gpu_memory_utilization"`
	CPUKVOffload        any      `json:"cpu_kv_offload"`
	MaxModelLen         int      `json:"max_model_len"`
	PrefixCaching       *bool    `json:"prefix_caching"`
	ChunkedPrefill      *bool    `json:"chunked_prefill"`
	Workload            Workload `json:"workload"`
	// Measured holds "summary" and "stage_N" latency statistics (ms).
	Measured map[string]Stat `json:"measured_ms"`
}

// Workload is an inference-perf shared_prefix load.
type Workload struct {
	DataType        string  `json:"data_type"`
	SystemPromptLen int     `json:"system_prompt_len"`
	QuestionLen     int     `json:"question_len"`
	OutputLen       int     `json:"output_len"`
	Groups          int     `json:"num_unique_system_prompts"`
	UsersPerGroup   int     `json:"num_users_per_system_prompt"`
	MultiTurn       bool    `json:"enable_multi_turn_chat"`
	IgnoreEOS       *bool   `json:"ignore_eos"`
	MaxModelLen     int     `json:"max_model_len"`
	Stages          []Stage `json:"stages"`
}

// Stage is one {rate, duration} phase.
type Stage struct {
	Rate      float64 `json:"rate"`
	DurationS float64 `json:"duration_s"`
}

// Stat is a stage's (or the run's) measured latencies in milliseconds;
// absent ones are nil.
type Stat struct {
	E2EMean  *float64 `json:"e2e_mean,omitempty"`
	E2EP90   *float64 `json:"e2e_p90,omitempty"`
	E2EP99   *float64 `json:"e2e_p99,omitempty"`
	TTFTMean *float64 `json:"ttft_mean,omitempty"`
	TTFTP90  *float64 `json:"ttft_p90,omitempty"`
	TTFTP99  *float64 `json:"ttft_p99,omitempty"`
	ITLMean  *float64 `json:"itl_mean,omitempty"`
}

// Load reads and checks a measurements file.
func Load(path string) (*File, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if le := (*LineError)(nil); errors.As(err, &le) {
		return nil, fmt.Errorf("%s:%d: %w", path, le.Line, le.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse decodes and checks a measurements file's bytes. Unknown keys are
// refused, so a misspelt field is not silently a default.
func Parse(b []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, describe(b, err)
	}
	if len(f.Runs) == 0 {
		return nil, errors.New("no runs")
	}
	var errs []error
	first := map[string]int{}
	for i, r := range f.Runs {
		for _, e := range r.Problems() {
			errs = append(errs, fmt.Errorf("runs[%d] (id %q): %s", i, r.ID, e))
		}
		// A run is named by its id in every report row and held out by it
		// in leave-one-out: two of one id read as one run.
		if j, seen := first[r.ID]; seen && r.ID != "" {
			errs = append(errs, fmt.Errorf("runs[%d].id: %q is runs[%d]'s too; give each run its own id", i, r.ID, j))
		} else if !seen {
			first[r.ID] = i
		}
	}
	return &f, errors.Join(errs...)
}

// LineError is a problem at a line of the file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// describe adds the line of a JSON syntax or type error, and names a
// misspelt key with the one it is closest to.
func describe(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok && off < 0 {
		name, _ = strconv.Unquote(name)
		if i := bytes.Index(b, []byte(strconv.Quote(name))); i >= 0 {
			off = int64(i)
		}
		err = fmt.Errorf("%s: unknown key%s", name, suggest.Hint(name, fieldNames()))
	}
	if off < 0 {
		return err
	}
	return &LineError{Line: 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n")), Err: err}
}

// fieldNames are the keys a measurements file may use, for did-you-mean.
func fieldNames() []string {
	var out []string
	for _, t := range []reflect.Type{reflect.TypeFor[File](), reflect.TypeFor[Run](), reflect.TypeFor[Workload](), reflect.TypeFor[Stage](), reflect.TypeFor[Stat]()} {
		for f := range t.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// Problems lists what makes the run unreplayable.
func (r Run) Problems() []string {
	var p []string
	if r.Engine != engines.VLLM {
		p = append(p, fmt.Sprintf("engine %q: only vllm runs can be replayed", r.Engine))
	}
	if r.TP < 1 || r.DP < 0 {
		p = append(p, fmt.Sprintf("tp %d / dp %d must be positive", r.TP, r.DP))
	}
	w := r.Workload
	if w.DataType != "shared_prefix" {
		p = append(p, fmt.Sprintf("workload.data_type %q: only shared_prefix is replayed", w.DataType))
	}
	if len(w.Stages) == 0 {
		p = append(p, "workload.stages is empty")
	}
	for i, s := range w.Stages {
		if !(s.Rate > 0) || !(s.DurationS > 0) {
			p = append(p, fmt.Sprintf("workload.stages[%d]: rate and duration_s must be > 0", i))
		}
	}
	if _, ok := r.Measured["summary"]; !ok {
		p = append(p, "measured_ms.summary is missing")
	}
	for k := range r.Measured {
		if k == "summary" {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(k, "stage_%d", &n); err != nil || n < 0 || n >= len(w.Stages) || fmt.Sprintf("stage_%d", n) != k {
			p = append(p, fmt.Sprintf("measured_ms.%s: want summary or stage_0..stage_%d", k, len(w.Stages)-1))
		}
	}
	p = append(p, configProblems(r)...)
	p = append(p, workloadProblems(w)...)
	p = append(p, statProblems(r.Measured)...)
	sort.Strings(p)
	return p
}

// readBounded reads at most maxFile bytes of path.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s: larger than %d MiB, the most a measurements file may be", path, maxFile>>20)
	}
	return b, nil
}

// CardProblems are the runs whose model or GPU the cards do not know:
// such a run replayed as nothing, the report's rows "0 of 0", the command
// exiting 0. Each names its run and key, with the cards' did-you-mean.
func (f *File) CardProblems(cards *sim.Cards) error {
	var errs []error
	for i, r := range f.Runs {
		if _, err := cards.Model(r.Model); err != nil {
			errs = append(errs, fmt.Errorf("runs[%d] (id %q): model: %v", i, r.ID, err))
		}
		if _, err := cards.GPU(r.GPU); err != nil {
			errs = append(errs, fmt.Errorf("runs[%d] (id %q): gpu: %v", i, r.ID, err))
		}
	}
	return errors.Join(errs...)
}
