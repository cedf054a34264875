package bench

import (
	"fmt"
	"math"
)

// builtinSeed is the dataset seed of the seeds' GPUStack profiles
// (dataset_seed: 42).
const builtinSeed = 42

// Builtin returns the named profiles the seeds use, in a stable order.
//
// The first five are the GPUStack profiles of seed 002 (request_rate 1000
// with 1000 requests behaves as "all at once"; the seeds' results show 512
// as the concurrency cap, so those two profiles carry it). The sharegpt-bs-N
// profiles are seed 004's `vllm bench serve --max-concurrency N
// --num-prompts 100` runs, which send everything at once.
func Builtin() []Profile {
	random := func(name string, in, out int, rate float64, n, conc int) Profile {
		return Profile{Name: name, Dataset: DatasetRandom, InputLen: in, OutputLen: out,
			NumPrompts: n, RequestRate: rate, MaxConcurrency: conc, Seed: builtinSeed}
	}
	ps := []Profile{
		random("balanced", 8192, 1024, 1000, 1000, 512),
		random("short-context", 1024, 128, 1000, 1000, 512),
		random("long-context", 32000, 100, 1, 100, 0),
		random("generation-heavy", 1000, 2000, 1, 200, 0),
		{Name: "sharegpt", Dataset: DatasetShareGPT, NumPrompts: 1000, RequestRate: 1000, MaxConcurrency: 512, Seed: builtinSeed},
	}
	for _, r := range []float64{1, 4, 8, 16} {
		ps = append(ps, Profile{Name: fmt.Sprintf("sharegpt-rate-%g", r), Dataset: DatasetShareGPT,
			NumPrompts: 1000, RequestRate: r, Seed: builtinSeed})
	}
	for _, n := range []int{1, 2, 4, 8} {
		ps = append(ps, Profile{Name: fmt.Sprintf("sharegpt-bs-%d", n), Dataset: DatasetShareGPT,
			NumPrompts: 100, RequestRate: math.Inf(1), MaxConcurrency: n, Seed: builtinSeed,
			Endpoint: EndpointChat}) // seed 004 ran `--backend openai-chat`
	}
	return ps
}

// Lookup returns the built-in profile with that name.
func Lookup(name string) (Profile, bool) {
	for _, p := range Builtin() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// BuiltinNames lists the built-in profile names, for help texts and errors.
func BuiltinNames() []string {
	ps := Builtin()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}
