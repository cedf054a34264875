// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// in a temporary directory, postgres on a free loopback port, stopped and
// removed when the test ends. PostgreSQL refuses to run as root, so as
// root the cluster runs as a dedicated system user (servetune-pg,
// created when missing). With CI set, a cluster that cannot start fails
// the test instead of skipping it.
package pgtest
