package studies

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A study run on the simulator says so in every rendering — the JSON's
// runner, the text's header, hours and tables, the Markdown — and one
// run on real engines says nothing of the kind.
func TestSimulatedResultsSaySo(t *testing.T) {
	for _, runner := range []string{"sim", "process"} {
		sp, trials := reportFixture(t)
		sp.Target.Runner = runner
		for i := range trials {
			trials[i].Runner = runner
		}
		r := BuildReport(sp, trials, fakeRender)
		var text, md, js, tt bytes.Buffer
		if err := r.Text(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := r.JSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := TrialsText(&tt, sp, trials); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Runner    string `json:"runner"`
			Simulated bool   `json:"simulated"`
		}
		if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.Runner != runner || got.Simulated != (runner == "sim") {
			t.Errorf("%s: JSON runner %+v (%v)", runner, got, err)
		}
		for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "trials": tt.String()} {
			if has := strings.Contains(out, "imulated"); has != (runner == "sim") {
				t.Errorf("%s %s: says simulated %v:\n%s", runner, name, has, out)
			}
		}
		if runner == "sim" {
			for _, want := range []string{"simulated GPU-hours", "Pareto front (2 trials, simulated)", "Recommended (simulated)"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, text.String())
				}
			}
		}
	}
}

// Trials that recorded no runner (older studies) take the target's, and
// one that recorded the command its engine ran was a real process.
func TestRunnerOfOlderStudies(t *testing.T) {
	sp, trials := reportFixture(t)
	sp.Target.Runner = "sim"
	if got := runnerOf(sp, trials); got != "sim" {
		t.Errorf("runner %q, want the target's sim", got)
	}
	FillRunner(sp, trials)
	for _, tr := range trials {
		if tr.Runner != "sim" {
			t.Errorf("trial %d runner %q after FillRunner", tr.Number, tr.Runner)
		}
	}
	trials[1].Runner = "process"
	if got := runnerOf(sp, trials); got != "mixed" {
		t.Errorf("runner %q, want mixed", got)
	}
}

func TestFlagLines(t *testing.T) {
	cases := []struct{ in, want string }{
		{"vllm serve m --tp=2 --max-num-seqs 64", "vllm serve m \\\n  --tp=2 \\\n  --max-num-seqs 64"},
		{"x --a='--not a flag' --b", "x \\\n  --a='--not a flag' \\\n  --b"},
		{"python3 -m sglang.launch_server --x\n# file.yaml\nkey: --v", "python3 -m sglang.launch_server \\\n  --x\n# file.yaml\nkey: --v"},
		{"ollama serve", "ollama serve"},
	}
	for _, c := range cases {
		if got := FlagLines(c.in); got != c.want {
			t.Errorf("FlagLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
