package bench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// flagSet is a command line as ProfileFromFlags reads it: the flags set
// and their values (unset flags read as zero, as urfave/cli's do when
// they have no default).
type flagSet map[string]any

func (f flagSet) IsSet(n string) bool { _, ok := f[n]; return ok }
func (f flagSet) String(n string) string {
	s, _ := f[n].(string)
	return s
}
func (f flagSet) Int(n string) int {
	i, _ := f[n].(int)
	return i
}
func (f flagSet) Int64(n string) int64 {
	i, _ := f[n].(int64)
	return i
}
func (f flagSet) Float64(n string) float64 {
	x, _ := f[n].(float64)
	return x
}
func (f flagSet) Bool(n string) bool {
	b, _ := f[n].(bool)
	return b
}
func (f flagSet) Duration(n string) time.Duration {
	d, _ := f[n].(time.Duration)
	return d
}

func TestProfileFromFlags(t *testing.T) {
	p, err := ProfileFromFlags(flagSet{"profile": "sharegpt", "num-prompts": 50, "request-rate": "4"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Lookup("sharegpt")
	if p.Dataset != want.Dataset || p.NumPrompts != 50 || p.RequestRate != 4 || p.OutputLen != want.OutputLen {
		t.Errorf("--profile sharegpt --num-prompts 50 --request-rate 4: %+v", p)
	}
	p, err = ProfileFromFlags(flagSet{})
	if err != nil || p.Name != "custom" || p.InputLen != 1024 || !math.IsInf(p.RequestRate, 1) {
		t.Errorf("no flags: %+v, %v", p, err)
	}
	p, err = ProfileFromFlags(flagSet{"dataset": DatasetTrace, "dataset-path": "t.jsonl", "speedup": 2.0})
	if err != nil || p.Trace == nil || p.Trace.Speedup != 2 || p.NumPrompts != 0 || p.InputLen != 0 {
		t.Errorf("trace: %+v, %v", p, err)
	}
	p, err = ProfileFromFlags(flagSet{"stages": "2:10s,4:10s"})
	if err != nil || len(p.Stages) != 2 || p.NumPrompts != 0 || p.RequestRate != 0 {
		t.Errorf("stages: %+v, %v", p, err)
	}
}

// Every refusal names the flags at fault.
func TestProfileFromFlagsRefusals(t *testing.T) {
	for _, c := range []struct {
		flags flagSet
		want  string
	}{
		{flagSet{"profile": "nope"}, `--profile "nope": not a built-in profile`},
		{flagSet{"request-rate": "fast"}, `--request-rate "fast": want a number`},
		{flagSet{"dataset-path": "x.json"}, "--dataset-path needs --dataset sharegpt or jsonl"},
		{flagSet{"question-len": 8}, "--question-len needs --dataset shared_prefix"},
		{flagSet{"dataset": DatasetSharedPrefix, "input-len": 8}, "--input-len does not apply to --dataset shared_prefix"},
		{flagSet{"speedup": 2.0}, "--speedup needs --dataset trace"},
		{flagSet{"dataset": DatasetTrace, "dataset-path": "t", "burstiness": 2.0}, "--burstiness does not apply to --dataset trace"},
		{flagSet{"stages": "2:10s", "num-prompts": 5}, "--num-prompts and --stages exclude each other"},
		{flagSet{"stages": "x"}, "--stages: "},
		// Issue 48, fifth pass: each ran a benchmark other than the one
		// typed (all at once, Poisson) or one that could finish nothing.
		{flagSet{"request-rate": "0"}, "--request-rate 0 would send nothing"},
		{flagSet{"burstiness": 0.0}, "--burstiness 0 is no gamma shape"},
		{flagSet{"max-duration": time.Nanosecond}, "--max-duration is 1ns, shorter than the 1s"},
		{flagSet{"dataset": DatasetSharedPrefix, "num-unique-system-prompts": 2, "num-users-per-system-prompt": 2, "system-prompt-len": 8, "output-len": 8}, "--question-len "},
	} {
		if _, err := ProfileFromFlags(c.flags); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.flags, err, c.want)
		}
	}
}

