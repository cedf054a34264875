// Package enginetest provides fake serving engines for tests: the test
// binary re-executes itself as a process that takes a real engine's flags,
// prints that engine's real log lines (startup, ready, out-of-memory,
// argument errors), serves its readiness endpoints and OpenAI streaming
// completions, and misbehaves on request (Options: hang, crash, ignore
// SIGTERM, fork workers, fail one rank of a multi-node trial); Guard runs
// launch's guardian in the test binary and RecordFile records each run's
// port and devices.
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
