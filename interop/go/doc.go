// Package interop holds interoperability tests of the real acp-bridge binary
// against ACP code nobody on this project wrote: the example agent and the
// example client of github.com/coder/acp-go-sdk v0.13.0, built from the Go
// module proxy into a temporary directory (never added to go.mod). The
// package has no product code; everything lives in _test.go files.
// docs/interop.md describes the scenarios and interop/run.sh runs them
// together with the TypeScript SDK tests in interop/ts.
//
// Every test writes a transcript of the bridge's stdio (each line the editor
// wrote and each line the bridge wrote, in order) to
// $ACP_INTEROP_TRANSCRIPT_DIR (else a temporary directory); interop/run.sh
// has the node tests validate those transcripts against the ACP v1 JSON
// schema.
//
// Goroutines: each test runs one bridge process; the testkit editor's read
// loop taps the bridge's stdout into the transcript (under the transcript's
// mutex) as it reads; prompts run on their own goroutines and report on
// channels; the example client's stdout is scanned by one goroutine that
// answers its permission menu.
package interop
