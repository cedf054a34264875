// Package space owns the search-space file: the TOML a user writes to
// declare one study (target, objectives, constraints absolute or relative
// to the baseline, the [slo] latency bounds, benchmark profiles, knobs with
// their domains and `when` conditions, rules and the baseline), the
// declarations of engines servetune has no adapter for ([engines.<name>]
// in the file, in files it includes and in --engines files; decoded into
// plain EngineDecl values that package engines turns into adapters), its
// validation into one error that lists every problem with
// file:line:key, and the pure operations on the result — which knobs are
// active in a config, which rule a config breaks, whether a config lies in
// the space (CheckConfig, also used by `servetune command --set`), random
// sampling, grids. A knob only some of the space's engines take (the
// Options.Supports hook) gets an engine guard in its `when`, so it is
// inactive for the others instead of failing their trials. It refuses a metric its profile cannot produce
// (goodput without an SLO, max_rate_under_slo without search_rate,
// quality metrics without a quality profile) at load. Validation refuses any file that could only produce
// failing trials, and bounds its own cost: size and nesting are capped
// before decoding and loading honours ctx.
//
// It knows nothing about engines, samplers or the simulator beyond what
// Options inject (bench.Profile.Validate is the one check it calls itself),
// so that data flows one way: space → search → objective → studies.
package space
