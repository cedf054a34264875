package sim

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
)

func TestProfileNotesWarnOfMultiTurnChat(t *testing.T) {
	sp := bench.SharedPrefix{Groups: 2, UsersPerGroup: 2, QuestionLen: 10, OutputLen: 10}
	single := bench.Profile{Name: "p", Dataset: bench.DatasetSharedPrefix, SharedPrefix: &sp}
	if n := ProfileNotes(single); len(n) != 0 {
		t.Errorf("single-turn profile: notes %q", n)
	}
	multi := sp
	multi.MultiTurn = true
	p := single
	p.SharedPrefix = &multi
	n := ProfileNotes(p)
	if len(n) != 1 || !strings.Contains(n[0], `"p"`) || !strings.Contains(n[0], "enable_multi_turn_chat") || !strings.Contains(n[0], "docs/sim.md") {
		t.Errorf("multi-turn profile: notes %q, want one naming the profile, the key and the reason", n)
	}
	if n := ProfileNotes(bench.Profile{Name: "r", Dataset: "random"}); len(n) != 0 {
		t.Errorf("random profile: notes %q", n)
	}
}
