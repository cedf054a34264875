package studies

import (
	"context"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// TestSpaceOptions: run and the lab share one validator wiring, which
// refuses a sampler that cannot take the objectives and a simulated target
// without cards, each against its key.
func TestSpaceOptions(t *testing.T) {
	cases := []struct {
		name, from, to, key string
	}{
		{"valid", "", "", ""},
		{"unknown sampler", `sampler = "random"`, `sampler = "annealing"`, "study.sampler"},
		{"simulated GPU without a card", `gpu = "H100"`, `gpu = "NoSuchGPU"`, "target.gpu"},
		{"simulated model without a card", `model = "Qwen3-8B"`, `model = "m"`, "target.model"},
		{"unknown engine", `engine = "vllm"`, `engine = "vllmm"`, "target.engine"},
	}
	for _, c := range cases {
		src := strings.Replace(strings.Replace(studySource(4, ""), `model = "m"`, `model = "Qwen3-8B"`, 1), c.from, c.to, 1)
		_, err := space.Parse(context.Background(), "unit.toml", src, SpaceOptions(nil))
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.key != "" && (err == nil || !strings.Contains(err.Error(), c.key)):
			t.Errorf("%s: %v, want a problem at %s", c.name, err, c.key)
		}
	}
}
