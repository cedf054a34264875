package studies

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// The command a trial ran and its environment are stored with it and read
// back as they were; a trial that launched nothing has neither.
func TestRanAndFingerprintAreStored(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	ran := &engines.Command{Argv: []string{"gosim", "--model", "m", "--port", "4000"}, Env: map[string]string{"HF_TOKEN": "[REDACTED]"}}
	fp := &engines.Fingerprint{Engine: "gosim", EngineVersion: "0.3.1", Device: "cpu", CPU: "2×x", Host: "h", Checkpoint: "m"}
	for _, tr := range []Trial{
		{Origin: "sampler", Config: space.Config{"tp": int64(1)}, Start: time.Unix(0, 0), State: Complete, Ran: ran, Fingerprint: fp},
		{Origin: "sampler", Config: space.Config{"tp": int64(2)}, Start: time.Unix(0, 0), State: Infeasible, Reason: "breaks rule"},
	} {
		state := tr.State
		if err := st.Begin(ctx, &tr); err != nil {
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
