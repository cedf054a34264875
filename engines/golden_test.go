package engines

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files")

type seedCase struct {
	name, engine, model, exact, source string
	// version is the engine release the seed ran ("" = newest).
	version string
	cfg     space.Config
	text    string
}

func loadSeedCases(t *testing.T) []seedCase {
	t.Helper()
	f, err := os.Open("testdata/seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []seedCase
	var cur *seedCase
	var body []string
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimSpace(strings.Join(body, "\n"))
			cases = append(cases, *cur)
		}
		body = nil
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "# case "):
			flush()
			fs := strings.Fields(strings.TrimPrefix(l, "# case "))
			cur = &seedCase{name: fs[0], engine: fs[1], model: fs[2]}
		case cur != nil && strings.HasPrefix(l, "# config "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "# config ")), &cur.cfg); err != nil {
				t.Fatalf("%s: %v", cur.name, err)
			}
		case cur != nil && strings.HasPrefix(l, "# exact "):
			cur.exact = strings.TrimPrefix(l, "# exact ")
		case cur != nil && strings.HasPrefix(l, "# source "):
			cur.source = strings.TrimPrefix(l, "# source ")
		case cur != nil && strings.HasPrefix(l, "# version "):
			cur.version = strings.TrimPrefix(l, "# version ")
		case strings.HasPrefix(l, "#"):
		case cur != nil:
			body = append(body, l)
		}
	}
	flush()
	return cases
}

// shellWords splits a pasted command the way sh would for the subset the
// seeds use: backslash-newline continuations, spaces, single quotes.
func shellWords(s string) []string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	var words []string
	var cur strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && !quoted:
			escaped, inWord = true, true
		case r == '\'':
			quoted = !quoted
			inWord = true
		case !quoted && (r == ' ' || r == '\n' || r == '\t'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// normFlags joins "--flag value" pairs into "--flag=value" so spellings
// compare; program words and the model are dropped.
func normFlags(words []string, model string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") {
			continue
		}
		if w == "--model-path" || w == "--model" {
			i++
			continue
		}
		if !strings.Contains(w, "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && words[i+1] != model {
			w += "=" + words[i+1]
			i++
		}
		out = append(out, w)
	}
	return out
}

func (c seedCase) target() space.Target {
	t := space.Target{Model: c.model, Engine: c.engine}
	if c.version != "" {
		t.Engines = map[string]space.EngineTarget{c.engine: {Version: c.version}}
	}
	return t
}

func TestSeedCommands(t *testing.T) {
	cases := loadSeedCases(t)
	if len(cases) < 30 {
		t.Fatalf("only %d seed cases loaded", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, err := Render(c.cfg, c.target())
			if err != nil {
				t.Fatalf("Render(%v): %v", c.cfg, err)
			}
			got := normFlags(cmd.Argv, "")
			want := normFlags(shellWords(c.text), "")
			switch c.exact {
			case "pretty":
				if p := cmd.Pretty(); p != c.text {
					t.Errorf("Pretty() =\n%s\nseed %s =\n%s", p, c.source, c.text)
				}
			case "shell":
				if s := cmd.Shell(); s != c.text {
					t.Errorf("Shell() = %s\nseed %s = %s", s, c.source, c.text)
				}
			case "flags":
				if g := strings.Join(got, " "); g != c.text {
					t.Errorf("flags = %s\nseed %s = %s", g, c.source, c.text)
				}
			case "set":
			default:
				t.Fatalf("unknown exact mode %q", c.exact)
			}
			sort.Strings(got)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("flag set = %v\nseed %s   = %v", got, c.source, want)
			}
			checkModel(t, c, cmd)
			parsed := parseSeed(t, c)
			wantCfg := c.cfg.Clone()
			delete(wantCfg, KnobModelVariant) // the checkpoint path, checked above
			wantCfg[KnobEngine] = c.engine
			if parsed.Key() != wantCfg.Key() {
				t.Errorf("Parse(seed) = %s\nwant          %s", parsed.Key(), wantCfg.Key())
			}
		})
	}
}

func checkModel(t *testing.T, c seedCase, cmd Command) {
	t.Helper()
	words := shellWords(c.text)
	if len(words) == 0 || strings.HasPrefix(words[0], "-") {
		return // a flags-only block: the seed names the model elsewhere
	}
	p, err := ParseArgs(c.engine, words, Latest())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ModelPath(c.cfg, c.target())
	if p.Model != want {
		t.Errorf("seed serves %q, config renders %q", p.Model, want)
	}
	if !slices.Contains(cmd.Argv, want) {
		t.Errorf("rendered argv %v does not serve %q", cmd.Argv, want)
	}
}

func parseSeed(t *testing.T, c seedCase) space.Config {
	t.Helper()
	cfg, err := parse(c.engine, shellWords(c.text))
	if err != nil {
		t.Fatalf("Parse(seed %s): %v", c.source, err)
	}
	return cfg
}

// TestSeedsCovered re-reads the seed documents, when present, and fails if
// testdata/seeds.txt misses any Backend Parameters block or serving
// command, so the golden set cannot silently fall behind the seeds.
func TestSeedsCovered(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "seeds")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("seed documents not present")
	}
	have := map[string]bool{}
	for _, c := range loadSeedCases(t) {
		have[strings.Join(normFlags(shellWords(c.text), ""), " ")] = true
	}
	cmdStart := regexp.MustCompile("(python3 -m sglang.launch_server|vllm serve [^`]*|trtllm-serve [^`]*|--speculative-algorithm .*)")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			var text string
			switch {
			case strings.Contains(lines[i], "Backend Parameters:") && !strings.Contains(lines[i], "N/A"):
				var fl []string
				for j := i + 1; j < len(lines) && !strings.Contains(lines[j], "result"); j++ {
					if s := strings.TrimSpace(lines[j]); strings.HasPrefix(s, "--") && !strings.HasPrefix(s, "---") {
						fl = append(fl, s)
					}
				}
				text = strings.Join(fl, " ")
			case cmdStart.MatchString(lines[i]) && !strings.Contains(lines[i], "bench serve"):
				text = cmdStart.FindString(lines[i])
				for j := i; strings.HasSuffix(strings.TrimSpace(lines[j]), "\\") && j+1 < len(lines); j++ {
					text += "\n" + lines[j+1]
				}
			default:
				continue
			}
			key := strings.Join(normFlags(shellWords(text), ""), " ")
			if !have[key] && key != "" {
				t.Errorf("%s:%d: seed flags %q have no case in testdata/seeds.txt", filepath.Base(f), i+1, key)
			}
		}
	}
}
