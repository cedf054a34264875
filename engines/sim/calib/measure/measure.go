package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/space"
)

// Measurement is one benchmark run and the serving config it ran with.
type Measurement struct {
	// Source names the run in reports: "file.json" or "file.json[2]".
	Source  string
	Engine  string
	Version string
	Model   string
	GPU     string
	GPUs    int
	// Config holds knobs of servetune's vocabulary ("engine" not
	// included); Command, when given, was parsed into it by the caller.
	Config  space.Config
	Command []string
	// Profile is the load the run measured: the wrapper's, the servetune
	// result's, or derived from a vLLM result's totals.
	Profile bench.Profile
	// Values are the measured metrics by servetune name (mean_ttft_ms,
	// total_tps, ...): finite and positive only.
	Values map[string]float64

	at func(key, format string, a ...any) error // positions Errorf
}

// Errorf is a problem the caller found with key of this run (e.g.
// "config.max_running"), as an *Error at its file and line.
func (m Measurement) Errorf(key, format string, a ...any) error {
	if m.at == nil {
		return &Error{File: m.Source, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	return m.at(key, format, a...)
}

// wrapper is the documented file format.
type wrapper struct {
	Engine     string          `json:"engine"`
	Version    string          `json:"version"`
	Model      string          `json:"model"`
	GPU        string          `json:"gpu"`
	GPUs       int             `json:"gpus"`
	Config     map[string]any  `json:"config"`
	Command    json.RawMessage `json:"command"`
	Profile    *bench.Profile  `json:"profile"`
	Result     json.RawMessage `json:"result"`
	ResultFile string          `json:"result_file"`
}

var wrapperKeys = []string{"engine", "version", "model", "gpu", "gpus", "config", "command", "profile", "result", "result_file"}

// Error is a problem in a measurements file, at file:line:key; the
// command line reports it as bad input (exit 2).
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", pos, e.Key, e.Msg)
	}
	return pos + ": " + e.Msg
}

// maxFile bounds what is read: a result with --save-detailed lists every
// request's ITLs, tens of MB for a long run.
const maxFile = 256 << 20

// Load reads a measurements file: one wrapper object or an array of them.
// result_file paths are relative to the file.
func Load(path string) ([]Measurement, error) {
	src, err := readBounded(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, src, func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(path), name)
		}
		return readBounded(name)
	})
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(ioLimit(f, maxFile+1)); err != nil {
		return nil, err
	}
	if b.Len() > maxFile {
		return nil, fmt.Errorf("larger than %d MiB", maxFile>>20)
	}
	return b.Bytes(), nil
}

// Parse reads src (named file in errors); open reads a result_file.
func Parse(file string, src []byte, open func(string) ([]byte, error)) ([]Measurement, error) {
	trimmed := bytes.TrimSpace(src)
	var raws []json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, jsonError(file, src, "", err)
		}
	} else {
		var one json.RawMessage
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return nil, jsonError(file, src, "", err)
		}
		raws = []json.RawMessage{one}
	}
	if len(raws) == 0 {
		return nil, &Error{File: file, Msg: "no measurements (an empty array)"}
	}
	out := make([]Measurement, 0, len(raws))
	for i, raw := range raws {
		name := file
		prefix := ""
		if len(raws) > 1 || trimmed[0] == '[' {
			name, prefix = fmt.Sprintf("%s[%d]", file, i), fmt.Sprintf("[%d].", i)
		}
		m, err := parseOne(file, src, prefix, raw, open)
		if err != nil {
			return nil, err
		}
		m.Source = name
		out = append(out, m)
	}
	return out, nil
}

func parseOne(file string, src []byte, prefix string, raw json.RawMessage, open func(string) ([]byte, error)) (Measurement, error) {
	base := max(bytes.Index(src, raw), 0) // this run's place in the file
	at := func(key, format string, a ...any) error {
		return &Error{File: file, Line: lineOfKeyAfter(src, base, key), Key: prefix + key, Msg: fmt.Sprintf(format, a...)}
	}
	if err := unknownKeys(raw); err != "" {
		return Measurement{}, at(err, "unknown key%s (known: %s)", suggest.Hint(err, wrapperKeys), strings.Join(wrapperKeys, ", "))
	}
	var w wrapper
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return Measurement{}, jsonError(file, src, prefix, err)
	}
	m := Measurement{Engine: w.Engine, Version: w.Version, Model: w.Model, GPU: w.GPU, GPUs: w.GPUs, at: at}
	if err := w.check(at); err != nil {
		return Measurement{}, err
	}
	cfg, err := config(w.Config, at)
	if err != nil {
		return Measurement{}, err
	}
	m.Config = cfg
	if m.Command, err = command(w.Command); err != nil {
		return Measurement{}, at("command", "%v", err)
	}
	if err := w.readResult(&m, open, at); err != nil {
		return Measurement{}, err
	}
	return m, nil
}

