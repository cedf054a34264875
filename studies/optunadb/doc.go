// Package optunadb writes a servetune study into an Optuna RDB storage
// (SQLite or PostgreSQL) in the schema Optuna 3.1 creates (alembic
// revision v3.0.0.d), so optuna-dashboard, optuna.load_study, Optuna's
// visualisation and importance modules and the `optuna` CLI open it
// without a migration. Each knob becomes a trial param with its
// distribution as Optuna JSON, each objective a value with its direction,
// states map onto COMPLETE/PRUNED/FAIL/RUNNING, and what Optuna has no
// column for (serving command, GPU-hours, every profile's metrics, why a
// trial failed) goes into user attributes. Writes are upserts keyed by
// study name and trial number, so a re-export or a resumed run never
// duplicates a trial; Mirror keeps the storage current while a study runs.
package optunadb
