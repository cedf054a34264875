package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Layout picks one of the seeds' "Serving Benchmark Result" layouts.
type Layout string

const (
	// LayoutFull is seed 002's block (GPUStack's runner): an end-to-end
	// Latency section in seconds, "Maximum request concurrency" always shown
	// (the observed peak when no cap was set), P95 and P99 by default.
	LayoutFull Layout = "full"
	// LayoutVLLM is seed 004's `vllm bench serve` block: TTFT, TPOT and ITL
	// only, the concurrency line only under a cap, P99 by default.
	LayoutVLLM Layout = "vllm"
)

// TextOptions controls WriteText.
type TextOptions struct {
	Layout Layout // default LayoutFull
	// Percentiles to print after mean and median; nil means the layout's
	// default. Each must be present in the metrics (Summarize's Percentiles).
	Percentiles []float64
}

const textWidth = 50

// WriteText renders m as the seeds' "Serving Benchmark Result" block. Lines
// the seeds never show (failed requests, goodput) appear only when there is
// something to say, so a clean run reproduces the seeds byte for byte.
func WriteText(w io.Writer, m Metrics, opt TextOptions) error {
	layout := opt.Layout
	if layout == "" {
		layout = LayoutFull
	}
	pcts := opt.Percentiles
	if pcts == nil {
		pcts = []float64{95, 99}
		if layout == LayoutVLLM {
			pcts = []float64{99}
		}
	}
	var b strings.Builder
	row := func(label, value string) { fmt.Fprintf(&b, "%-40s %s\n", label, value) }
	f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	b.WriteString(center(" Serving Benchmark Result ", '='))
	row("Successful requests:", strconv.Itoa(m.Completed))
	if m.Failed > 0 {
		row("Failed requests:", strconv.Itoa(m.Failed))
	}
	switch {
	case m.MaxConcurrency > 0:
		row("Maximum request concurrency:", strconv.Itoa(m.MaxConcurrency))
	case layout == LayoutFull:
		row("Maximum request concurrency:", strconv.Itoa(int(m.PeakConcurrent)))
	}
	row("Benchmark duration (s):", f2(m.DurationS))
	row("Total input tokens:", strconv.Itoa(m.TotalInput))
	row("Total generated tokens:", strconv.Itoa(m.TotalOutput))
	row("Request throughput (req/s):", f2(m.RequestThroughput))
	if m.GoodputSLO != nil {
		row("Request goodput (req/s):", f2(m.Goodput))
	}
	row("Output token throughput (tok/s):", f2(m.OutputThroughput))
	row("Peak output token throughput (tok/s):", f2(m.PeakOutputThroughput))
	row("Peak concurrent requests:", f2(m.PeakConcurrent))
	row("Total Token throughput (tok/s):", f2(m.TotalTokenThroughput))
	if layout == LayoutFull {
		// Seed 002 pads this section one column further and centres its
		// title off by one; kept as is so the block matches byte for byte.
		b.WriteString("----------------------Latency---------------------\n")
		lat := func(label string, ms float64) {
			v := f2(ms / 1000)
			if m.E2EL.N == 0 {
				v = "n/a"
			}
			fmt.Fprintf(&b, "%-41s %s\n", label, v)
		}
		lat("Mean Latency(s):", m.E2EL.Mean)
		lat("Median Latency(s):", m.E2EL.Median)
		for _, p := range pcts {
			if v, ok := m.E2EL.Percentiles[PercentileKey(p)]; ok || m.E2EL.N == 0 {
				lat("P"+percentWord(p)+" Latency(s):", v)
			}
		}
	}
	section := func(title, name string, d Dist) {
		b.WriteString(center(title, '-'))
		writeDist(&b, name, d, pcts)
	}
	section("Time to First Token", "TTFT", m.TTFT)
	section("Time per Output Token (excl. 1st token)", "TPOT", m.TPOT)
	section("Inter-token Latency", "ITL", m.ITL)
	b.WriteString(strings.Repeat("=", textWidth) + "\n")
	writeStages(&b, m.Stages, pcts)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDist is a distribution's mean, median and percentiles in ms; one
// without samples is undefined, printed n/a rather than a made-up 0.
func writeDist(b *strings.Builder, name string, d Dist, pcts []float64) {
	v := func(x float64) string {
		if d.N == 0 {
			return "n/a"
		}
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	fmt.Fprintf(b, "%-40s %s\n", "Mean "+name+" (ms):", v(d.Mean))
	fmt.Fprintf(b, "%-40s %s\n", "Median "+name+" (ms):", v(d.Median))
	for _, p := range pcts {
		if x, ok := d.Percentiles[PercentileKey(p)]; ok || d.N == 0 {
			fmt.Fprintf(b, "%-40s %s\n", "P"+percentWord(p)+" "+name+" (ms):", v(x))
		}
	}
}

// writeStages adds each stage of a multi-stage run after the overall
// block: its requests, throughput and latencies over its own span.
func writeStages(b *strings.Builder, stages []Metrics, pcts []float64) {
	for i, st := range stages {
		b.WriteString(center(fmt.Sprintf(" Stage %d ", i), '-'))
		fmt.Fprintf(b, "%-40s %d\n", "Successful requests:", st.Completed)
		if st.Failed > 0 {
			fmt.Fprintf(b, "%-40s %d\n", "Failed requests:", st.Failed)
		}
		fmt.Fprintf(b, "%-40s %.2f\n", "Stage duration (s):", st.DurationS)
		fmt.Fprintf(b, "%-40s %.2f\n", "Request throughput (req/s):", st.RequestThroughput)
		fmt.Fprintf(b, "%-40s %.2f\n", "Output token throughput (tok/s):", st.OutputThroughput)
		writeDist(b, "TTFT", st.TTFT, pcts)
		writeDist(b, "ITL", st.ITL, pcts)
		writeDist(b, "E2EL", st.E2EL, pcts)
	}
	if len(stages) > 0 {
		b.WriteString(strings.Repeat("=", textWidth) + "\n")
	}
}

// center is Python's "{:c^50}" (extra padding goes right).
func center(s string, c byte) string {
	pad := max(textWidth-len(s), 0)
	l := pad / 2
	return strings.Repeat(string(c), l) + s + strings.Repeat(string(c), pad-l) + "\n"
}

// percentWord is vllm's p_word: 99 → "99", 99.9 → "99.9".
func percentWord(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// SchemaVersion versions the JSON result and the records JSONL.
const SchemaVersion = 1

// resultJSON is the --json document: every metric, the flat values the
// objectives use, and where the records are.
type resultJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Profile       Profile            `json:"profile"`
	Start         time.Time          `json:"start"`
	DurationS     float64            `json:"duration_s"`
	Stopped       string             `json:"stopped,omitempty"`
	Metrics       Metrics            `json:"metrics"`
	Values        map[string]float64 `json:"values"`
	RecordsFile   string             `json:"records_file,omitempty"`
}

// WriteJSON writes the result as one indented JSON document; recordsFile,
// if not empty, names the JSONL file holding its records.
func WriteJSON(w io.Writer, res Result, recordsFile string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(resultJSON{SchemaVersion: SchemaVersion, Profile: res.Profile, Start: res.Start,
		DurationS: res.Duration.Seconds(), Stopped: res.Stopped, Metrics: res.Metrics,
		Values: res.Metrics.Values(), RecordsFile: recordsFile})
}

type recordsHeader struct {
	Schema   string        `json:"schema"`
	Version  int           `json:"version"`
	Profile  Profile       `json:"profile"`
	Duration time.Duration `json:"duration_ns"`
}

const recordsSchema = "servetune.bench.records"

// Saved is a run's records with what recomputing its metrics needs.
type Saved struct {
	Profile  Profile
	Duration time.Duration
	Records  []Record
}

// Saved returns the result's records for WriteRecords.
func (r Result) Saved() Saved {
	return Saved{Profile: r.Profile, Duration: r.Duration, Records: r.Records}
}

// Metrics summarises the records as Run does.
func (s Saved) Metrics(opt SummaryOptions) Metrics {
	m := Summarize(s.Records, s.Duration, opt)
	m.MaxConcurrency = s.Profile.MaxConcurrency
	if !s.Profile.Unlimited() {
		m.RequestRate = s.Profile.RequestRate
	}
	return m
}

// WriteRecords writes a header line (schema, version, profile, duration)
// and then one record per line; ReadRecords reads it back, so metrics can be
// recomputed without re-running.
func WriteRecords(w io.Writer, s Saved) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(recordsHeader{Schema: recordsSchema, Version: SchemaVersion, Profile: s.Profile, Duration: s.Duration}); err != nil {
		return err
	}
	for i := range s.Records {
		if err := enc.Encode(&s.Records[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadRecords reads what WriteRecords wrote.
func ReadRecords(r io.Reader) (Saved, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return Saved{}, fmt.Errorf("records: %w", err)
		}
		return Saved{}, errors.New("records: empty file")
	}
	var h recordsHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Schema != recordsSchema {
		return Saved{}, fmt.Errorf("records: line 1: not a %s header", recordsSchema)
	}
	if h.Version != SchemaVersion {
		return Saved{}, fmt.Errorf("records: version %d, this servetune reads version %d", h.Version, SchemaVersion)
	}
	s := Saved{Profile: h.Profile, Duration: h.Duration}
	for line := 2; sc.Scan(); line++ {
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return Saved{}, fmt.Errorf("records: line %d: %w", line, err)
		}
		s.Records = append(s.Records, rec)
	}
	if err := sc.Err(); err != nil {
		return Saved{}, fmt.Errorf("records: %w", err)
	}
	return s, nil
}
