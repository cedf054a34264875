// Package cost turns a trial's GPUs and throughput into dollars: the
// price file users keep (one [[gpu]] entry per GPU type with its price per
// GPU-hour and where the price came from) and the cost metrics
// usd_per_hour, usd_per_mtok_output and usd_per_mtok_total. servetune
// ships no prices: every figure comes from the user's file and carries its
// source line into whatever shows it.
//
// # Price file
//
//	# prices.toml
//	[[gpu]]
//	name = "H100"
//	usd_per_gpu_hour = 2.49
//	source = "our cloud contract, 2026-11"
//
// Decisions are pure: Parse reads bytes, Metrics maps numbers.
package cost
