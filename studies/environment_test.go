package studies

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// The command a trial ran and its environment are stored with it and read
// back as they were; a trial that launched nothing has neither.
func TestRanAndFingerprintAreStored(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	ran := &engines.Command{Argv: []string{"gosim", "--model", "m", "--port", "4000"}, Env: map[string]string{"HF_TOKEN": "[REDACTED]"}}
	fp := &engines.Fingerprint{Engine: "gosim", EngineVersion: "0.3.1", Device: "cpu", CPU: "2×x", Host: "h", Checkpoint: "m"}
	for _, tr := range []store.Trial{
		{Origin: "sampler", Config: space.Config{"tp": int64(1)}, Start: time.Unix(0, 0), State: store.Complete, Ran: ran, Fingerprint: fp},
		{Origin: "sampler", Config: space.Config{"tp": int64(2)}, Start: time.Unix(0, 0), State: store.Infeasible, Reason: "breaks rule"},
	} {
		state := tr.State
		if err := begin(ctx, st, &tr); err != nil {
			t.Fatal(err)
		}
		tr.State = state
		if err := st.Finish(ctx, &tr); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ts[0].Ran, ran) || !reflect.DeepEqual(ts[0].Fingerprint, fp) {
		t.Errorf("read back %+v %+v", ts[0].Ran, ts[0].Fingerprint)
	}
	if ts[1].Ran != nil || ts[1].Fingerprint != nil {
		t.Errorf("a trial that launched nothing has %+v %+v", ts[1].Ran, ts[1].Fingerprint)
	}
}

// A CPU study is billed in CPU-hours and its header names the processor;
// a winner shows the command it really ran next to the canonical one, and
// the report lists the environment.
func TestReportNamesTheDeviceTheRanCommandAndTheEnvironment(t *testing.T) {
	sp := studySpace(t, 4, "")
	sp.Target.GPU = ""
	fp := &engines.Fingerprint{Engine: "gosim", EngineVersion: "0.3.1", Device: "cpu", CPU: "2×AMD EPYC 9654", Host: "h", Checkpoint: "m"}
	tr := store.Trial{Number: 1, Origin: "sampler", State: store.Complete, Config: space.Config{"tp": int64(1)}, GPUSeconds: 3600,
		Metrics:     map[string]map[string]float64{sp.ObjectiveProfile(""): {sp.Objectives[0].Metric: 10}},
		Ran:         &engines.Command{Argv: []string{"/opt/gosim", "--model", "m", "--port", "4000"}},
		Fingerprint: fp}
	r := BuildReport(sp, []store.Trial{tr}, func(space.Config) (string, error) { return "gosim --model m", nil })
	var b strings.Builder
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"on 2×AMD EPYC 9654\n", "1.00 CPU-hours",
		"Environment, trial 1: gosim 0.3.1; CPU 2×AMD EPYC 9654; host h; model m",
		"    gosim --model m\n    ran as:\n    /opt/gosim --model m --port 4000\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestTrialList(t *testing.T) {
	for want, ns := range map[string][]int{"trial 4": {4}, "trials 1-3, 5": {1, 2, 3, 5}, "trials 2, 4": {2, 4}} {
		if got := trialList(ns); got != want {
			t.Errorf("trialList(%v) = %q, want %q", ns, got, want)
		}
	}
}
