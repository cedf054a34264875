package prior

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

func TestLocalEstimate(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name                  string
		measured, parent, cnd []float64
		want                  []float64
	}{
		{"the prior's ratio scales the measurement", []float64{200, 40}, []float64{100, 20}, []float64{150, 30}, []float64{300, 60}},
		{"a twin keeps the parent's values", []float64{200, 40}, []float64{100, 20}, []float64{100, 20}, []float64{200, 40}},
		{"objectives scale independently", []float64{10, 10}, []float64{5, 20}, []float64{10, 10}, []float64{20, 5}},
		{"zero prediction", []float64{200, 40}, []float64{0, 20}, []float64{150, 30}, nil},
		{"NaN prediction", []float64{200, 40}, []float64{100, 20}, []float64{nan, 30}, nil},
		{"no measurement", []float64{0, 40}, []float64{100, 20}, []float64{150, 30}, nil},
		{"lengths differ", []float64{200}, []float64{100, 20}, []float64{150, 30}, nil},
	}
	for _, c := range cases {
		got, ok := localEstimate(c.measured, c.parent, c.cnd)
		if ok != (c.want != nil) || len(got) != len(c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, ok, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			}
		}
	}
}

func TestBestGain(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	front := [][]float64{{10, 10}, {30, 50}}
	ref := []float64{0, 60}
	cases := []struct {
		name string
		ests [][]float64
		want int
	}{
		{"none", nil, -1},
		{"dominated or equal adds nothing", [][]float64{{9, 11}, {30, 50}, {10, 10}}, -1},
		{"the gap in the middle", [][]float64{{9, 11}, {25, 20}}, 1},
		{"the larger gain wins", [][]float64{{20, 40}, {25, 20}, {31, 50}}, 1},
		{"beyond the high-throughput end", [][]float64{{20, 40}, {60, 55}}, 1},
		{"ties go to the first", [][]float64{{25, 20}, {25, 20}}, 0},
	}
	for _, c := range cases {
		got, g := bestGain(front, c.ests, objs, ref)
		if got != c.want || (got >= 0) != (g > 0) {
			t.Errorf("%s: best %d (gain %g), want %d", c.name, got, g, c.want)
		}
	}
	// The gain is the hypervolume difference.
	if g := hvGain(front, []float64{25, 20}, objs, ref); math.Abs(g-(25-10)*(50-20)) > 1e-9 {
		t.Errorf("gain of (25, 20) = %g, want %d", g, (25-10)*(50-20))
	}
}

func TestFrontTodoOrdersGainfulFirst(t *testing.T) {
	a, b, c, d := &candidate{}, &candidate{}, &candidate{}, &candidate{}
	got := frontTodo([]scoredCand{{a, 1}, {b, 3}}, []*candidate{c, d}, 3)
	if len(got) != 3 || got[0] != b || got[1] != a || got[2] != c {
		t.Errorf("order %v, want b a c", got)
	}
	if got := frontTodo(nil, []*candidate{c}, 5); len(got) != 1 || got[0] != c {
		t.Errorf("short list %v, want c", got)
	}
}

// frontSpace has a throughput to maximise and a latency to minimise over
// a (continuous, 1..6: no one-knob neighbours) and b (1..2).
func frontSpace() *space.Space {
	return &space.Space{
		Study:      space.Study{Name: "f", Sampler: "random", NTrials: 12},
		Target:     space.Target{Engine: "vllm", GPUs: 1},
		Objectives: []space.Objective{maxObj("tps"), minObj("tpot")},
		Params: []space.Param{
			{Name: "a", Kind: space.Float, Low: 1, High: 6},
			{Name: "b", Kind: space.Int, Low: 1, High: 2},
		},
	}
}

// frontPrior predicts tps = a + (b−1)/2 and tpot = a − (b−1)/2; the
// reality (frontReality) has 0.3× that throughput where a ≥ 4: one
// interaction the additive residual cannot hold after two trials.
func frontPrior(c space.Config) ([]float64, bool) {
	a, _ := c.Float("a")
	b, _ := c.Int("b")
	return []float64{a + float64(b-1)/2, a - float64(b-1)/2}, true
}

