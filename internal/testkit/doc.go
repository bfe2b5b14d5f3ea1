// Package testkit holds test doubles used by the bridge's tests: a
// scriptable fake ACP agent (run as a real child process by the tests'
// helper-process entry points) and a fake editor (an ACP client that records
// every message it receives, in order, and lets a test answer permission
// requests). Test-only: nothing in the product imports it.
//
// Goroutines: the fake editor's read loop records notifications inline (in
// order, into one slice under a mutex) and hands each permission request to
// the test through a channel; the request goroutine blocks until the test
// answers it.
package testkit
