package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// intervalSpace is exportSpace minimizing mean TTFT, which the simulator
// states an interval for.
var intervalSpace = strings.Replace(strings.Replace(exportSpace, `metric = "total_tps"`, `metric = "mean_ttft_ms"`, 1),
	`direction = "maximize"`, `direction = "minimize"`, 1)

// Through the user path: a study whose simulator prior predicts its
// trials stores each prediction's interval, show --json prints it (lo80
// ≤ the prediction ≤ hi80, inside the 95% interval), and show's text
// prints the 80% interval beside the prediction.
func TestShowPrintsThePredictionsInterval(t *testing.T) {
	dir := t.TempDir()
	if code, _, errText := runCLI(t, dir, "run", writeSpaceIn(t, dir, intervalSpace)); code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, errText)
	}
	code, out, errText := runCLI(t, dir, "show", "exp", "--json")
	if code != 0 {
		t.Fatalf("show --json: exit %d %s", code, errText)
	}
	var trials []struct {
		Number     int `json:"number"`
		Prediction *struct {
			Values    []float64            `json:"values"`
			Intervals []map[string]float64 `json:"intervals"`
		} `json:"prediction"`
	}
	if err := json.Unmarshal([]byte(out), &trials); err != nil {
		t.Fatal(err)
	}
	stated := 0
	for _, tr := range trials {
		if tr.Prediction == nil || len(tr.Prediction.Values) == 0 {
			continue
		}
		if len(tr.Prediction.Intervals) != 1 {
			t.Fatalf("trial %d: intervals %v, want one for mean_ttft_ms", tr.Number, tr.Prediction.Intervals)
		}
		iv, v := tr.Prediction.Intervals[0], tr.Prediction.Values[0]
		if !(iv["lo95"] < iv["lo80"] && iv["lo80"] < v && v < iv["hi80"] && iv["hi80"] < iv["hi95"]) {
			t.Errorf("trial %d: interval %v around %v", tr.Number, iv, v)
		}
		stated++
	}
	if stated == 0 {
		t.Fatalf("no predicted trial among\n%s", out)
	}
	code, out, errText = runCLI(t, dir, "show", "exp")
	if code != 0 || !strings.Contains(out, "(80%: ") {
		t.Errorf("show: exit %d %s\n%s: want the 80%% interval beside the prediction", code, errText, out)
	}
}