func frontReality(c space.Config) []float64 {
	v, _ := frontPrior(c)
	if a, _ := c.Float("a"); a >= 4 {
		v[0] *= 0.3
	}
	return v
}

// With the measured front at (a=2, b=1) and a dominated trial at a=5,
// the prior's globally corrected predictions still rank a high-a config
// first; the neighbour of the measured front member (b=2), estimated from
// its measurement, is what truly extends the front.
func TestPickHVExtendsTheMeasuredFrontFromItsMembers(t *testing.T) {
	sp := frontSpace()
	s := newPriorSampler(t, sp, priorFunc(frontPrior)).(*sampler)
	for _, c := range []space.Config{{"a": 2.0, "b": int64(1)}, {"a": 5.0, "b": int64(1)}} {
		v := frontReality(c)
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v}); err != nil {
			t.Fatal(err)
		}
	}
	pickerOf(s).prepare(context.Background())
	c, ok := pickerOf(s).front.pickHV(nil)
	if !ok {
		t.Fatal("no pick")
	}
	got := frontReality(c)
	ref := []float64{0, 10}
	if g := hvGain(s.st.hist.measured, got, sp.Objectives, ref); !(g > 0) {
		t.Errorf("picked %s, truly %v: adds nothing to the measured front %v", c.Summary(), got, s.st.hist.measured)
	}
}

func TestGeoMean(t *testing.T) {
	got := geoMean([][]float64{{1, 4}, {4, 4}, {16, 4}})
	if math.Abs(got[0]-4) > 1e-9 || math.Abs(got[1]-4) > 1e-9 {
		t.Errorf("geoMean = %v, want [4 4]", got)
	}
}

func TestKnobDiff(t *testing.T) {
	cases := []struct {
		name string
		a, b space.Config
		n    int
		one  bool
	}{
		{"same", space.Config{"x": 1, "y": "a"}, space.Config{"x": 1, "y": "a"}, 0, false},
		{"one value", space.Config{"x": 1, "y": "a"}, space.Config{"x": 2, "y": "a"}, 1, true},
		{"two values", space.Config{"x": 1, "y": "a"}, space.Config{"x": 2, "y": "b"}, 2, false},
		{"a knob only one has", space.Config{"x": 1}, space.Config{"x": 1, "y": "a"}, 1, false},
		{"a value and a knob only one has", space.Config{"x": 1}, space.Config{"x": 2, "y": "a"}, 2, false},
	}
	for _, c := range cases {
		ts, n := knobDiff(c.a, c.b)
		tr, one := oneKnob(c.a, c.b)
		if n != c.n || one != c.one {
			t.Errorf("%s: %d knobs (%v), one %v; want %d, %v", c.name, n, ts, one, c.n, c.one)
		}
		if one && (tr.knob != "x" || tr.from != "1" || tr.to != "2") {
			t.Errorf("%s: transition %+v, want x 1→2", c.name, tr)
		}
	}
}

func TestPairMiss(t *testing.T) {
	got, ok := pairMiss([]float64{100, 10}, []float64{100, 10}, []float64{100, 10}, []float64{80, 12.5})
	if !ok || math.Abs(got[0]-math.Log(100.0/80)) > 1e-9 || math.Abs(got[1]-math.Log(10/12.5)) > 1e-9 {
		t.Errorf("measured alike, predicted apart: miss %v, %v", got, ok)
	}
	if _, ok := pairMiss([]float64{100, 10}, []float64{0, 10}, []float64{100, 10}, []float64{80, 12.5}); ok {
		t.Error("a zero measurement gave a miss")
	}
	if _, ok := pairMiss([]float64{100}, []float64{100, 10}, []float64{100, 10}, []float64{80, 12.5}); ok {
		t.Error("lengths differ and gave a miss")
	}
}

