package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/space"
)

// CardFileError is one problem in a cards file, at file:line:key; the
// command line reports it as bad input (exit 2).
type CardFileError struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

func (e *CardFileError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", pos, e.Key, e.Msg)
	}
	return pos + ": " + e.Msg
}

// LoadCards reads a cards file (the `servetune card` / `calibrate`
// output: [[gpu]], [[model]], [[draft]] tables) over the built-in cards.
func LoadCards(path string) (*Cards, error) {
	src, err := ReadCardFile(path)
	if err != nil {
		return nil, err
	}
	c := DefaultCards()
	return c, c.addFile(path, src, true)
}

// AddPath reads the cards file at path over c, as LoadCards does over
// the built-in cards.
func (c *Cards) AddPath(path string) error {
	src, err := ReadCardFile(path)
	if err != nil {
		return err
	}
	return c.addFile(path, src, true)
}

// AddFile is Add with errors naming file:line:key.
func (c *Cards) AddFile(file string, src []byte) error {
	return c.addFile(file, src, false)
}

// addFile is AddFile; user says the file is one a user named (--cards,
// [target.sim] cards), which must hold a card: an empty one (/dev/null,
// a file truncated by a failed write, only comments) loaded as the
// built-in cards, and the study ran on cards its author never meant.
// Cards stored with a study are read as they were stored.
func (c *Cards) addFile(file string, src []byte, user bool) error {
	var more Cards
	lines := space.KeyLines(string(src))
	md, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&more)
	if err != nil {
		return tomlError(file, lines, err)
	}
	at := func(key, msg string) error {
		return &CardFileError{File: file, Line: lineOf(lines, key), Key: key, Msg: msg}
	}
	if un := md.Undecoded(); len(un) > 0 {
		k := un[0]
		known := knownKeys(k)
		return at(indexedKey(lines, k), "unknown key"+suggest.Hint(k[len(k)-1], known)+" (known: "+strings.Join(known, ", ")+")")
	}
	for i, g := range more.GPUs {
		if key, msg := g.problem(); key != "" {
			return at(fmt.Sprintf("gpu[%d].%s", i, key), msg)
		}
	}
	for _, c := range fileCardNames(more) {
		// An empty alias matched a target.gpu or model left empty
		// elsewhere, and named nothing a user would look up.
		if slices.ContainsFunc(c.names[1:], func(a string) bool { return strings.TrimSpace(a) == "" }) {
			return at(c.key+".aliases", "holds an empty alias: give each alias a name, or drop it")
		}
	}
	for i, m := range more.Models {
		if key, msg := m.problem(); key != "" {
			return at(fmt.Sprintf("model[%d].%s", i, key), msg)
		}
		// Left out, heads and max_context are unknown (older cards lack
		// them); written as 0 they read the same, a model without
		// attention cost or context limit, which the file did not mean.
		for _, k := range []struct {
			key string
			v   int
		}{{"heads", m.Heads}, {"max_context", m.MaxContext}} {
			if _, written := lines[fmt.Sprintf("model[%d].%s", i, k.key)]; written && k.v == 0 {
				return at(fmt.Sprintf("model[%d].%s", i, k.key), "is 0, which reads as unknown: give the model's value, or leave "+k.key+" out")
			}
		}
	}
	for i, d := range more.Drafts {
		if key, msg := d.problem(); key != "" {
			return at(fmt.Sprintf("draft[%d].%s", i, key), msg)
		}
	}
	if user && len(more.GPUs)+len(more.Models)+len(more.Drafts) == 0 {
		return &CardFileError{File: file, Msg: "holds no card: a cards file lists [[gpu]], [[model]] or [[draft]] tables (servetune card writes one); leave the cards out for the built-in ones"}
	}
	if e := duplicateProblem(fileCardNames(more), lines); e != nil {
		e.File = file
		return e
	}
	c.merge(more)
	return nil
}

// MaxCardFileSize is the largest cards file read, in bytes: the built-in
// catalogue is 20 KiB and a card a few hundred bytes, so 4 MiB holds
// thousands of cards, and a path such as /dev/zero fails at once instead
// of growing memory without end.
const MaxCardFileSize = 4 << 20

// ReadCardFile reads a cards file of at most MaxCardFileSize bytes,
// errors naming the file.
func ReadCardFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &CardFileError{File: path, Msg: err.Error()}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &CardFileError{File: path, Msg: "is a directory, not a cards file"}
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxCardFileSize+1))
	if err != nil {
		return nil, &CardFileError{File: path, Msg: err.Error()}
	}
	if len(src) > MaxCardFileSize {
		return nil, &CardFileError{File: path, Msg: fmt.Sprintf("is larger than %d bytes (4 MiB), the most a cards file may be", MaxCardFileSize)}
	}
	return src, nil
}

var tomlErrLine = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// tomlError positions BurntSushi's syntax and type errors.
func tomlError(file string, lines map[string]int, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &CardFileError{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
	}
	if m := tomlErrLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		key := indexedKey(lines, toml.Key(strings.Split(m[2], ".")))
		return &CardFileError{File: file, Line: n, Key: key, Msg: m[3]}
	}
	return &CardFileError{File: file, Msg: err.Error()}
}

// indexedKey names an undecoded key with its table's index
// ("model.foo" → "model[1].foo", the first table that has it).
func indexedKey(lines map[string]int, k toml.Key) string {
	if len(k) < 2 {
		return k.String()
	}
	for i := 0; ; i++ {
		head := fmt.Sprintf("%s[%d]", k[0], i)
		if _, ok := lines[head]; !ok {
			return k.String()
		}
		key := head + "." + strings.Join(k[1:], ".")
		if _, ok := lines[key]; ok {
			return key
		}
	}
}

// lineOf is key's line, else its table's.
func lineOf(lines map[string]int, key string) int {
	for k := key; k != ""; {
		if n, ok := lines[k]; ok {
			return n
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}

// knownKeys lists the keys a card table takes, for "unknown key" errors.
func knownKeys(k toml.Key) []string {
	var t reflect.Type
	switch k[0] {
	case "gpu":
		t = reflect.TypeFor[GPUCard]()
	case "model":
		t = reflect.TypeFor[ModelCard]()
	case "draft":
		t = reflect.TypeFor[DraftCard]()
	default:
		return []string{"gpu", "model", "draft"}
	}
	var out []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	slices.Sort(out)
	return out
}
