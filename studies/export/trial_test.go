package export

import (
	"bytes"
	"errors"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Trial exports what engines.Deploy resolves: one server's docker run and
// manifest, or a disaggregated deployment's compose file and manifests,
// the same bytes New and NewPD's renderers give; refusals keep their
// sentinels.
func TestTrialExportsWhatTheConfigDeploys(t *testing.T) {
	sp := study("sglang", 8, nil)
	one := complete(space.Config{"tp": int64(2)})
	pd := complete(space.Config{"disaggregation": "pd", "prefill_instances": int64(2), "decode_instances": int64(1)})

	dep, err := Trial(sp, one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := New(sp, one, Options{})
	k, _ := Kubernetes(p)
	if got, _ := dep.Docker(); string(got) != Docker(p) {
		t.Errorf("one server's docker export:\n%s\nwant Docker's:\n%s", got, Docker(p))
	}
	if got, _ := dep.Kubernetes(); !bytes.Equal(got, k) {
		t.Errorf("one server's manifest differs from Kubernetes'")
	}

	dep, err = Trial(sp, pd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plans, _ := NewPD(sp, pd, Options{})
	if len(dep.Plans) != 4 || len(plans) != 4 {
		t.Fatalf("%d plans (NewPD: %d), want 2 prefill, 1 decode and the router", len(dep.Plans), len(plans))
	}
	c, _ := ComposePD(plans, sp.Target)
	k, _ = KubernetesPD(plans)
	if got, _ := dep.Docker(); !bytes.Equal(got, c) {
		t.Errorf("the deployment's docker export is not its compose file")
	}
	if got, _ := dep.Kubernetes(); !bytes.Equal(got, k) {
		t.Errorf("the deployment's manifest differs from KubernetesPD's")
	}

	pd.State = store.Pruned
	if _, err := Trial(sp, pd, Options{}); !errors.Is(err, ErrNotComplete) {
		t.Errorf("a pruned trial: %v, want ErrNotComplete", err)
	}
	// Four decode servers of 8 GPUs each do not fit the 8-GPU host.
	wide := complete(space.Config{"disaggregation": "pd", "decode_instances": int64(4), "decode_tp": int64(8)})
	if dep, err := Trial(sp, wide, Options{}); err != nil {
		t.Fatal(err)
	} else if _, err := dep.Docker(); err == nil {
		t.Errorf("a deployment larger than a host exported as one compose file")
	}
}