func TestFlagOfKey(t *testing.T) {
	for key, want := range map[string]string{
		"shared_prefix.question_len": "--question-len", "stages[1].rate": "--stages", "slo": "--goodput",
		"shared_prefix": "--dataset shared_prefix", "trace.block_tokens": "--block-tokens", "num_prompts": "--num-prompts",
	} {
		if got := flagOfKey(key); got != want {
			t.Errorf("flagOfKey(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestParsePercentilesAndGoodput(t *testing.T) {
	ps, err := ParsePercentiles(" 50, 99.9 ,")
	if err != nil || len(ps) != 2 || ps[1] != 99.9 {
		t.Errorf("percentiles %v, %v", ps, err)
	}
	for _, bad := range []string{"0", "100", "x", "", " , "} {
		if _, err := ParsePercentiles(bad); err == nil {
			t.Errorf("percentile %q accepted", bad)
		}
	}
	slo, err := ParseGoodput("ttft:500, tpot:50,e2el:10000")
	if err != nil || slo.TTFTMs != 500 || slo.TPOTMs != 50 || slo.E2ELMs != 10000 {
		t.Errorf("goodput %+v, %v", slo, err)
	}
	for _, bad := range []string{"ttft", "ttft:-1", "itl:5", "ttft:5,ttft:6"} {
		if _, err := ParseGoodput(bad); err == nil {
			t.Errorf("goodput %q accepted", bad)
		}
	}
}

// A base URL is a server root; what would leak into every error and
// record (credentials, a query) is refused without quoting it.
func TestCheckBaseURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8000", "https://host/v1"} {
		if err := CheckBaseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:8000", "ftp://h", "http://u:secret@h", "http://h/?token=secret", "http://h/#secret", "http://h?"} {
		err := CheckBaseURL(bad)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestNoSuccess(t *testing.T) {
	if err := NoSuccess(Result{Metrics: Metrics{Completed: 1, Failed: 3}}); err != nil {
		t.Errorf("one success: %v", err)
	}
	if err := NoSuccess(Result{Metrics: Metrics{Aborted: 4}, Stopped: "deadline"}); err == nil || !strings.Contains(err.Error(), "4 requests aborted (deadline)") {
		t.Errorf("all aborted: %v", err)
	}
	if err := NoSuccess(Result{}); err == nil || err.Error() != "bench: no request succeeded" {
		t.Errorf("nothing sent: %v", err)
	}
}

// --json FILE writes the metrics there and the records beside it, named
// after it; a result read back recomputes the same metrics.
func TestWriteResultFiles(t *testing.T) {
	if err := WriteResultFiles("", Result{}); err != nil {
		t.Errorf("no path: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	res := Result{Profile: Profile{Name: "p"}, Metrics: Metrics{Completed: 1}}
	if err := WriteResultFiles(path, res); err != nil {
		t.Fatal(err)
	}
	if got := recordsPath(path); got != filepath.Join(dir, "out.records.jsonl") {
		t.Errorf("records path %s", got)
	}
	for _, f := range []string{path, recordsPath(path)} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := WriteResultFiles(filepath.Join(dir, "missing", "out.json"), res); err == nil || !strings.Contains(err.Error(), "bench output") {
		t.Errorf("unwritable: %v", err)
	}
}

func TestParseHeaders(t *testing.T) {
	if h, err := ParseHeaders(nil); h != nil || err != nil {
		t.Errorf("none: %v %v", h, err)
	}
	h, err := ParseHeaders([]string{" X-Team : infra ", "Authorization: Bearer a:b"})
	if err != nil || h["X-Team"] != "infra" || h["Authorization"] != "Bearer a:b" {
		t.Errorf("%v %v", h, err)
	}
	for _, bad := range []string{"no colon", ": empty name"} {
		if _, err := ParseHeaders([]string{bad}); err == nil || !strings.Contains(err.Error(), "want 'Name: value'") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// Issue 48: a header that smuggles a second line, a name with a
	// space, and one header twice (the last silently won).
	for _, bad := range [][]string{{"X: a\r\nEvil: b"}, {"X: a\nb"}, {"X Y: z"}, {"X: \x00"}, {"X-Team: a", "x-team: b"}} {
		if _, err := ParseHeaders(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Whatever ParseHeaders accepts is one header line each: no control
// character but a tab in a value, none or a space in a name.
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"X-Team: infra", "X: a\r\nEvil: b", ": v", "A:b:c", "X:\tv"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		out, err := ParseHeaders([]string{h})
		if err != nil {
			return
		}
		for k, v := range out {
			if k == "" || strings.ContainsAny(k, " :\r\n\t\x00") || strings.ContainsAny(v, "\r\n\x00") {
				t.Errorf("%q accepted as %q: %q", h, k, v)
			}
		}
	})
}

// A records file written by --json recomputes to the same profile and
// counts; a missing or bad file names --from-records.
func TestRecompute(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	res := Result{Profile: Profile{Name: "p", NumPrompts: 1}, Duration: time.Second,
		Records: []Record{{Index: 0, Success: true, InputTokens: 10, OutputTokens: 5, TTFT: 100 * time.Millisecond, Latency: 500 * time.Millisecond}}}
	res.Metrics = res.Saved().Metrics(res.Profile.Summary(SummaryOptions{}))
	if err := WriteResultFiles(path, res); err != nil {
		t.Fatal(err)
	}
	got, err := Recompute(recordsPath(path), SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Profile.Name != "p" || got.Metrics.Completed != 1 || len(got.Records) != 1 || got.Duration != time.Second {
		t.Errorf("recomputed %+v", got)
	}
	if _, err := Recompute(filepath.Join(dir, "none.jsonl"), SummaryOptions{}); err == nil || !strings.HasPrefix(err.Error(), "--from-records: ") {
		t.Errorf("missing: %v", err)
	}
	if _, err := Recompute(path, SummaryOptions{}); err == nil || !strings.HasPrefix(err.Error(), "--from-records "+path+": ") {
		t.Errorf("not a records file: %v", err)
	}
}
