// Package benchtest serves a fake OpenAI-compatible streaming endpoint for
// tests: /v1/completions and /v1/chat/completions streamed the way vLLM,
// SGLang, TensorRT-LLM, llama.cpp and Ollama stream (each engine's chunk
// shapes and quirks), with scripted per-token timing and injectable
// failures. The server stamps every content chunk it sends, so a test can
// compare the client's measured timings with the truth.
//
// # Example
//
//	srv := benchtest.NewServer(benchtest.Config{Flavor: benchtest.VLLM, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
//	defer srv.Close()
//	res, err := bench.Run(ctx, bench.Client{BaseURL: srv.URL, Model: "m"}, profile, bench.RunOptions{})
package benchtest
