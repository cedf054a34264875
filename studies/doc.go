// Package studies owns a study's life: its directory and layout (Dir, the
// only code that builds those paths), the lock that keeps a second
// servetune out (Lock, OpenSession), the record of every trial — a SQLite
// study.db, or a PostgreSQL schema shared by workers on many hosts
// (OpenPostgres, OpenShared, ClaimNext) — and
// its explicit schema migrations (Store; quality profiles' replies,
// the command each engine really ran and its environment fingerprint
// included), the one vocabulary of trial outcomes (State), the loop that
// picks configs, runs trials through objective.Measure and records them so
// that a kill at any moment loses at most the trial in flight (with several
// workers, each trial claimed under a lease renewed by heartbeat, an
// expired one reclaimed as interrupted; a store outage ridden
// out up to a bound, results written when the store is back; trials packed onto the worker's
// GPUs; a virtual clock for the lab), resume, the
// events a live view draws (Event, with a benchmark's progress at each
// checkpoint), and the result model with its renderers (text, JSON, CSV,
// Markdown) for listing, showing and reporting the best trials and Pareto
// fronts. It judges constraints, including guards relative to the finished
// baseline (unknown before it), and hands the baseline's replies to later
// trials. The report people read — HTML and Markdown with plots — is built
// from the same trials in studies/report.
package studies
