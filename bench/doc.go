// Package bench measures acp-bridge against the physical limit of the same
// work done without it. Every figure is taken twice in the same run: DIRECT
// (a scripted agent process speaking NDJSON straight to a minimal client)
// and BRIDGED (the same agent binary behind the real acp-bridge binary,
// built with plain `go build`), and reported as a ratio or a difference.
//
// It owns: the scripted benchmark agent (ServeAgent, run as its own process
// by cmd/bench-agent: no model, it does exactly what the prompt text says),
// a lean NDJSON JSON-RPC client (Client) that stands in for the editor, the
// scenarios (streaming, latency, scale, start-up, policy), robust statistics
// and the markdown report written by cmd/acp-bench to docs/benchmarks.md.
//
// Goroutines: a Client has one read goroutine that runs OnUpdate and OnNotify
// inline, in wire order, and hands each inbound request to its own goroutine;
// writes are serialised by a mutex, one write(2) per message. The agent has
// the same shape: its read loop answers initialize and session/new inline and
// runs each session/prompt in a goroutine. Nothing here asserts on timings.
package bench
