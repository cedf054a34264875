// Package gguf writes and reads GGUF v3 files, the checkpoint format of
// llama.cpp and Ollama, and builds tiny llama-architecture models with
// random weights for testing real engines on machines without GPUs.
//
// It owns the on-disk format only as far as servetune needs it: metadata
// of every GGUF value type, F32 tensors, and a header reader that tests
// (and the Ollama adapter's pre-launch check) use to verify a file. It
// uses only the standard library.
package gguf
