package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/studies/store"
)

func TestWhereOf(t *testing.T) {
	cases := []struct {
		trial store.Trial
		want  string
	}{
		{store.Trial{}, ""},
		{store.Trial{Worker: "gpu-node-3:4121/2", Devices: []string{"4", "5"}}, "gpu-node-3 · GPUs 4,5 · worker gpu-node-3:4121/2"},
		{store.Trial{Worker: "812-gpu01/0", Devices: []string{"0"}, Fingerprint: &engines.Fingerprint{Host: "gpu01"}}, "gpu01 · GPUs 0 · worker 812-gpu01/0"},
		{store.Trial{Worker: "job:x/1"}, "worker job:x/1"}, // not host:pid: no host guessed
	}
	for _, c := range cases {
		if got := whereOf(c.trial).String(); got != c.want {
			t.Errorf("whereOf(%+v) = %q, want %q", c.trial, got, c.want)
		}
	}
}

// A study whose trials ran on workers shows where each ran, in both
// renderers; a sequential one keeps its table as it was.
func TestTrialTableSaysWhereTrialsRan(t *testing.T) {
	trials := synthTrials(12)
	for i := range trials {
		trials[i].Worker = "node-a:77/" + string(rune('0'+i%4))
		trials[i].Devices = []string{string(rune('0' + 2*(i%4))), string(rune('1' + 2*(i%4)))}
	}
	f := Build(fixtureSpaceOf(t), trials, fixtureRender, Meta{Version: "v0.0.0-test", Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	var md, page bytes.Buffer
	if err := f.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": page.String()} {
		if !strings.Contains(out, "ran on") || !strings.Contains(out, "node-a · GPUs 6,7 · worker node-a:77/3") {
			t.Errorf("%s trial table does not say where trials ran", name)
		}
	}
	seq := fixtureFull(t, 12)
	md.Reset()
	if err := seq.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "ran on") {
		t.Error("a sequential study's table grew a 'ran on' column")
	}
}
