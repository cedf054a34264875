package studies

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// deviceRunner records which devices each running trial holds and any
// device two running trials held at once.
type deviceRunner struct {
	mu      sync.Mutex
	holder  map[string]int // device → trial
	clashes []string
	maxBusy int
	seen    map[int][]string
}

func (r *deviceRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	r.mu.Lock()
	for _, d := range t.Devices {
		if other, ok := r.holder[d]; ok {
			r.clashes = append(r.clashes, fmt.Sprintf("GPU %s held by trials %d and %d at once", d, other, t.Number))
		}
		r.holder[d] = t.Number
	}
	r.maxBusy = max(r.maxBusy, len(r.holder))
	r.seen[t.Number] = t.Devices
	r.mu.Unlock()
	time.Sleep(time.Duration(len(t.Devices)) * 3 * time.Minute)
	r.mu.Lock()
	for _, d := range t.Devices {
		delete(r.holder, d)
	}
	r.mu.Unlock()
	return (&fakeRunner{}).Run(ctx, t)
}

// need is the fake GPU need: 2, 4 or 8 GPUs by max_running.
func need(c space.Config) int {
	mr, _ := c.Int("max_running")
	switch {
	case mr <= 16:
		return 2
	case mr <= 64:
		return 4
	}
	return 8
}

func TestPackingNeverOverCommitsAnEightGPUNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := studySpace(t, 14, "")
		st, dir := openStore(t)
		r := &deviceRunner{holder: map[string]int{}, seen: map[int][]string{}}
		devices := []string{"0", "1", "2", "3", "4", "5", "6", "7"}
		err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Workers: 8, WorkerID: "node", Devices: devices, GPUNeed: need})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.clashes {
			t.Error(c)
		}
		if r.maxBusy > 8 {
			t.Errorf("%d GPUs busy at once on an 8-GPU node", r.maxBusy)
		}
		trials, err := st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := store.CountDone(trials); got != 14 {
			t.Errorf("%d trials done, want 14", got)
		}
		packed := 0
		for _, tr := range trials {
			if tr.BrokeRule() {
				continue
			}
			if len(tr.Devices) != need(tr.Config) || strings.Join(tr.Devices, ",") != strings.Join(r.seen[tr.Number], ",") {
				t.Errorf("trial %d (needs %d) recorded GPUs %v, ran on %v", tr.Number, need(tr.Config), tr.Devices, r.seen[tr.Number])
			}
			for _, u := range trials {
				if u.Number < tr.Number && u.End.After(tr.Start) && !u.BrokeRule() {
					packed++
				}
			}
		}
		if packed == 0 {
			t.Error("no two trials ever shared the node: packing should run small trials side by side")
		}
	})
}

func TestConfigLargerThanTheNodeStopsWithAClearError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := studySpace(t, 6, "")
		st, dir := openStore(t)
		err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: &slowRunner{}, Dir: dir, Log: zerolog.Nop(), Workers: 2, Devices: []string{"0", "1"}, GPUNeed: need})
		if err == nil || !strings.Contains(err.Error(), "needs 4 GPUs and this worker has 2") {
			t.Errorf("error %v, want one naming the need and the worker's GPUs", err)
		}
	})
}

// TestGPUsPerTrialPacks runs the space's own [target] gpus_per_trial
// through packing (no GPUNeed hook): a 3-GPU need on an 8-GPU node fits
// two trials at a time, never three.
func TestGPUsPerTrialPacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := strings.Replace(studySource(8, ""), `engine = "vllm"`, "engine = \"vllm\"\ngpus = 8\ngpus_per_trial = 3", 1)
		sp, err := space.Parse(context.Background(), "unit.toml", src, testSpaceOptions())
		if err != nil {
			t.Fatal(err)
		}
		st, dir := openStore(t)
		r := &deviceRunner{holder: map[string]int{}, seen: map[int][]string{}}
		devices := []string{"0", "1", "2", "3", "4", "5", "6", "7"}
		if err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Workers: 4, WorkerID: "node", Devices: devices}); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.clashes {
			t.Error(c)
		}
		if r.maxBusy != 6 {
			t.Errorf("at most %d GPUs busy at once; want 6 (two 3-GPU trials side by side, never a third)", r.maxBusy)
		}
		for n, ds := range r.seen {
			if len(ds) != 3 {
				t.Errorf("trial %d ran on %v, want 3 GPUs", n, ds)
			}
		}
	})
}

// A trial spread over two nodes takes the whole head node this worker
// packs: nothing else runs beside it, and the study does not stop as it
// would for a config larger than the worker's GPUs.
func TestMultiNodeTrialTakesTheWholeHeadNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := studySource(10, "")
		src = strings.Replace(src, `engine = "vllm"`, "engine = \"vllm\"\nhost = \"0.0.0.0\"\nnodes = [\"gpu[1-2]\"]\ngpus_per_node = 4\ngpus_per_trial = \"max_running / 8\"", 1)
		src = strings.Replace(src, "values = [8, 16, 32, 64, 128, 256]", "values = [8, 16, 32, 64]", 1)
		sp, err := space.Parse(context.Background(), "unit.toml", src, testSpaceOptions())
		if err != nil {
			t.Fatal(err)
		}
		st, dir := openStore(t)
		r := &deviceRunner{holder: map[string]int{}, seen: map[int][]string{}}
		head := []string{"0", "1", "2", "3"}
		if err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Workers: 4, WorkerID: "head", Devices: head}); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.clashes {
			t.Error(c)
		}
		trials, err := st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		spread := 0
		for _, tr := range trials {
			mr, _ := tr.Config.Int("max_running")
			if mr == 64 {
				spread++
				if strings.Join(r.seen[tr.Number], ",") != "0,1,2,3" {
					t.Errorf("two-node trial %d held %v of the head node, want all of it", tr.Number, r.seen[tr.Number])
				}
			}
		}
		if spread == 0 {
			t.Error("no two-node trial ran")
		}
	})
}
