package bench

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Flags is what ProfileFromFlags reads of a command line (urfave/cli's
// *cli.Context has these methods).
type Flags interface {
	IsSet(name string) bool
	String(name string) string
	Int(name string) int
	Int64(name string) int64
	Float64(name string) float64
	Bool(name string) bool
	Duration(name string) time.Duration
}

// ProfileFromFlags is `servetune bench`'s profile: it starts from
// --profile (or an empty custom profile) and applies every flag the user
// set, so `--profile sharegpt --num-prompts 50` does what it says. Its
// errors name the flags; every one is bad input.
func ProfileFromFlags(c Flags) (Profile, error) {
	p := Profile{Name: "custom", Dataset: DatasetRandom, InputLen: 1024, OutputLen: 128,
		NumPrompts: 1000, RequestRate: math.Inf(1)}
	if name := c.String("profile"); name != "" {
		var ok bool
		if p, ok = Lookup(name); !ok {
			return p, fmt.Errorf("--profile %q: not a built-in profile (%s)", name, strings.Join(BuiltinNames(), ", "))
		}
	}
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("dataset", func() { p.Dataset = c.String("dataset") })
	set("dataset-path", func() { p.DatasetPath = c.String("dataset-path") })
	set("input-len", func() { p.InputLen = c.Int("input-len") })
	set("output-len", func() { p.OutputLen = c.Int("output-len") })
	set("range-ratio", func() { p.RangeRatio = c.Float64("range-ratio") })
	set("prefix-len", func() { p.PrefixLen = c.Int("prefix-len") })
	set("num-prompts", func() { p.NumPrompts = c.Int("num-prompts") })
	set("max-concurrency", func() { p.MaxConcurrency = c.Int("max-concurrency") })
	set("burstiness", func() { p.Burstiness = c.Float64("burstiness") })
	set("seed", func() { p.Seed = c.Int64("seed") })
	set("warmup", func() { p.Warmup = c.Int("warmup") })
	set("max-duration", func() { p.MaxDuration = c.Duration("max-duration") })
	set("endpoint", func() { p.Endpoint = c.String("endpoint") })
	set("text-prompts", func() { p.TextPrompts = c.Bool("text-prompts") })
	set("no-ignore-eos", func() { p.NoIgnoreEOS = c.Bool("no-ignore-eos") })
	if c.IsSet("request-rate") {
		r, err := strconv.ParseFloat(c.String("request-rate"), 64)
		if err != nil {
			return p, fmt.Errorf("--request-rate %q: want a number of requests per second or inf", c.String("request-rate"))
		}
		// 0 is how a profile built in code says "all at once", but typed
		// on the command line it reads as "send nothing": the benchmark
		// then ran flat out, not what was asked. inf says all at once.
		if r == 0 {
			return p, fmt.Errorf("--request-rate 0 would send nothing: give requests per second above 0, or inf to send all at once")
		}
		p.RequestRate = r
	}
	// --burstiness 0 likewise read as the default 1 (Poisson).
	if c.IsSet("burstiness") && c.Float64("burstiness") == 0 {
		return p, fmt.Errorf("--burstiness 0 is no gamma shape: give a factor above 0 (1 is Poisson, below 1 burstier)")
	}
	if p.DatasetName() == DatasetRandom && p.DatasetPath != "" {
		return p, fmt.Errorf("--dataset-path needs --dataset sharegpt or jsonl")
	}
	if err := applyWorkload(c, &p); err != nil {
		return p, err
	}
	if err := applyTrace(c, &p); err != nil {
		return p, err
	}
	return p, profileProblems(p)
}

// applyWorkload sets the shared_prefix table and the stages from their
// flags; a shared_prefix flag needs --dataset shared_prefix.
func applyWorkload(c Flags, p *Profile) error {
	if p.DatasetName() == DatasetSharedPrefix {
		sp := SharedPrefix{Groups: c.Int("num-unique-system-prompts"), UsersPerGroup: c.Int("num-users-per-system-prompt"),
			SystemPromptLen: c.Int("system-prompt-len"), QuestionLen: c.Int("question-len"), OutputLen: c.Int("output-len"),
			MultiTurn: c.Bool("enable-multi-turn-chat"), MaxModelLen: c.Int("max-model-len"), Overflow: c.String("overflow")}
		p.SharedPrefix, p.InputLen, p.OutputLen = &sp, 0, 0
		for _, name := range []string{"input-len", "prefix-len", "range-ratio"} {
			if c.IsSet(name) {
				return fmt.Errorf("--%s does not apply to --dataset shared_prefix (its lengths: --system-prompt-len, --question-len, --output-len)", name)
			}
		}
	} else {
		for _, name := range []string{"num-unique-system-prompts", "num-users-per-system-prompt", "system-prompt-len", "question-len",
			"enable-multi-turn-chat", "max-model-len", "overflow"} {
			if c.IsSet(name) {
				return fmt.Errorf("--%s needs --dataset shared_prefix", name)
			}
		}
	}
	return applyStages(c, p)
}

// applyStages sets --stages, which replaces --num-prompts and
// --request-rate.
func applyStages(c Flags, p *Profile) error {
	if !c.IsSet("stages") {
		return nil
	}
	st, err := ParseStages(c.String("stages"))
	if err != nil {
		return fmt.Errorf("--stages: %v", err)
	}
	for _, name := range []string{"num-prompts", "request-rate"} {
		if c.IsSet(name) {
			return fmt.Errorf("--%s and --stages exclude each other: each stage sends rate × duration requests", name)
		}
	}
	p.Stages, p.NumPrompts, p.RequestRate = st, 0, 0
	return nil
}

// profileProblems renders a profile's problems with the flags that set
// them: "shared_prefix.question_len must be > 0" is --question-len.
func profileProblems(p Profile) error {
	probs := p.Problems()
	if len(probs) == 0 {
		probs = p.UserProblems()
	}
	if len(probs) == 0 {
		return nil
	}
	msgs := make([]string, len(probs))
	for i, pr := range probs {
		msgs[i] = flagOfKey(pr.Key) + " " + pr.Msg
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

func flagOfKey(key string) string {
	if f, ok := traceFlagOfKey[key]; ok {
		return f
	}
	key = strings.TrimPrefix(key, "shared_prefix.")
	if i := strings.IndexAny(key, "[."); i >= 0 {
		key = key[:i] // stages[1].rate → stages
	}
	switch key {
	case "shared_prefix":
		return fmt.Sprintf("--dataset %s", DatasetSharedPrefix)
	case "slo":
		return "--goodput"
	}
	return "--" + strings.ReplaceAll(key, "_", "-")
}

// ParsePercentiles reads --percentiles: a comma-separated list in (0, 100).
// An empty or blank list is refused: the flag's default is 95,99, so an
// empty value is an unset shell variable or a slip, not a request for no
// percentiles (the defaults p50…p99 are reported whatever it says).
func ParsePercentiles(s string) ([]float64, error) {
	if strings.TrimSpace(strings.ReplaceAll(s, ",", "")) == "" {
		return nil, fmt.Errorf("--percentiles is empty: give percentiles such as 95,99, or leave the flag out")
	}
	var ps []float64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || p <= 0 || p >= 100 {
			return nil, fmt.Errorf("--percentiles: %q is not a percentile in (0, 100)", f)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// ParseGoodput reads vllm's --goodput KEY:VALUE list.
func ParseGoodput(s string) (SLO, error) {
	var slo SLO
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, ":")
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms <= 0 {
			return slo, fmt.Errorf("--goodput %q: want ttft|tpot|e2el:MILLISECONDS", kv)
		}
		if seen[k] {
			return slo, fmt.Errorf("--goodput %q: %s is given twice", s, k)
		}
		seen[k] = true
		switch k {
		case "ttft":
			slo.TTFTMs = ms
		case "tpot":
			slo.TPOTMs = ms
		case "e2el":
			slo.E2ELMs = ms
		default:
			return slo, fmt.Errorf("--goodput %q: unknown metric %q (ttft, tpot, e2el)", kv, k)
		}
	}
	return slo, nil
}

// CheckBaseURL refuses a --base-url that is not a server root: a
// password in it, or a query or fragment (which the endpoint's path
// would follow, and which may carry a token), would reach every request
// error and the records. Its errors never quote the URL.
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("--base-url must be a server root, http://HOST[:PORT][/PATH] or https://…")
	case u.User != nil:
		return fmt.Errorf("--base-url must not carry credentials (user@ or user:password@); give an API key with --api-key-env")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(raw, "?#"):
		return fmt.Errorf("--base-url must be a server root without ?query or #fragment (the endpoint's path follows it); give an API key with --api-key-env")
	}
	return nil
}

// ParseHeaders reads --header 'Name: value' (repeatable); nil for none.
func ParseHeaders(hs []string) (map[string]string, error) {
	var out map[string]string
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %q: want 'Name: value'", h)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		// A CR, LF or other control character would end the header early
		// (Go's client then fails every request as a connection error),
		// and a name with a space or colon is no header name at all.
		if strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r == 0x7f }) || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return nil, fmt.Errorf("--header %q: a header name or value with a control character, or a name with a space", h)
		}
		if _, dup := out[http.CanonicalHeaderKey(k)]; dup {
			return nil, fmt.Errorf("--header %q: header %s is given twice", h, http.CanonicalHeaderKey(k))
		}
		if out == nil {
			out = map[string]string{}
		}
		out[http.CanonicalHeaderKey(k)] = v
	}
	return out, nil
}
