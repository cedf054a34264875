package launch

import (
	"reflect"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

func TestOllamaSetupUsesTargetProgram(t *testing.T) {
	c, _ := engines.Render(space.Config{}, space.Target{Model: "m.gguf", Engine: engines.Ollama, Engines: map[string]space.EngineTarget{engines.Ollama: {Version: "0.5.7"}}})
	got := setupArgv(c, space.EngineTarget{Command: []string{"/opt/ollama/bin/ollama", "serve"}}, []string{"nice"})
	want := [][]string{{"nice", "/opt/ollama/bin/ollama", "create", "m", "-f", "Modelfile"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("setup argv = %q; want %q", got, want)
	}
}
