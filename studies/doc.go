// Package studies owns a study's life: its SQLite record of every trial
// (params, state, metrics per profile, failure class and log lines, GPU
// seconds), the loop that asks the sampler, runs trials and records them so
// that a kill at any moment loses at most the trial in flight, resume, the
// events a live view draws (Event, with a benchmark's progress at each
// checkpoint), and the result model with its renderers (text, JSON, CSV,
// Markdown) for listing, showing and reporting the best trials and Pareto
// fronts. The report people read — HTML and Markdown with plots — is
// built from the same trials in studies/report.
package studies
