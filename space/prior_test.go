package space

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestStudyPriorKey(t *testing.T) {
	src, err := os.ReadFile("../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	with := func(line string) string {
		s := strings.Replace(string(src), "[study]\n", "[study]\n"+line+"\n", 1)
		return strings.Replace(s, `run = ["balanced"]`, "run = [\"p\"]\n[profiles.custom.p]\ninput_len = 10\noutput_len = 10\nnum_prompts = 5", 1)
	}
	for line, want := range map[string]string{"": "", `prior = "sim"`: PriorSim, `prior = "none"`: PriorNone} {
		sp, err := Parse(context.Background(), "q.toml", with(line), Options{})
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if sp.Study.Prior != want {
			t.Errorf("%q: Prior = %q, want %q", line, sp.Study.Prior, want)
		}
	}
	_, err = Parse(context.Background(), "q.toml", with(`prior = "oracle"`), Options{})
	if err == nil || !strings.Contains(err.Error(), "study.prior") || !strings.Contains(err.Error(), "q.toml") {
		t.Fatalf("bad prior: err = %v, want one naming the file and study.prior", err)
	}
}
