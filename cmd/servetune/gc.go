package main

// defaultGCPercent is the collector's target when the user set no GOGC.
// servetune's heap stays small (the quickstart's ~10 MB live) while the
// simulator allocates a benchmark's records and requests per prediction,
// about 2 GB over the quickstart: at Go's default of 100 the collector
// ran ~450 times; at 200 the quickstart takes 10–20% less CPU (8.8–9.3 s
// against 10.0–11.8 s) for 17 MB more resident, 80 MB in all
// (docs/benchmarks.md, issue 49).
const defaultGCPercent = 200

// gcPercent is the GC percent servetune sets, false when the user's GOGC
// stands: any value they set, valid or not, is the runtime's to read.
func gcPercent(getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return defaultGCPercent, true
}
