// Package faults is fault injection against the real acp-bridge binary: a
// child that crashes, floods, or writes garbage; an editor that stalls,
// disconnects, answers twice or too late; settings and files that cannot be
// read or written; SIGTERM with work in flight. Each scenario asserts that
// nothing is lost (every child request answered, every update delivered in
// order) and nothing hangs (bounded waits).
//
// The package holds only tests (TestMain builds the binary once, with -race
// when the tests run with -race). The test binary doubles as the fake agent
// (internal/testkit); the request and held-update floods (requests_test.go)
// run small python3 agents that write without reading. Goroutines: each test's fake editor reads the
// bridge's stdout on its own read loop (testkit.Editor); tests wait on its
// channels, and poll only state that offers no channel (/proc).
package faults
