package cost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/internal/suggest"
)

// Price is one GPU type's price, as the user's file states it.
type Price struct {
	Name          string  `toml:"name"`
	USDPerGPUHour float64 `toml:"usd_per_gpu_hour"`
	Source        string  `toml:"source"`
	// Line is the entry's [[gpu]] line in the file, so a report can cite
	// where its price came from.
	Line int `toml:"-"`
}

// Prices is a price file: its path (as given) and its entries in order.
type Prices struct {
	File string
	GPUs []Price
}

// Bounds on a price file: a price list, not a data set.
const (
	maxFileBytes = 1 << 20
	maxEntries   = 1000
)

var priceKeys = []string{"name", "usd_per_gpu_hour", "source"}

// Load reads and checks the price file at path.
func Load(path string) (Prices, error) {
	f, err := os.Open(path)
	if err != nil {
		return Prices{}, fmt.Errorf("price file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return Prices{}, fmt.Errorf("price file %s: is a directory, not a price file", path)
	}
	// The size is read, not stat'ed: a device (/dev/zero) or a pipe
	// reports 0 bytes and would be read without end.
	src, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return Prices{}, fmt.Errorf("price file %s: %w", path, err)
	}
	if len(src) > maxFileBytes {
		return Prices{}, fmt.Errorf("price file %s: more than the %d bytes a price list needs", path, maxFileBytes)
	}
	return Parse(path, src)
}

// Parse checks a price file's text, reporting every problem at once as
// FILE:LINE: gpu[i].KEY: what is wrong.
func Parse(file string, src []byte) (Prices, error) {
	var doc struct {
		GPU []Price `toml:"gpu"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&doc)
	if err != nil {
		return Prices{}, fmt.Errorf("price file %s: %w", file, err)
	}
	lines := entryLines(src)
	var errs []error
	bad := func(i int, key, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: gpu[%d].%s: %s", file, lines.of(i, key), i, key, fmt.Sprintf(format, a...)))
	}
	for _, k := range md.Undecoded() {
		errs = append(errs, fmt.Errorf("%s: %s: unknown key%s (a price file has [[gpu]] entries of %s)",
			file, k, suggest.Hint(k[len(k)-1], append([]string{"gpu"}, priceKeys...)), strings.Join(priceKeys, ", ")))
	}
	if len(doc.GPU) == 0 {
		errs = append(errs, fmt.Errorf("%s: no [[gpu]] entry", file))
	}
	if len(doc.GPU) > maxEntries {
		errs = append(errs, fmt.Errorf("%s: %d [[gpu]] entries, more than %d", file, len(doc.GPU), maxEntries))
	}
	seen := map[string]int{}
	for i := range doc.GPU {
		g := &doc.GPU[i]
		g.Line = lines.of(i, "")
		g.check(i, bad)
		if j, ok := seen[strings.ToLower(g.Name)]; ok && g.Name != "" {
			bad(i, "name", "%q is priced twice (also gpu[%d], line %d)", g.Name, j, doc.GPU[j].Line)
		}
		seen[strings.ToLower(g.Name)] = i
	}
	if len(errs) > 0 {
		return Prices{}, errors.Join(errs...)
	}
	return Prices{File: file, GPUs: doc.GPU}, nil
}

// MaxUSDPerGPUHour bounds a price: the dearest GPU rents for tens of
// dollars an hour, so past ten thousand a price is a typo, and 1e300
// made every cost infinite once multiplied by GPUs and replicas.
const MaxUSDPerGPUHour = 10_000

func (g Price) check(i int, bad func(i int, key, format string, a ...any)) {
	if strings.TrimSpace(g.Name) == "" {
		bad(i, "name", "is required (the GPU type, as target.gpu names it)")
	}
	if !(g.USDPerGPUHour > 0) || math.IsInf(g.USDPerGPUHour, 0) {
		bad(i, "usd_per_gpu_hour", "must be a finite price > 0, not %v", g.USDPerGPUHour)
	} else if g.USDPerGPUHour > MaxUSDPerGPUHour {
		bad(i, "usd_per_gpu_hour", "is %v, more than the %v a GPU-hour may cost (cents for dollars, or a typo's extra zeros?)", g.USDPerGPUHour, float64(MaxUSDPerGPUHour))
	}
	if strings.TrimSpace(g.Source) == "" {
		bad(i, "source", "is required: where the price comes from (a quote, a contract, a price page and its date)")
	}
}

// Names are the priced GPU types in file order, for did-you-mean and
// for saying what the file prices.
func (p Prices) Names() []string {
	out := make([]string, len(p.GPUs))
	for i, g := range p.GPUs {
		out[i] = g.Name
	}
	return out
}

// Lookup finds a GPU type's price, its name compared without case.
func (p Prices) Lookup(gpu string) (Price, bool) {
	for _, g := range p.GPUs {
		if strings.EqualFold(g.Name, gpu) {
			return g, true
		}
	}
	return Price{}, false
}

// Cite is how a report names a price: "H100: $2.49/GPU-hour (our cloud
// contract, 2026-11; prices.toml:2)".
func (p Prices) Cite(g Price) string {
	return fmt.Sprintf("%s: $%g/GPU-hour (%s; %s:%d)", g.Name, g.USDPerGPUHour, g.Source, p.File, g.Line)
}

// lineIndex is where each [[gpu]] entry and its keys are in the file:
// a line scanner, not a parser (BurntSushi/toml reports positions only
// for syntax errors); a key it misses costs only its line number.
type lineIndex struct {
	entry []int            // entry i's [[gpu]] line
	keys  []map[string]int // entry i's key → line
}

func entryLines(src []byte) lineIndex {
	var li lineIndex
	for n, raw := range strings.Split(string(src), "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(line, "[[") && strings.TrimSpace(strings.Trim(line, "[] \t")) == "gpu":
			li.entry = append(li.entry, n+1)
			li.keys = append(li.keys, map[string]int{})
		case len(li.keys) > 0 && strings.Contains(line, "="):
			k := strings.Trim(strings.TrimSpace(line[:strings.IndexByte(line, '=')]), `"'`)
			if _, ok := li.keys[len(li.keys)-1][k]; !ok {
				li.keys[len(li.keys)-1][k] = n + 1
			}
		}
	}
	return li
}

// of is the line of entry i's key (its [[gpu]] line for a key it lacks,
// 0 when the entry was not found).
func (li lineIndex) of(i int, key string) int {
	if i >= len(li.entry) {
		return 0
	}
	if n, ok := li.keys[i][key]; ok {
		return n
	}
	return li.entry[i]
}
