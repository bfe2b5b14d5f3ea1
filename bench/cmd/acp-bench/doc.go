// Command acp-bench measures acp-bridge against the same work done without
// it (see package bench) and writes the markdown report.
//
//	go run ./bench/cmd/acp-bench -out docs/benchmarks.md
//
// Flags: -runs N (repetitions, default 5), -quick (small sizes, for a smoke
// run), -only LIST (comma-separated scenarios: stream, diff, latency, scale,
// policy, startup), -out FILE (also write the report there), -base DIR and
// -base-label (a baseline commit's checkout, run beside the current tree:
// make bench BASE=<commit>), -sandbox=false (the current bridge runs its
// agent without the OS sandbox, as a baseline built before the sandbox does:
// like with like), -bridge-env KEY=VALUE, -keep.
package main
