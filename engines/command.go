package engines

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// Command is one engine's serving command for one config: what a user would
// paste into a shell, and what a trial executes (via argv, never a shell).
type Command struct {
	// Argv is the program and its arguments. Knob flags are rendered in the
	// adapter's canonical order and style (see docs/engines.md).
	Argv []string `json:"argv"`
	// Env holds variables the config needs (e.g. VLLM_ATTENTION_BACKEND on
	// vLLM 0.11), not the target's environment: that may hold secrets.
	Env map[string]string `json:"env,omitempty"`
	// Files maps a file name to its content, e.g. TensorRT-LLM's extra
	// options YAML. Argv refers to them by bare name; the launcher writes
	// them into the trial directory and substitutes the path.
	Files map[string]string `json:"files,omitempty"`
	// Program is how many leading Argv elements name the program; a
	// target's per-engine Command replaces exactly those.
	Program int `json:"program"`
	// Setup holds commands to run, in order, in the trial directory with
	// the server's environment once it answers its probes: Ollama starts
	// with no model and registers one with `ollama create`. A step's first
	// word is replaced like Argv's program.
	Setup [][]string `json:"setup,omitempty"`
}

// Key identifies everything that decides what the engine serves: argv,
// env, generated files and setup steps. Two configs with the same Key run
// the same server, so a warm one may be reused.
func (c Command) Key() string {
	var b strings.Builder
	b.WriteString(c.Shell())
	for _, name := range slices.Sorted(maps.Keys(c.Files)) {
		b.WriteString("\x00" + name + "\x00" + c.Files[name])
	}
	for _, step := range c.Setup {
		b.WriteString("\x00" + Command{Argv: step}.Shell())
	}
	return b.String()
}

// Shell renders the command as one shell line, env first, each word quoted
// only when it must be, so it can be pasted as is.
func (c Command) Shell() string {
	var b strings.Builder
	for i, w := range c.words() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// Pretty renders the command over several lines the way engine docs write
// it: program and positional arguments first, then one flag (with its
// value, if separate) per line, continued with backslashes.
func (c Command) Pretty() string {
	var lines []string
	head := envWords(c.Env)
	i := 0
	for ; i < len(c.Argv) && (i < c.Program || !strings.HasPrefix(c.Argv[i], "-")); i++ {
		head = append(head, shellQuote(c.Argv[i]))
	}
	lines = append(lines, strings.Join(head, " "))
	for i < len(c.Argv) {
		line := shellQuote(c.Argv[i])
		if i+1 < len(c.Argv) && !strings.Contains(c.Argv[i], "=") && !strings.HasPrefix(c.Argv[i+1], "-") {
			line += " " + shellQuote(c.Argv[i+1])
			i++
		}
		lines = append(lines, "    "+line)
		i++
	}
	return strings.Join(lines, " \\\n")
}

func (c Command) words() []string {
	w := envWords(c.Env)
	for _, a := range c.Argv {
		w = append(w, shellQuote(a))
	}
	return w
}

func envWords(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := make([]string, 0, len(keys))
	for _, k := range keys {
		w = append(w, k+"="+shellQuote(env[k]))
	}
	return w
}

// shellQuote quotes s for a POSIX shell. A `--flag=value` word keeps the
// flag bare and quotes only the value, which is how people write JSON
// flags (`--speculative-config='{"method":"mtp"}'`).
func shellQuote(s string) string {
	if s != "" && shellSafe(s) {
		return s
	}
	if strings.HasPrefix(s, "-") {
		if name, val, ok := strings.Cut(s, "="); ok && shellSafe(name) {
			return name + "=" + singleQuote(val)
		}
	}
	return singleQuote(s)
}

func singleQuote(s string) string {
	if s != "" && shellSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellSafe(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("_@%+=:,./-", r):
		default:
			return false
		}
	}
	return true
}
