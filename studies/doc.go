// Package studies owns a study's life: its SQLite record of every trial
// (params, state, metrics per profile, failure class and log lines, GPU
// seconds, the command the engine really ran and its environment
// fingerprint), the loop that asks the sampler, runs trials and records them so
// that a kill at any moment loses at most the trial in flight, resume, and
// the result model with its renderers (text, JSON, CSV, Markdown) for
// listing, showing and reporting the best trials and Pareto fronts.
package studies
