package bench

import (
	"math"
	"time"
)

// Profile is one benchmark workload: which prompts, how many, and how fast
// they arrive. The same struct is decoded from the space TOML (custom
// profiles), looked up by name (built-ins), consumed by the load generator
// and by the simulator, so a profile means the same thing everywhere.
type Profile struct {
	Name string `toml:"-" json:"name"`

	// Dataset is "random" (default), "sharegpt" or "jsonl".
	Dataset     string `toml:"dataset" json:"dataset"`
	DatasetPath string `toml:"dataset_path" json:"dataset_path,omitempty"`

	// Random dataset shape, as `vllm bench serve --dataset-name random`.
	InputLen   int     `toml:"input_len" json:"input_len,omitempty"`
	OutputLen  int     `toml:"output_len" json:"output_len,omitempty"`
	RangeRatio float64 `toml:"range_ratio" json:"range_ratio,omitempty"`
	PrefixLen  int     `toml:"prefix_len" json:"prefix_len,omitempty"`

	NumPrompts int `toml:"num_prompts" json:"num_prompts"`
	// RequestRate is in requests per second; +Inf (TOML `inf`) sends all at once.
	RequestRate float64 `toml:"request_rate" json:"request_rate"`
	// Burstiness is the gamma shape factor of inter-arrival times; 1 is Poisson.
	Burstiness     float64       `toml:"burstiness" json:"burstiness,omitempty"`
	MaxConcurrency int           `toml:"max_concurrency" json:"max_concurrency,omitempty"`
	Warmup         int           `toml:"warmup" json:"warmup,omitempty"`
	MaxDuration    time.Duration `toml:"max_duration" json:"max_duration,omitempty"`
	Seed           int64         `toml:"seed" json:"seed"`

	// Endpoint is "completions" (default) or "chat".
	Endpoint string `toml:"endpoint" json:"endpoint,omitempty"`
	// TextPrompts sends prompts as strings instead of token-id lists, for
	// servers that only take strings (Ollama, llama.cpp).
	TextPrompts bool `toml:"text_prompts" json:"text_prompts,omitempty"`
	// NoIgnoreEOS stops sending `ignore_eos: true`, for servers that reject it.
	NoIgnoreEOS bool `toml:"no_ignore_eos" json:"no_ignore_eos,omitempty"`
}

// Unlimited reports whether requests are all sent at time zero.
func (p Profile) Unlimited() bool { return p.RequestRate <= 0 || math.IsInf(p.RequestRate, 1) }
