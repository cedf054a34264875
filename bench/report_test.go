package bench

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// seedMetrics reads the numbers of a seed's "Serving Benchmark Result" block
// back into Metrics, so the test can check that rendering them reproduces
// the block byte for byte.
func seedMetrics(t *testing.T, text string) (Metrics, []float64) {
	t.Helper()
	m := Metrics{TTFT: newDist(), TPOT: newDist(), ITL: newDist(), E2EL: newDist()}
	var pcts []float64
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndex(line, " ")
		if i < 0 || strings.HasPrefix(line, "=") || strings.HasPrefix(line, "-") {
			continue
		}
		label, num := strings.TrimSpace(line[:i]), line[i+1:]
		x, err := strconv.ParseFloat(num, 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		set := map[string]*float64{
			"Benchmark duration (s):": &m.DurationS, "Request throughput (req/s):": &m.RequestThroughput,
			"Output token throughput (tok/s):": &m.OutputThroughput, "Peak output token throughput (tok/s):": &m.PeakOutputThroughput,
			"Peak concurrent requests:": &m.PeakConcurrent, "Total Token throughput (tok/s):": &m.TotalTokenThroughput,
		}
		ints := map[string]*int{"Successful requests:": &m.Completed, "Total input tokens:": &m.TotalInput,
			"Total generated tokens:": &m.TotalOutput, "Maximum request concurrency:": &m.MaxConcurrency}
		if p, ok := set[label]; ok {
			*p = x
			continue
		}
		if p, ok := ints[label]; ok {
			*p = int(x)
			continue
		}
		fields := strings.Fields(label) // "P95 TTFT (ms):", "Mean Latency(s):"
		d := map[string]*Dist{"TTFT": &m.TTFT, "TPOT": &m.TPOT, "ITL": &m.ITL, "Latency(s):": &m.E2EL}[fields[1]]
		if d == nil {
			t.Fatalf("unknown line %q", line)
		}
		if fields[1] == "Latency(s):" {
			x *= 1000
		}
		switch stat := fields[0]; {
		case stat == "Mean":
			d.Mean = x
		case stat == "Median":
			d.Median = x
		default:
			p, _ := strconv.ParseFloat(stat[1:], 64)
			d.Percentiles[PercentileKey(p)] = x
			if d == &m.TTFT {
				pcts = append(pcts, p)
			}
		}
	}
	return m, pcts
}

// newDist is a parsed seed distribution: it has samples (N > 0), so
// its values are printed, not n/a.
func newDist() Dist { return Dist{N: 1, Percentiles: map[string]float64{}} }

func TestWriteTextReproducesSeeds(t *testing.T) {
	cases := []struct {
		file   string
		layout Layout
		cap    bool // the seed's concurrency line is a cap, not the observed peak
	}{
		{"seed002_balanced_baseline.txt", LayoutFull, true},
		{"seed002_long_context.txt", LayoutFull, false},
		{"seed004_vllm_bs4.txt", LayoutVLLM, true},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			m, pcts := seedMetrics(t, string(want))
			if !tc.cap {
				m.MaxConcurrency = 0 // no cap: the full layout shows the observed peak
			}
			var got bytes.Buffer
			if err := WriteText(&got, m, TextOptions{Layout: tc.layout, Percentiles: pcts}); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("rendered block differs from the seed:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

// goldenRecords is a small run with every kind of outcome.
func goldenRecords() []Record {
	ms := time.Millisecond
	return []Record{
		{Index: -1, Warmup: true, Success: true, InputTokens: 10, OutputTokens: 3, TTFT: 5 * ms, Latency: 9 * ms, ITL: []time.Duration{2 * ms, 2 * ms}},
		{Index: 0, Success: true, InputTokens: 100, OutputTokens: 4, Start: 0, TTFT: 50 * ms, Latency: 80 * ms, ITL: []time.Duration{10 * ms, 10 * ms, 10 * ms}},
		{Index: 1, Success: true, InputTokens: 120, OutputTokens: 6, Start: 300 * ms, TTFT: 70 * ms, Latency: 1300 * ms, ITL: []time.Duration{300 * ms, 930 * ms}},
		{Index: 2, Success: true, InputTokens: 90, OutputTokens: 1, Start: 900 * ms, TTFT: 40 * ms, Latency: 40 * ms},
		{Index: 3, Success: false, InputTokens: 80, Start: 950 * ms, Error: "HTTP 503: overloaded", Class: ClassHTTP},
		{Index: 4, Success: false, InputTokens: 80, Start: 990 * ms, Error: "stream ended without [DONE]", Class: ClassStream},
		{Index: 5, Success: false, InputTokens: 80, Start: 1000 * ms, Error: "run stopped", Class: ClassAborted},
	}
}

func TestWriteTextGolden(t *testing.T) {
	m := Summarize(goldenRecords(), 2*time.Second, SummaryOptions{Percentiles: []float64{90}, Goodput: SLO{TTFTMs: 60}})
	m.MaxConcurrency = 4
	for _, tc := range []struct {
		layout Layout
		pcts   []float64
	}{{LayoutFull, []float64{90, 99}}, {LayoutVLLM, nil}} {
		var got bytes.Buffer
		if err := WriteText(&got, m, TextOptions{Layout: tc.layout, Percentiles: tc.pcts}); err != nil {
			t.Fatal(err)
		}
		golden(t, "summary_"+string(tc.layout)+".golden", got.Bytes())
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; got written to %s.got", name, path)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	p, _ := Lookup("sharegpt-bs-4")
	saved := Saved{Profile: p, Duration: 2 * time.Second, Records: goldenRecords()}
	var buf bytes.Buffer
	if err := WriteRecords(&buf, saved); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, saved) {
		t.Fatalf("round trip changed the records:\n%+v\n%+v", back, saved)
	}
	opt := SummaryOptions{Percentiles: []float64{99.9}}
	if a, b := saved.Metrics(opt), back.Metrics(opt); !reflect.DeepEqual(a, b) || a.MaxConcurrency != 4 {
		t.Error("metrics recomputed from saved records differ")
	}
}

func TestReadRecordsErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":               "empty",
		`{"i":0}` + "\n": "header",
		`{"schema":"servetune.bench.records","version":9}` + "\n":       "version 9",
		`{"schema":"servetune.bench.records","version":1}` + "\n{bad\n": "line 2",
	} {
		_, err := ReadRecords(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadRecords(%q) err = %v, want %q", in, err, want)
		}
	}
}