// A knob change measured to make no difference, which the prior predicts
// costs a fifth, corrects a move along it elsewhere (half-way after one
// pair: pairShrink) and in both directions; a change never measured
// leaves the estimate alone.
func TestLearnPairsCorrectsMovesAlongAMeasuredChange(t *testing.T) {
	pred := func(c space.Config) []float64 {
		if c["m"] == "low" {
			return []float64{80}
		}
		return []float64{100}
	}
	ms := []measuredMean{
		{measuredConfig{space.Config{"m": "low", "x": 1}, []float64{50}}, 1},
		{measuredConfig{space.Config{"m": "high", "x": 1}, []float64{50}}, 1},
		{measuredConfig{space.Config{"m": "high", "x": 3}, []float64{70}}, 1}, // two knobs from the first
	}
	fixes := learnPairs(ms, func(a, b space.Config) ([]float64, []float64, bool) { return pred(a), pred(b), true })
	down := fixes[transition{"m", "high", "low"}]
	up := fixes[transition{"m", "low", "high"}]
	if down == nil || up == nil || down.n != 1 || up.n != 1 {
		t.Fatalf("fixes %v, want one pair each way on m", fixes)
	}
	est := []float64{80} // 100 measured × the predicted 0.8
	if got := down.corrected(est)[0]; math.Abs(got-80*math.Sqrt(1.25)) > 1e-9 {
		t.Errorf("high→low corrected to %g, want %g", got, 80*math.Sqrt(1.25))
	}
	if got := up.corrected([]float64{125})[0]; math.Abs(got-125/math.Sqrt(1.25)) > 1e-9 {
		t.Errorf("low→high corrected to %g, want %g", got, 125/math.Sqrt(1.25))
	}
	var none *pairFix = fixes[transition{"x", "1", "2"}]
	if got := none.corrected(est); got[0] != 80 {
		t.Errorf("an unmeasured change moved the estimate to %v", got)
	}
}

// A config confirmed three times is one point at its geometric mean.
func TestMeasuredMeansOnePointPerConfig(t *testing.T) {
	sp := frontSpace()
	s := newPriorSampler(t, sp, priorFunc(frontPrior)).(*sampler)
	c := space.Config{"a": 2.0, "b": int64(1)}
	for _, v := range [][]float64{{2, 8}, {8, 2}, {4, 4}} {
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v}); err != nil {
			t.Fatal(err)
		}
	}
	ms := s.st.hist.measuredMeans()
	if len(ms) != 1 || ms[0].n != 3 || math.Abs(ms[0].values[0]-4) > 1e-9 || math.Abs(ms[0].values[1]-4) > 1e-9 {
		t.Errorf("means %+v, want one config at (4, 4) over 3", ms)
	}
}

// A config two knobs from a measured one is estimated from that
// measurement (main estimated only the one-knob neighbours of front
// members, the rest by the prior's globally corrected prediction).
func TestNearEstimateStartsFromTheNearestMeasurement(t *testing.T) {
	sp := frontSpace()
	s := newPriorSampler(t, sp, priorFunc(frontPrior)).(*sampler)
	ctx := context.Background()
	m := space.Config{"a": 2.0, "b": int64(1)}
	if err := s.Tell(ctx, search.Observation{Config: m, State: search.Complete, Value: 20, Values: []float64{20, 20}}); err != nil {
		t.Fatal(err)
	}
	cd := s.st.tab.predict(ctx, space.Config{"a": 3.0, "b": int64(2)}) // predicted (3.5, 2.5); m predicted (2, 2)
	est, ok := pickerOf(s).front.nearEstimate(cd, s.st.hist.measuredMeans(), nil)
	if !ok || math.Abs(est[0]-20*3.5/2) > 1e-9 || math.Abs(est[1]-20*2.5/2) > 1e-9 {
		t.Errorf("estimate %v, %v; want (35, 25): the measurement × the predicted ratio", est, ok)
	}
}