// readResult fills m's values and load from the result (inline or
// result_file), the wrapper's profile winning over the result's.
func (w wrapper) readResult(m *Measurement, open func(string) ([]byte, error), at func(key, format string, a ...any) error) error {
	res, key := []byte(w.Result), "result"
	if w.ResultFile != "" {
		var err error
		if res, err = open(w.ResultFile); err != nil {
			return at("result_file", "%v", err)
		}
		key = "result_file " + w.ResultFile
	}
	r, err := parseResult(res)
	if me := (*metricError)(nil); errors.As(err, &me) && w.ResultFile == "" {
		return at("result."+me.key, "%s", me.msg)
	}
	if err != nil {
		return at(key, "%v", err)
	}
	m.Values, m.Profile = r.values, r.profile
	if w.Profile != nil {
		m.Profile = *w.Profile
	}
	if len(m.Values) == 0 {
		return at(key, "no usable metric (want mean_ttft_ms, mean_tpot_ms, mean_itl_ms, mean_e2el_ms or throughput, finite and positive)")
	}
	if m.Profile.Count() <= 0 || (m.Profile.InputLen <= 0 && m.Profile.DatasetName() == bench.DatasetRandom) {
		return at("profile", "the load is unknown: give \"profile\" (num_prompts, input_len, output_len, request_rate, max_concurrency), or a result with completed and token totals")
	}
	// The load is simulated as given: bench's checks and caps apply.
	if probs := m.Profile.Problems(); len(probs) > 0 {
		if w.Profile != nil {
			return at("profile."+probs[0].Key, "%s", probs[0].Msg)
		}
		return at(key, "the load it describes cannot be simulated: %s %s", probs[0].Key, probs[0].Msg)
	}
	return nil
}

func (w wrapper) check(at func(key, format string, a ...any) error) error {
	switch {
	case w.Engine == "":
		return at("engine", "is required (vllm, sglang, trtllm)")
	case w.Model == "" && len(w.Command) == 0:
		return at("model", "is required (or a command naming it)")
	case w.GPU == "":
		return at("gpu", "is required (a GPU card name: H100, A100-80GB, ...)")
	case w.GPUs < 0 || w.GPUs > 4096:
		return at("gpus", "must be between 1 and 4096, got %d", w.GPUs)
	case len(w.Result) == 0 && w.ResultFile == "":
		return at("result", "is required: the result JSON inline, or result_file naming it")
	case len(w.Result) > 0 && w.ResultFile != "":
		return at("result_file", "give result or result_file, not both")
	}
	return nil
}

// config turns JSON knob values into the space's value types (integers
// stay int64, as a space file decodes them).
func config(in map[string]any, at func(key, format string, a ...any) error) (space.Config, error) {
	out := space.Config{}
	for k, v := range in {
		switch x := v.(type) {
		case json.Number:
			n, err := number(x)
			if err != nil {
				return nil, at("config."+k, "%v", err)
			}
			out[k] = n
		case string, bool:
			out[k] = x
		default:
			return nil, at("config."+k, "must be a number, a string or a boolean")
		}
		if err := space.CheckValue(k, out[k]); err != nil {
			return nil, at("config."+k, "%v", err)
		}
	}
	delete(out, "engine")
	return out, nil
}

// number keeps an integer an int64, as a space file decodes it.
func number(x json.Number) (any, error) {
	if n, err := x.Int64(); err == nil {
		return n, nil
	}
	f, err := x.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%s is not a finite number", x)
	}
	return f, nil
}

// command is an argv array or one string split on spaces (no shell
// quoting: give an array when an argument has spaces).
func command(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err == nil {
		return argv, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New("must be an argv array or a string")
	}
	return strings.Fields(s), nil
}

// unknownKeys names the first key outside the wrapper's (a typo would
// otherwise drop a config silently).
func unknownKeys(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "" // the typed decode reports it
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		known := false
		for _, w := range wrapperKeys {
			known = known || k == w
		}
		if !known {
			return k
		}
	}
	return ""
}
