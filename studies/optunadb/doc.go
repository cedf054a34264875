// Package optunadb writes a study into an Optuna RDB storage (SQLite or
// PostgreSQL) in the schema Optuna 3.1 creates, so optuna-dashboard and
// Optuna's own tools open it without a migration: knobs as params with
// their distributions, objectives as values, states as Optuna's, the
// rest as user attributes; writes are upserts, so a re-export or a
// resumed run (Mirror) never duplicates a trial.
package optunadb
