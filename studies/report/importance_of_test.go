package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Knobs whose values always go together in the complete trials are named
// beside each other; a knob that also varied alone is not.
func TestKnobsVariedTogether(t *testing.T) {
	cfg := func(dp, att, mr any) space.Config {
		c := space.Config{"dp": dp, "max_running": mr}
		if att != nil {
			c["attention"] = att
		}
		return c
	}
	pts := []Point{
		{State: store.Complete, Config: cfg(int64(1), nil, int64(64))},
		{State: store.Complete, Config: cfg(int64(8), true, int64(64))},
		{State: store.Complete, Config: cfg(int64(8), true, int64(128))},
		{State: store.Complete, Config: cfg(int64(1), nil, int64(128))},
		// Not complete: it does not count.
		{State: store.Infeasible, Config: cfg(int64(1), true, int64(512))},
	}
	ks := []Knob{{Name: "dp", Numeric: true}, {Name: "attention"}, {Name: "max_running", Numeric: true}}
	got := together(pts, ks)
	want := map[string][]string{"dp": {"attention"}, "attention": {"dp"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("together = %v, want %v", got, want)
	}
}

// A knob only the baseline varied is credited with nothing: the trials
// say nothing of it apart from the baseline's other differences.
func TestImportanceRefusesKnobsOnlyTheBaselineVaried(t *testing.T) {
	engine := Knob{Name: "engine", Levels: []string{"vllm", "sglang"}}
	mr := Knob{Name: "max_running", Numeric: true}
	pt := func(n int, origin, e string, r int64) Point {
		return Point{Trial: n, State: store.Complete, Origin: origin, Config: space.Config{"engine": e, "max_running": r}}
	}
	pts := []Point{pt(1, "baseline", "vllm", 64), pt(2, "sampler", "sglang", 64), pt(3, "sampler", "sglang", 128), pt(4, "sampler", "sglang", 256),
		{Trial: 5, State: store.Failed, Origin: "sampler", Config: space.Config{"engine": "vllm", "max_running": int64(64)}}}
	ok, only := attributable(pts, []Knob{engine, mr})
	if len(ok) != 1 || ok[0].Name != "max_running" || len(only) != 1 || only[0] != "engine" {
		t.Errorf("attributable = %v, baseline only %v; want max_running, and engine refused", ok, only)
	}
}

// Where the trials occupied different GPU counts a throughput's
// importance is read per GPU: dp multiplies total_tps by the GPUs it adds
// and does nothing per GPU, so on the total it would take the largest
// share, and per GPU max_running, the knob that changes each GPU's work,
// does. A latency is read as it is; trials on one GPU count are too.
func TestImportanceReadsThroughputPerGPUWhenGPUCountsDiffer(t *testing.T) {
	dp := Knob{Name: "dp", Numeric: true}
	mr := Knob{Name: "max_running", Numeric: true}
	perGPU := map[int64]float64{64: 1000, 128: 1500, 256: 1800, 512: 1900}
	var pts, oneCount []Point
	for _, d := range []int64{1, 2, 4, 8} {
		for r, v := range perGPU {
			c := space.Config{"dp": d, "max_running": r}
			vals := []float64{v * float64(d), 10 + float64(r)/64}
			pts = append(pts, Point{State: store.Complete, Config: c, GPUs: int(d), Values: vals})
			oneCount = append(oneCount, Point{State: store.Complete, Config: c, GPUs: 8, Values: vals})
		}
	}
	// A trial whose GPU count is unknown has no per-GPU value: it must
	// not turn the fit's values infinite.
	pts = append(pts, Point{State: store.Complete, Config: space.Config{"dp": int64(8), "max_running": int64(64)}, Values: []float64{9e9, 11}})
	objs := []studies.ObjectiveInfo{{Metric: "total_tps", Direction: space.Maximize}, {Metric: "mean_tpot_ms", Direction: space.Minimize}}
	cases := []struct {
		name   string
		pts    []Point
		of     []string
		top    string
		noteOK bool
	}{
		{"GPU counts 1 to 8", pts, []string{"total_tps_per_gpu", "mean_tpot_ms"}, "max_running", true},
		{"every trial on 8 GPUs", oneCount, []string{"total_tps", "mean_tpot_ms"}, "dp", false},
	}
	for _, c := range cases {
		imp, of := importanceOf(objs, c.pts, []Knob{dp, mr})
		if !reflect.DeepEqual(of, c.of) {
			t.Errorf("%s: shares of %v, want %v", c.name, of, c.of)
		}
		for _, im := range imp {
			for _, sh := range im.Share {
				if math.IsNaN(sh) || math.IsInf(sh, 0) {
					t.Errorf("%s: %s's share %v", c.name, im.Knob, sh)
				}
			}
		}
		if len(imp) == 0 || imp[0].Knob != c.top || imp[0].Share[0] < 0.6 {
			t.Errorf("%s: importance %+v, want %s first with most of the share", c.name, imp, c.top)
		}
		f := Full{Points: c.pts, ImportanceOf: of, Summary: studies.Report{Objectives: objs}}
		if note := f.PerGPUNote(); (note != "") != c.noteOK || (c.noteOK && !strings.Contains(note, "1 to 8 GPUs")) {
			t.Errorf("%s: note %q", c.name, note)
		}
	}
}
