package launch

import (
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// The launcher finds what it needs beyond Engine by type assertion, so a
// renamed adapter method would silently skip Ollama's setup or a declared
// engine's readiness and bind variables: each adapter must still answer
// the interface it is asked through, and the others must not.
func TestAdaptersAnswerTheLaunchersQuestions(t *testing.T) {
	tgt := space.Target{Declared: map[string]space.EngineDecl{"x": {Command: []string{"x"}}}}
	for _, c := range []struct {
		name                 string
		live, ready, listens bool
	}{
		{engines.Ollama, true, false, false},
		{"x", false, true, true},
		{engines.VLLM, false, false, false},
		{engines.SGLang, false, false, false},
		{engines.TRTLLM, false, false, false},
	} {
		e, ok := engines.Lookup(c.name, tgt)
		if !ok {
			t.Fatalf("no engine %s", c.name)
		}
		_, live := e.(liveSetup)
		_, ready := e.(readier)
		_, listens := e.(listenEnver)
		if live != c.live || ready != c.ready || listens != c.listens {
			t.Errorf("%s: liveSetup %v readier %v listenEnver %v; want %v %v %v", c.name, live, ready, listens, c.live, c.ready, c.listens)
		}
	}
}
