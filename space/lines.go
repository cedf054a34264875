package space

import (
	"strconv"
	"strings"
)

// keyLines maps every key path in a TOML document to its line number, so
// validation errors can name file:line even for problems found after
// decoding (BurntSushi/toml reports positions only for syntax errors).
// Paths look like "study.n_trials", "params.tp.low", "objectives[1].metric";
// table headers are recorded under their own path. It is a line scanner,
// not a parser: good enough for the keys servetune reads, and a missing
// entry only costs the line number, never correctness.
func keyLines(src string) map[string]int {
	out := map[string]int{}
	arrays := map[string]int{}
	table := ""
	inMultiline := ""
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if inMultiline != "" {
			if strings.Contains(line, inMultiline) {
				inMultiline = ""
			}
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		switch {
		case strings.HasPrefix(line, "[["):
			name := cleanKey(strings.TrimSuffix(strings.TrimSpace(strings.SplitN(line[2:], "]]", 2)[0]), "]"))
			idx := arrays[name]
			arrays[name] = idx + 1
			table = name + "[" + strconv.Itoa(idx) + "]"
			out[table] = i + 1
		case line[0] == '[':
			table = cleanKey(strings.SplitN(line[1:], "]", 2)[0])
			if _, ok := out[table]; !ok {
				out[table] = i + 1
			}
		default:
			eq := strings.IndexByte(line, '=')
			if eq <= 0 {
				continue
			}
			key := cleanKey(line[:eq])
			path := key
			if table != "" {
				path = table + "." + key
			}
			if _, ok := out[path]; !ok {
				out[path] = i + 1
			}
			rest := strings.TrimSpace(line[eq+1:])
			for _, q := range []string{`"""`, `'''`} {
				if strings.HasPrefix(rest, q) && strings.Count(rest, q) == 1 {
					inMultiline = q
				}
			}
		}
	}
	return out
}

func cleanKey(k string) string {
	parts := strings.Split(strings.TrimSpace(k), ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// KeyLines is keyLines for other TOML files servetune reads (simulator
// cards), so their errors name file:line:key the same way.
func KeyLines(src string) map[string]int { return keyLines(src) }
