// Package gguf writes and reads GGUF v3 files (llama.cpp's and Ollama's
// checkpoint format) as far as servetune needs them: metadata of every
// value type, F32 tensors, a header reader that tests and the Ollama
// adapter's pre-launch check use, and tiny random-weight llama models for
// running real engines on machines without GPUs. Of the module it imports
// only bench, whose prompt words the tiny models' vocabulary must hold.
package gguf
