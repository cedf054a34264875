// Package store is a study's record behind one Store for both backends, a
// SQLite study.db or a PostgreSQL schema shared by workers: the same
// tables and schema migrations, one row per trial with its State, the
// checked claim (ClaimNext), per-trial leases and their reclaim, read-only
// readers and the ride-out of a database outage. It records; running
// trials and deciding what to run are the study loop's.
package store
