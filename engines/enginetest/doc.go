// Package enginetest provides fake serving engines for tests: the test
// binary re-executes itself (the os/exec helper-process pattern) as a
// process that accepts a real engine's flags, prints that engine's real
// startup, ready, out-of-memory and argument-error lines, serves its
// readiness endpoints and an OpenAI streaming completions endpoint (the
// bench/benchtest server), and can be told to hang at startup, die during
// the benchmark, ignore SIGTERM or fork workers into its process group
// (one in a session of its own). Given a multi-node rank's flags, rank 0
// waits at the rendezvous address for every other rank before it becomes
// ready, and the other ranks connect to it and live until that
// connection closes (Options.CrashRank fails one rank at startup). It can record when it
// started and stopped on which port and devices (RecordFile, ReadLives). Guard runs the guardian (launch.RunGuard)
// in the test binary, so launcher tests can run engines guarded.
//
// A test package opts in with
//
//	func TestMain(m *testing.M) {
//		enginetest.Main() // returns unless this process is a fake engine
//		os.Exit(m.Run())
//	}
//
// and points a target at the fake with Target.
package enginetest
