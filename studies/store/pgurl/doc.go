// Package pgurl owns the syntax of a study's storage value: a SQLite
// file, a postgres:// URL or a libpq key=value connection string — which
// it is, how it prints with every secret masked, which secrets it and the
// PostgreSQL driver's environment hold. It sits beside the store that
// hands the value to pgx.
//
// pgx's own parser (pgconn.ParseConfig) is the oracle of the tests (an
// accepted value names every password pgx would use), not the parser:
// it has no side-effect-free entry point — it reads $PG* variables, the
// service file (service=prod is refused without one), the password file
// and the TLS key files — and it neither refuses an unknown or miscased
// key (it would send a misspelt sslmode to the server as a setting) nor
// gives the value back with its secrets masked.
package pgurl
