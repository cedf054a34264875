package modelfree

import (
	"regexp"
	"strconv"
	"strings"
)

// oomAdvice is what an out-of-memory message says about the memory
// fraction knob: which way it must move, and by how much of the GPU at
// least when the message gives the figures.
type oomAdvice struct {
	// dir is -1 when the fraction must come down (what is left outside
	// it is too small: SGLang's activations, vLLM's CUDA graphs), +1 when
	// it must go up (the pool it sizes is too small for the weights or
	// the KV cache), 0 when the message does not say.
	dir int
	// short is the shortfall as a share of the GPU's memory (0 when the
	// message has no figures): the fraction must move by at least this.
	short float64
	// want, free and total are PyTorch's figures (GiB), when the message
	// is its allocator failure; total is 0 otherwise.
	want, free, total float64
}

var (
	// PyTorch's allocator failure, as every engine surfaces it. PyTorch
	// prints each size in the largest unit below it (format_size), so an
	// exhausted GPU reads "of which 0 bytes is free".
	torchOOM = regexp.MustCompile(`Tried to allocate ([0-9.]+) (GiB|MiB|KiB|bytes)\. GPU \d+ has a total capacity of ([0-9.]+) (GiB|MiB|KiB|bytes) of which ([0-9.]+) (GiB|MiB|KiB|bytes) is free`)
	// vLLM's start-up check: Free memory on device (free/total GiB) on
	// startup is less than desired GPU memory utilization (util, req GiB).
	vllmStartup = regexp.MustCompile(`\(([0-9.]+)/([0-9.]+) GiB\) on startup is less than desired GPU memory utilization \([0-9.]+, ([0-9.]+) GiB\)`)
)

// readOOM reads an engine's out-of-memory message (the formats of
// /work/shared/reference/engines.md: PyTorch's allocator, SGLang's
// static-pool and KV checks, vLLM's cache-block, max-length, start-up
// and sampler warm-up checks). Unknown messages advise nothing.
func readOOM(msg string) oomAdvice {
	if m := torchOOM.FindStringSubmatch(msg); m != nil {
		want, free, total := gibOf(m[1], m[2]), gibOf(m[5], m[6]), gibOf(m[3], m[4])
		return oomAdvice{dir: -1, short: shortfall(want-free, total), want: want, free: free, total: total}
	}
	if m := vllmStartup.FindStringSubmatch(msg); m != nil {
		free, total, req := gibOf(m[1], "GiB"), gibOf(m[2], "GiB"), gibOf(m[3], "GiB")
		return oomAdvice{dir: -1, short: shortfall(req-free, total)}
	}
	switch {
	case strings.Contains(msg, "increase --mem-fraction-static"),
		strings.Contains(msg, "No available memory for the cache blocks"),
		strings.Contains(msg, "larger than the available KV cache memory"):
		return oomAdvice{dir: 1}
	case strings.Contains(msg, "lowering `max_num_seqs` or `gpu_memory_utilization`"),
		strings.Contains(msg, "--mem-fraction-static to a smaller value"):
		return oomAdvice{dir: -1}
	}
	return oomAdvice{}
}

func gibOf(num, unit string) float64 {
	x, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0
	}
	switch unit {
	case "MiB":
		return x / 1024
	case "KiB":
		return x / (1024 * 1024)
	case "bytes":
		return x / (1024 * 1024 * 1024)
	}
	return x
}

// shortfall is missing GiB as a share of total, 0 when either is not
// a positive figure.
func shortfall(missing, total float64) float64 {
	if missing <= 0 || total <= 0 {
		return 0
	}
	return missing / total
}

// outsideGiB is what sat outside the memory fraction besides PyTorch's
// failed allocation, for an OOM at fraction f: the GPU's share outside
// the fraction less what was still free. ok is false without the figures
// or when nothing was free (then it is only a lower bound).
func (a oomAdvice) outsideGiB(f float64) (gib float64, ok bool) {
	if a.total <= 0 || a.free <= 0 {
		return 0, false
	}
	return (1-f)*a.total - a.free, true
}

// estimated is a's shortfall when PyTorch reported nothing free, from
// what another OOM of the family showed sits outside the fraction
// (outside GiB): the allocation plus that, less the share outside f.
// It is never below the figure's own lower bound.
func (a oomAdvice) estimated(f, outside float64) oomAdvice {
	if a.total <= 0 || a.free > 0 {
		return a
	}
	a.short = max(a.short, shortfall(a.want+outside-(1-f)*a.total, a.total))
	return a
}
